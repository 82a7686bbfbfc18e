import CratedCore
import CratedTestSupport
@testable import CratedGrid
import GRDB
import Testing

/// A crate's grid in the order its owner gave the crate (`sort=crate`, the crate route's default).
@Suite struct CrateOrderGridTests {
    /// The collector's crate "Order": Blue Train, Abbey Road, Revolver, Abbey Road again, A Love
    /// Supreme, in that order: an order no other sort gives.
    struct Fixture {
        let base: GridServiceTests.Fixture
        let crate: Int64
        /// The crate's copies by name, in the crate's order.
        let copies: [(name: String, id: Int64)]

        init() throws {
            base = try GridServiceTests.Fixture()
            let albums = base.albums
            let collector = base.collector
            (crate, copies) = try base.temporary.database.writer.write { db in
                let crate = try db.insertCrate(userId: collector, name: "Order")
                var copies: [(String, Int64)] = []
                for name in ["Blue Train", "Abbey Road", "Revolver", "Abbey Road", "A Love Supreme"] {
                    let copy = try db.insertCopy(userId: collector, albumId: albums[name]!, dateAdded: "2025-01-01T10:00:00Z", copyOrdinal: copies.count + 10)
                    try db.addToCrate(crateId: crate, itemId: copy)
                    copies.append((name, copy))
                }
                return (crate, copies)
            }
        }

        func page(_ query: [String: String] = [:]) throws -> GridPage {
            try base.page(query, scope: .crate(id: crate))
        }

        func titles(_ query: [String: String] = [:]) throws -> [String] {
            try page(query).items.map(\.title)
        }
    }

    @Test func aCratesGridIsInTheCratesOrderUnlessAskedOtherwise() throws {
        let fixture = try Fixture()
        // An album stands where its first copy in the crate does, once.
        #expect(try fixture.titles() == ["Blue Train", "Abbey Road", "Revolver", "A Love Supreme"])
        #expect(try fixture.titles(["sort": "crate"]) == ["Blue Train", "Abbey Road", "Revolver", "A Love Supreme"])
        #expect(try fixture.titles(["sort": "title"]) == ["Abbey Road", "Blue Train", "A Love Supreme", "Revolver"])
        let page = try fixture.page()
        #expect(page.total == 4)
        #expect(page.sections == nil)
        #expect(page.items.first { $0.title == "Abbey Road" }?.copyCount == 5)
    }

    @Test func filtersKeepTheCratesOrder() throws {
        let fixture = try Fixture()
        #expect(try fixture.titles(["genre": "rock"]) == ["Abbey Road", "Revolver"])
        #expect(try fixture.titles(["genre": "Jazz"]) == ["Blue Train", "A Love Supreme"])
        #expect(try fixture.titles(["format": "LP", "yearFrom": "1960"]) == ["Abbey Road"])
        // Another crate as a filter: the albums of both, in this crate's order.
        #expect(try fixture.titles(["crate": String(fixture.base.crate)]) == ["Blue Train", "Abbey Road"])
        #expect(try fixture.titles(["q": "revolver"]) == ["Revolver"])
    }

    @Test func aMoveInTheCrateMovesItsGrid() async throws {
        let fixture = try Fixture()
        let database = fixture.base.temporary.database
        #expect(try fixture.titles(["genre": "Rock"]) == ["Abbey Road", "Revolver"])
        let revolver = fixture.copies[2].id
        try await database.moveInCrate(id: fixture.crate, userId: fixture.base.collector, copyId: revolver, to: .before(copyId: fixture.copies[0].id))
        #expect(try fixture.titles() == ["Revolver", "Blue Train", "Abbey Road", "A Love Supreme"])
        #expect(try fixture.titles(["genre": "Rock"]) == ["Revolver", "Abbey Road"])
        // The first copy of Abbey Road taken out: the album stands where its second one does.
        try await database.removeFromCrate(id: fixture.crate, userId: fixture.base.collector, copyId: fixture.copies[1].id)
        #expect(try fixture.titles() == ["Revolver", "Blue Train", "Abbey Road", "A Love Supreme"])
        try await database.reorderCrate(id: fixture.crate, userId: fixture.base.collector,
                                        copyIds: [fixture.copies[3].id, fixture.copies[4].id, fixture.copies[0].id, revolver])
        #expect(try fixture.titles() == ["Abbey Road", "A Love Supreme", "Blue Train", "Revolver"])
    }

