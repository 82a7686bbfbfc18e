import CratedTestSupport
import CratedCore
@testable import CratedGrid
import GRDB
import Testing

@Suite struct GridCellCacheTests {
    static func cell(_ title: String) -> GridCell {
        GridCell(title: title, artist: "A", year: nil, copyCount: 1, rating: nil, dateAdded: "2024-01-01T00:00:00Z", cover: nil,
                 sortKeys: GridCell.SortKeys(artist: "a", title: title.lowercased(), year: 99999, rating: 0))
    }

    @Test func cellsAreServedForTheirGenerationOnly() {
        let cache = GridCellCache(capacity: 100)
        cache.store([(1, Self.cell("One")), (2, Self.cell("Two"))], userId: 7, generation: 5)
        #expect(cache.cells(userId: 7, albumIds: [2, 3, 1], generation: 5) == [Self.cell("Two"), nil, Self.cell("One")])
        // Another user's cells are not these.
        #expect(cache.cells(userId: 8, albumIds: [1], generation: 5) == [nil])
        // A reader of an older generation (its transaction began before a write) gets nothing, and
        // what it read is not kept: it may be older than what is kept.
        #expect(cache.cells(userId: 7, albumIds: [1], generation: 4) == [nil])
        cache.store([(3, Self.cell("Old three"))], userId: 7, generation: 4)
        #expect(cache.cells(userId: 7, albumIds: [3], generation: 5) == [nil])
        // A newer generation drops everything kept before it.
        cache.store([(3, Self.cell("Three"))], userId: 7, generation: 6)
        #expect(cache.count == 1)
        #expect(cache.cells(userId: 7, albumIds: [1, 3], generation: 6) == [nil, Self.cell("Three")])
        #expect(cache.cells(userId: 7, albumIds: [3], generation: 5) == [nil])
    }

    @Test func aFullCacheStartsAgainAndNeverHoldsMoreThanItsCapacity() {
        let cache = GridCellCache(capacity: 3)
        cache.store([(1, Self.cell("1")), (2, Self.cell("2"))], userId: 1, generation: 1)
        cache.store([(3, Self.cell("3"))], userId: 1, generation: 1)
        #expect(cache.count == 3)
        cache.store([(4, Self.cell("4"))], userId: 1, generation: 1)
        #expect(cache.count == 1)
        #expect(cache.cells(userId: 1, albumIds: [1, 4], generation: 1) == [nil, Self.cell("4")])
        cache.store((10..<20).map { ($0, Self.cell("\($0)")) }, userId: 1, generation: 1)
        #expect(cache.count == 3)
        let none = GridCellCache(capacity: 0)
        none.store([(1, Self.cell("1"))], userId: 1, generation: 1)
        #expect(none.count == 0)
        #expect(none.cells(userId: 1, albumIds: [1], generation: 1) == [nil])
    }

    /// Every field of a cell follows the database on the next page, with the cells of the page before
    /// kept: the listing generation moves with each of these writes.
    @Test func keptCellsFollowEveryChangeOfWhatTheyShow() throws {
        let fixture = try GridServiceTests.Fixture()
        let database = fixture.temporary.database
        let abbeyRoad = fixture.albums["Abbey Road"]!
        func abbey() throws -> GridItem {
            try #require(try fixture.page(["sort": "title"]).items.first { $0.albumId == abbeyRoad })
        }
        let before = try abbey()
        #expect(before.title == "Abbey Road")
        #expect(fixture.service.cells.count == 4, "the collector's four albums are kept")
        #expect(try abbey() == before)

        try database.writer.write { db in try db.execute(sql: "UPDATE album SET title = 'Abbey Road (Remaster)', artist_credit = 'Beatles, The', year = 2019 WHERE id = ?", arguments: [abbeyRoad]) }
        var after = try abbey()
        #expect(after.title == "Abbey Road (Remaster)")
        #expect(after.artist == "Beatles, The")
        #expect(after.year == 2019)

        try database.writer.write { db in
            _ = try db.insertCopy(userId: fixture.collector, albumId: abbeyRoad, dateAdded: "2025-06-01T00:00:00Z", rating: 1)
        }
        after = try abbey()
        #expect(after.copyCount == before.copyCount + 1)
        #expect(after.dateAdded == "2025-06-01T00:00:00Z")

        try database.writer.write { db in try db.execute(sql: "UPDATE collection_item SET rating = NULL WHERE album_id = ?", arguments: [abbeyRoad]) }
        #expect(try abbey().rating == nil)

        try database.writer.write { db in
            try db.insertImage(albumId: abbeyRoad, uri: "https://img/abbey.jpg", uri150: "https://img/abbey-150.jpg", width: 600)
        }
        let key = try database.reader.read { try $0.artworkKey(of: "https://img/abbey.jpg") }
        // The default layout: an iPhone in portrait at 3x, items of 150 points.
        #expect(try abbey().artwork == ArtworkReference(url: "/v1/artwork/\(key)/512", width: 512, height: 512, color: nil))
        // Fetched: the cover's own size and colour show at once, though no listing changed.
        try database.writer.write { db in
            try db.execute(sql: "UPDATE artwork SET width = 500, height = 250, color = '#a1b2c3' WHERE key = ?", arguments: [key])
        }
        #expect(try abbey().artwork == ArtworkReference(url: "/v1/artwork/\(key)/512", width: 500, height: 250, color: "#a1b2c3"))
        try database.writer.write { db in try db.execute(sql: "DELETE FROM album_image WHERE album_id = ?", arguments: [abbeyRoad]) }
        #expect(try abbey().artwork == nil)
    }

    /// An image without URLs (the Discogs API without a token) is passed over for the next one.
    @Test func anImageWithoutURLsIsNotTheArtwork() throws {
        let fixture = try GridServiceTests.Fixture()
        let revolver = fixture.albums["Revolver"]!
        try fixture.temporary.database.writer.write { db in
            try db.insertImage(albumId: revolver, position: 0, uri: "", uri150: "", width: 600)
            try db.insertImage(albumId: revolver, position: 1, kind: "secondary", uri: "https://img/rev.jpg", uri150: "https://img/rev-150.jpg", width: 600)
        }
        let page = try fixture.page(["layout": "iPhonePortrait", "width": "375", "scale": "1"])
        let key = try fixture.temporary.database.reader.read { try $0.artworkKey(of: "https://img/rev.jpg") }
        #expect(page.items.first { $0.albumId == revolver }?.artwork == ArtworkReference(url: "/v1/artwork/\(key)/192", width: 192, height: 192, color: nil))
    }

    /// The same pages with and without kept cells, across a write between them.
    @Test func keptCellsGiveTheSamePagesAsReadingThem() throws {
        let fixture = try GridServiceTests.Fixture()
        let uncached = GridService(database: fixture.temporary.database, caches: false)
        for query in [["sort": "title"], ["sort": "dateAdded", "limit": "2"], ["layout": "iPadFullscreen"]] {
            let request = try GridRequest(scope: .collection, query: query)
            #expect(try fixture.service.page(userId: fixture.collector, request: request) == uncached.page(userId: fixture.collector, request: request))
            try fixture.temporary.database.writer.write { db in
                try db.execute(sql: "UPDATE album SET title = title || '!' WHERE id = ?", arguments: [fixture.albums["Revolver"]!])
            }
            #expect(try fixture.service.page(userId: fixture.collector, request: request) == uncached.page(userId: fixture.collector, request: request))
        }
    }
}
