import CratedTestSupport
import CratedCore
import CratedImport
@testable import CratedGrid
import Foundation
import GRDB
import Testing

/// The real Discogs export of a collector, imported and paged through.
@Suite struct GridRealExportTests {
    static let exportPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/fixtures/discogs/gustw-vinyl-collection_collection.csv").path

    @Test(.enabled(if: FileManager.default.fileExists(atPath: exportPath), "the real export ../shared/fixtures/discogs/gustw-vinyl-collection_collection.csv is absent"))
    func pagingThroughAnImportedCollection() throws {
        let temporary = try TemporaryDatabase()
        let summary = try DiscogsImporter(database: temporary.database).importFile(at: Self.exportPath)
        #expect(summary.rowsRead == 316)
        let userId = try #require(try temporary.database.user(named: summary.user)?.id)
        let albums = try temporary.database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT album_id) FROM collection_item WHERE user_id = ?", arguments: [userId])!
        }
        #expect(albums == 315)

        let service = GridService(database: temporary.database)
        let layouts = [
            LayoutRequest(horizontalSizeClass: .compact, verticalSizeClass: .regular, width: 375, height: 667, idiom: .phone, scale: 2),
            LayoutRequest(horizontalSizeClass: .regular, verticalSizeClass: .regular, width: 1376, height: 1032, idiom: .pad, scale: 2),
            LayoutRequest(horizontalSizeClass: .compact, verticalSizeClass: .regular, width: 320, height: 1133, idiom: .pad),
        ]
        for sort in GridSort.allowed(in: .collection) {
            var orders: [[Int64]] = []
            for layout in layouts {
                let pages = try followNext(service, userId: userId, request: GridRequest(sort: sort)) { _ in layout }
                let items = pages.flatMap(\.items)
                #expect(items.count == albums, "\(sort)")
                #expect(Set(items.map(\.albumId)).count == albums, "\(sort)")
                #expect(items.map(\.position) == Array(0..<albums), "\(sort)")
                #expect(items.filter { $0.copyCount == 2 }.count == 1, "\(sort)")
                #expect(pages.dropLast().allSatisfy { ($0.start + $0.items.count) % $0.layout.columns == 0 }, "\(sort)")
                orders.append(items.map(\.albumId))
            }
            // The layout changes the pages, never the order.
            #expect(orders.allSatisfy { $0 == orders[0] }, "\(sort)")
        }

        // Switching from the iPhone to the iPad after two pages.
        var request = GridRequest(sort: .artist, layout: layouts[0])
        var page = try service.page(userId: userId, request: request)
        var seen = page.items.map(\.albumId)
        for index in 1... {
            guard let next = page.next else { break }
            request.position = .cursor(next)
            request.layout = layouts[index < 2 ? 0 : 1]
            page = try service.page(userId: userId, request: request)
            if index == 2 { #expect(page.items.count == 35 - page.start % 5) }
            seen += page.items.map(\.albumId)
        }
        #expect(seen.count == albums && Set(seen).count == albums)

        let sections = try #require(try service.page(userId: userId, request: GridRequest(sort: .artist)).sections)
        #expect(sections.first?.position == 0)
        #expect(sections.map(\.position) == sections.map(\.position).sorted())
        #expect(Set(sections.map(\.letter)).count == sections.count)
        #expect(sections.count > 15)

        let pablo = try service.page(userId: userId, request: GridRequest(scope: .search("augustus pab"), sort: .title))
        #expect(pablo.items.map(\.title).contains("This Is Augustus Pablo"))
    }

    /// Titles with numbers come in the order of their values, and in the artist sort each artist's
    /// albums come by year, then title, as on the artist's page.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: exportPath), "the real export ../shared/fixtures/discogs/gustw-vinyl-collection_collection.csv is absent"))
    func numbersSortByValueAndAnArtistsAlbumsByYear() throws {
        let temporary = try TemporaryDatabase()
        let summary = try DiscogsImporter(database: temporary.database).importFile(at: Self.exportPath)
        let userId = try #require(try temporary.database.user(named: summary.user)?.id)
        let service = GridService(database: temporary.database)
        let layout = LayoutRequest(horizontalSizeClass: .regular, verticalSizeClass: .regular, width: 1376, height: 1032, idiom: .pad, scale: 2)

        let titles = try followNext(service, userId: userId, request: GridRequest(sort: .title)) { _ in layout }.flatMap(\.items).map(\.title)
        let numbered = titles.filter { ["10 Years Of Global Aura", "18 & Over / Shine Eyes Girl", "19/2000", "100 Years of Theremin (The Dub Chapter)"].contains($0) }
        #expect(numbered == ["10 Years Of Global Aura", "18 & Over / Shine Eyes Girl", "19/2000", "100 Years of Theremin (The Dub Chapter)"])

        let byArtist = try followNext(service, userId: userId, request: GridRequest(sort: .artist)) { _ in layout }.flatMap(\.items)
        var sameArtistPairs = 0
        for (earlier, later) in zip(byArtist, byArtist.dropFirst()) where earlier.artist == later.artist {
            sameArtistPairs += 1
            let (earlierYear, laterYear) = (earlier.year ?? GridKey.unknownYear, later.year ?? GridKey.unknownYear)
            // Titles compare as SQLite compares them: by UTF-8 bytes.
            let titlesInOrder = !Array(DiscogsText.sortKey(later.title).utf8).lexicographicallyPrecedes(Array(DiscogsText.sortKey(earlier.title).utf8))
            #expect(earlierYear < laterYear || (earlierYear == laterYear && titlesInOrder),
                    "\(earlier.artist): \(earlier.title) (\(earlierYear)) before \(later.title) (\(laterYear))")
        }
        #expect(sameArtistPairs > 10)
    }
}