    /// Cursors, `at` and `around` in the crate's order, two albums a page; the cursors hold places in
    /// the crate, and a page after a move starts after its anchor's place.
    @Test func pagesFollowOneAnotherInTheCratesOrder() async throws {
        let fixture = try Fixture()
        let phone = ["layout": "iPhonePortrait", "width": "402", "limit": "2"]
        func page(_ extra: [String: String]) throws -> GridPage { try fixture.page(phone.merging(extra) { $1 }) }
        let first = try page([:])
        #expect(first.items.map(\.title) == ["Blue Train", "Abbey Road"])
        let second = try page(["cursor": try #require(first.next)])
        #expect(second.items.map(\.title) == ["Revolver", "A Love Supreme"])
        #expect(second.next == nil)
        #expect(try page(["cursor": try #require(second.previous)]).items.map(\.albumId) == first.items.map(\.albumId))
        #expect(try page(["at": "3"]).items.map(\.title) == ["Revolver", "A Love Supreme"])
        #expect(try page(["around": String(fixture.base.albums["A Love Supreme"]!)]).start == 2)

        // Blue Train moves to the end of the crate: the page after Abbey Road holds what now follows it.
        try await fixture.base.temporary.database.moveInCrate(
            id: fixture.crate, userId: fixture.base.collector, copyId: fixture.copies[0].id, to: .after(copyId: fixture.copies[4].id))
        let after = try page(["cursor": try #require(first.next), "limit": "10"])
        #expect(after.items.map(\.title) == ["Revolver", "A Love Supreme", "Blue Train"])
        #expect(after.start == 1)
    }

    /// The grid holds the albums of the crate's listing (`GET /v1/crates/{id}`) in its order, each
    /// once where its first copy is, on crates whose places have gaps and ties.
    @Test(arguments: [UInt64(5), 13, 34])
    func theGridFollowsTheCratesListing(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let temporary = try TemporaryDatabase()
        let library = try RandomLibrary(database: temporary.database, albumCount: 80, using: &random)
        let service = GridService(database: temporary.database)
        for crate in library.crates {
            let listing = try temporary.database.crateContents(id: crate, userId: library.collector, limit: 500)
            var seen = Set<Int64>()
            let listed = listing.entries.map(\.album.albumId).filter { seen.insert($0).inserted }
            let grid = try service.page(userId: library.collector, request: GridRequest(
                scope: .crate(id: crate), layout: LayoutRequest(layout: .iPadFullscreen, width: 1376, limit: 500)))
            #expect(grid.items.map(\.albumId) == listed, "seed \(seed), crate \(crate)")
            #expect(listing.entries.count > listed.count, "some album has two copies in the crate")
        }
    }

    /// Two copies in one place (crates of older imports have such ties): the listing puts the older
    /// copy first, and so does the grid, whatever the albums' ids.
    @Test func placesThatTieFollowTheListing() throws {
        let fixture = try Fixture()
        let database = fixture.base.temporary.database
        let (crate, later, earlier) = try database.writer.write { db in
            let crate = try db.insertCrate(userId: fixture.base.collector, name: "Ties")
            // The copy of the album made later is added first.
            let later = try db.insertCopy(userId: fixture.base.collector, albumId: fixture.base.albums["A Love Supreme"]!, dateAdded: "2025-01-01T10:00:00Z", copyOrdinal: 30)
            let earlier = try db.insertCopy(userId: fixture.base.collector, albumId: fixture.base.albums["Abbey Road"]!, dateAdded: "2025-01-01T10:00:00Z", copyOrdinal: 31)
            try db.addToCrate(crateId: crate, itemId: later)
            try db.addToCrate(crateId: crate, itemId: earlier)
            try db.execute(sql: "UPDATE crate_item SET position = 0 WHERE crate_id = ?", arguments: [crate])
            return (crate, later, earlier)
        }
        let listing = try database.crateContents(id: crate, userId: fixture.base.collector)
        #expect(listing.entries.map(\.copy.id) == [later, earlier])
        #expect(try fixture.base.titles([:], scope: .crate(id: crate)) == ["A Love Supreme", "Abbey Road"])
    }

    /// A move renumbers the places of the copies it passes: a cursor from before it continues after
    /// its album where that album is now, so no album that stayed comes twice or is skipped.
    @Test func aCursorContinuesAfterItsAlbumAcrossMovesAndReorders() async throws {
        let fixture = try Fixture()
        let database = fixture.base.temporary.database
        let user = fixture.base.collector
        let phone = ["layout": "iPhonePortrait", "width": "402", "limit": "2"]
        func page(_ extra: [String: String]) throws -> GridPage { try fixture.page(phone.merging(extra) { $1 }) }
        // Blue Train, Abbey Road | Revolver, A Love Supreme.
        let first = try page([:])
        let next = try #require(first.next)
        let previous = try #require(try page(["cursor": next]).previous)
        // A Love Supreme, the last, moves to the front: every other copy's place goes up by one.
        try await database.moveInCrate(id: fixture.crate, userId: user, copyId: fixture.copies[4].id, to: .before(copyId: fixture.copies[0].id))
        #expect(try fixture.titles() == ["A Love Supreme", "Blue Train", "Abbey Road", "Revolver"])
        #expect(try page(["cursor": next]).items.map(\.title) == ["Revolver"])
        #expect(try page(["cursor": previous]).items.map(\.title) == ["Abbey Road"])
        // A whole new order: the cursor still continues after Abbey Road.
        try await database.reorderCrate(id: fixture.crate, userId: user, copyIds: [
            fixture.copies[2].id, fixture.copies[1].id, fixture.copies[4].id, fixture.copies[0].id, fixture.copies[3].id,
        ])
        #expect(try fixture.titles() == ["Revolver", "Abbey Road", "A Love Supreme", "Blue Train"])
        #expect(try page(["cursor": next, "limit": "10"]).items.map(\.title) == ["A Love Supreme", "Blue Train"])
        // Its album gone from the crate, the cursor falls back to its place.
        for copy in [fixture.copies[1].id, fixture.copies[3].id] {
            try await database.removeFromCrate(id: fixture.crate, userId: user, copyId: copy)
        }
        #expect(try page(["cursor": next, "limit": "10"]).items.map(\.title) == ["A Love Supreme", "Blue Train"])
    }

    @Test func aCratesOrderIsOnlyACratesGrid() throws {
        let fixture = try Fixture()
        let expected = GridError.badParameter("sort", "crate is the order of a crate's own grid; here it must be one of artist, title, year, dateAdded, rating")
        #expect(throws: expected) { try fixture.base.page(["sort": "crate"]) }
        #expect(throws: expected) { try fixture.base.page(["sort": "Crate"], scope: .artist(id: 1)) }
        #expect(throws: expected) {
            try fixture.base.service.page(userId: fixture.base.collector, request: GridRequest(sort: .crate, filters: GridFilters(crateId: fixture.crate)))
        }
        #expect(throws: GridError.badParameter("sort", "must be one of artist, title, year, dateAdded, rating, crate, not 'position'")) {
            try fixture.page(["sort": "position"])
        }
        #expect(throws: GridError.badParameter("sort", "must be one of artist, title, year, dateAdded, rating, not 'position'")) {
            try fixture.base.page(["sort": "position"])
        }
        // Someone else's crate is not found, in its order as in any other.
        #expect(throws: GridError.notFound("id", "no crate \(fixture.base.othersCrate) in this collection")) {
            try fixture.base.page([:], scope: .crate(id: fixture.base.othersCrate))
        }
    }

    /// A crate larger than the grids whose snapshots keep every anchor: in a crate's order they still
    /// do, and every cursor starts from one.
    @Test func aLargeCratePagesThroughEveryAlbum() throws {
        let temporary = try TemporaryDatabase()
        let (user, crate, albums) = try temporary.database.writer.write { db in
            let user = try db.insertUser("collector")
            let artist = try db.insertArtist("Someone")
            let crate = try db.insertCrate(userId: user, name: "Big")
            var albums: [Int64] = []
            for index in 0..<40 {
                let album = try db.insertAlbum(title: "Album \(index)", artistId: artist)
                albums.append(album)
                try db.addToCrate(crateId: crate, itemId: try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-01-01T00:00:00Z"))
            }
            // The crate's order: albums reversed.
            try db.execute(sql: "UPDATE crate_item SET position = 1000 - position WHERE crate_id = ?", arguments: [crate])
            return (user, crate, albums)
        }
        let service = GridService(database: temporary.database, caches: true, tuning: GridSnapshot.Tuning(stride: 4, allAnchorsLimit: 8, leadingAnchors: 2))
        var request = GridRequest(scope: .crate(id: crate), layout: LayoutRequest(layout: .iPhonePortrait, width: 402, limit: 3))
        var seen: [Int64] = []
        while true {
            let page = try service.page(userId: user, request: request)
            seen += page.items.map(\.albumId)
            guard let next = page.next else { break }
            request.position = .cursor(next)
        }
        #expect(seen == albums.reversed())
    }
}
