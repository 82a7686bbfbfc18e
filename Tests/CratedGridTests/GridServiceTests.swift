import CratedTestSupport
import CratedJSON
import CratedCore
@testable import CratedGrid
import Foundation
import GRDB
import Testing

@Suite struct GridServiceTests {
    /// A small collection: three artists, five albums, the collector's copies and another user's.
    struct Fixture {
        let temporary: TemporaryDatabase
        let service: GridService
        let collector: Int64
        let other: Int64
        let albums: [String: Int64]
        let crate: Int64
        let othersCrate: Int64

        init() throws {
            temporary = try TemporaryDatabase()
            service = GridService(database: temporary.database)
            var albums: [String: Int64] = [:]
            (collector, other, crate, othersCrate) = try temporary.database.writer.write { db in
                let collector = try db.insertUser("collector")
                let other = try db.insertUser("other")
                let beatles = try db.insertArtist("The Beatles")
                let coltrane = try db.insertArtist("John Coltrane")
                let abba = try db.insertArtist("ABBA")
                albums["Abbey Road"] = try db.insertAlbum(title: "Abbey Road", artistId: beatles, year: 1969, genres: ["Rock"], formats: ["LP"])
                albums["Revolver"] = try db.insertAlbum(title: "Revolver", artistId: beatles, year: 1966, genres: ["Rock"], formats: ["CD"])
                albums["Blue Train"] = try db.insertAlbum(title: "Blue Train", artistId: coltrane, year: 1957, genres: ["Jazz"], styles: ["Hard Bop"], formats: ["LP"])
                albums["A Love Supreme"] = try db.insertAlbum(title: "A Love Supreme", artistId: coltrane, genres: ["Jazz"], formats: ["LP"])
                albums["Arrival"] = try db.insertAlbum(title: "Arrival", artistId: abba, year: 1976, genres: ["Pop"], formats: ["LP"])
                // Abbey Road three times: rated 3, unrated, rated 5; the last one added latest.
                _ = try db.insertCopy(userId: collector, albumId: albums["Abbey Road"]!, dateAdded: "2021-03-01T10:00:00Z", rating: 3)
                _ = try db.insertCopy(userId: collector, albumId: albums["Abbey Road"]!, dateAdded: "2023-07-01T10:00:00Z")
                let abbeyCopy = try db.insertCopy(userId: collector, albumId: albums["Abbey Road"]!, dateAdded: "2022-01-01T10:00:00Z", rating: 5)
                _ = try db.insertCopy(userId: collector, albumId: albums["Revolver"]!, dateAdded: "2020-05-01T10:00:00Z", rating: 4)
                let blueTrain = try db.insertCopy(userId: collector, albumId: albums["Blue Train"]!, dateAdded: "2024-02-01T10:00:00Z")
                _ = try db.insertCopy(userId: collector, albumId: albums["A Love Supreme"]!, dateAdded: "2019-01-01T10:00:00Z", rating: 2)
                // Arrival is the other user's only.
                let arrival = try db.insertCopy(userId: other, albumId: albums["Arrival"]!, dateAdded: "2024-01-01T10:00:00Z", rating: 5)
                let crate = try db.insertCrate(userId: collector, name: "Sunday")
                try db.addToCrate(crateId: crate, itemId: abbeyCopy)
                try db.addToCrate(crateId: crate, itemId: blueTrain)
                let othersCrate = try db.insertCrate(userId: other, name: "Theirs")
                try db.addToCrate(crateId: othersCrate, itemId: arrival)
                return (collector, other, crate, othersCrate)
            }
            self.albums = albums
        }

        func page(_ query: [String: String] = [:], scope: GridScope = .collection, user: Int64? = nil) throws -> GridPage {
            try service.page(userId: user ?? collector, request: GridRequest(scope: scope, query: query))
        }

        func titles(_ query: [String: String] = [:], scope: GridScope = .collection) throws -> [String] {
            try page(query, scope: scope).items.map(\.title)
        }
    }

    @Test func severalCopiesAreOneCellWithTheirCountLatestDateAndBestRating() throws {
        let fixture = try Fixture()
        let page = try fixture.page(["sort": "title"])
        #expect(page.total == 4)
        let abbey = try #require(page.items.first { $0.title == "Abbey Road" })
        #expect(abbey.copyCount == 3)
        #expect(abbey.dateAdded == "2023-07-01T10:00:00Z")
        #expect(abbey.rating == 5)
        #expect(abbey.artist == "The Beatles")
        #expect(abbey.year == 1969)
        let blueTrain = try #require(page.items.first { $0.title == "Blue Train" })
        #expect(blueTrain.copyCount == 1)
        #expect(blueTrain.rating == nil)
        #expect(page.items.first { $0.title == "A Love Supreme" }?.year == nil)
    }

    @Test func eachSortHasItsOrder() throws {
        let fixture = try Fixture()
        // Sort keys: "beatles", "john coltrane", each artist's albums by year (unknown last); titles
        // without a leading article.
        #expect(try fixture.titles(["sort": "artist"]) == ["Revolver", "Abbey Road", "Blue Train", "A Love Supreme"])
        #expect(try fixture.titles(["sort": "title"]) == ["Abbey Road", "Blue Train", "A Love Supreme", "Revolver"])
        #expect(try fixture.titles(["sort": "year"]) == ["Blue Train", "Revolver", "Abbey Road", "A Love Supreme"])
        #expect(try fixture.titles(["sort": "dateAdded"]) == ["Blue Train", "Abbey Road", "Revolver", "A Love Supreme"])
        #expect(try fixture.titles(["sort": "rating"]) == ["Abbey Road", "Revolver", "A Love Supreme", "Blue Train"])
    }

    /// `format=LP` finds a vinyl described `LP` first, as imports and sync both store it; a name
    /// matches as the API writes it or as the export abbreviates it (`Cass`); other descriptions,
    /// and a CD's, are not formats.
    @Test func theFormatFilterMatchesANameOrAFirstDescription() throws {
        let temporary = try TemporaryDatabase()
        let service = GridService(database: temporary.database)
        let user = try temporary.database.writer.write { db in
            let user = try db.insertUser("collector")
            let artist = try db.insertArtist("Band")
            for (title, name, descriptions) in [("Tape", "Cassette", #"["Album"]"#), ("Synced", "Vinyl", #"["LP","Album"]"#),
                                                ("Compact", "CD", #"["Album","LP"]"#), ("Twelve", "Vinyl", #"["12\"","EP"]"#)] {
                let album = try db.insertAlbum(title: title, artistId: artist)
                try db.execute(sql: "INSERT INTO album_format (album_id, position, name, descriptions) VALUES (?, 0, ?, ?)",
                               arguments: [album, name, descriptions])
                _ = try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-01-01T10:00:00Z")
            }
            return user
        }
        func titles(_ format: String, text: String? = nil) throws -> [String] {
            var query = ["sort": "title", "format": format]
            query["q"] = text
            return try service.page(userId: user, request: GridRequest(scope: .collection, query: query)).items.map(\.title)
        }
        #expect(try titles("LP") == ["Synced"])
        #expect(try titles("Vinyl") == ["Synced", "Twelve"])
        #expect(try titles("12\"") == ["Twelve"])
        #expect(try titles("Album").isEmpty)
        #expect(try titles("CD") == ["Compact"])
        #expect(try titles("Cassette") == ["Tape"])
        #expect(try titles("Cass") == ["Tape"])
        // With a search, the format is probed album by album rather than gathered.
        #expect(try titles("LP", text: "band") == ["Synced"])
        #expect(try titles("Cass", text: "band") == ["Tape"])
        // Whatever the case, gathered or probed.
        #expect(try titles("lp") == ["Synced"])
        #expect(try titles("VINYL") == ["Synced", "Twelve"])
        #expect(try titles("cass") == ["Tape"])
        #expect(try titles("cassette", text: "band") == ["Tape"])
        #expect(try titles("Lp", text: "band") == ["Synced"])
    }

    /// Genre, style and format names match whatever their case, as the grid's other parameters do,
    /// through indexes ordered without case (migration 0022): a lower-cased name found nothing.
    @Test func namesMatchWhateverTheirCase() throws {
        let fixture = try Fixture()
        #expect(try fixture.titles(["sort": "title"], scope: .genre("rock")) == ["Abbey Road", "Revolver"])
        #expect(try fixture.titles(["sort": "title", "genre": "JAZZ"]) == ["Blue Train", "A Love Supreme"])
        #expect(try fixture.titles(["sort": "title", "genre": "jazz", "q": "blue"]) == ["Blue Train"])
        #expect(try fixture.titles(["sort": "title"], scope: .style("hard bop")) == ["Blue Train"])
        #expect(try fixture.titles(["sort": "title", "format": "cd"]) == ["Revolver"])
        #expect(throws: GridError.notFound("name", "genre 'Roc' not found in your collection")) {
            try fixture.titles(scope: .genre("Roc"))
        }
        try fixture.temporary.database.reader.read { db in
            // A seek on the name, not a scan of every genre's rows.
            for (sql, seek) in [("SELECT album_id FROM album_genre WHERE kind = 'genre' AND name = 'rock' COLLATE NOCASE",
                                 "album_genre_name (kind=? AND name=?)"),
                                ("SELECT album_id FROM album_format WHERE name = 'lp' COLLATE NOCASE", "album_format_name (name=?)"),
                                ("SELECT album_id FROM album_format WHERE name = 'Vinyl' AND json_extract(descriptions, '$[0]') = 'lp' COLLATE NOCASE",
                                 "album_format_vinyl_description (<expr>=?)")] {
                let detail = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(separator: "; ")
                #expect(detail.contains(seek), "\(detail)")
            }
        }
    }

    @Test func scopesAndFiltersCombine() throws {
        let fixture = try Fixture()
        #expect(try fixture.titles(["sort": "title"], scope: .crate(id: fixture.crate)) == ["Abbey Road", "Blue Train"])
        #expect(try fixture.titles(["sort": "title", "genre": "Jazz"], scope: .crate(id: fixture.crate)) == ["Blue Train"])
        #expect(try fixture.titles(["sort": "title"], scope: .genre("Rock")) == ["Abbey Road", "Revolver"])
        #expect(try fixture.titles(["sort": "title", "format": "LP"], scope: .genre("Rock")) == ["Abbey Road"])
        #expect(try fixture.titles(["sort": "title"], scope: .style("Hard Bop")) == ["Blue Train"])
        #expect(try fixture.titles(["sort": "title", "yearFrom": "1960", "yearTo": "1969"]) == ["Abbey Road", "Revolver"])
        #expect(try fixture.titles(["sort": "title", "yearTo": "1960"]) == ["Blue Train"])
        #expect(try fixture.titles(["sort": "title", "q": "supreme"]) == ["A Love Supreme"])
        #expect(try fixture.titles(["sort": "title"], scope: .search("beat")) == ["Abbey Road", "Revolver"])
        #expect(try fixture.titles(["sort": "title", "crate": "\(fixture.crate)", "format": "LP", "q": "road"]) == ["Abbey Road"])
        // Arrival is in the catalogue and in the other user's collection, never in the collector's
        // grids: its genre, on none of the collector's albums, is a 404 as a missing one is.
        #expect(throws: GridError.notFound("name", "genre 'Pop' not found in your collection")) {
            try fixture.titles(scope: .genre("Pop"))
        }
        #expect(throws: GridError.notFound("name", "style 'Nope' not found in your collection")) {
            try fixture.titles(scope: .style("Nope"))
        }
        // A genre of the collector's that filters leave empty is an empty grid.
        #expect(try fixture.page(["yearFrom": "2100"], scope: .genre("Rock")).total == 0)
        #expect(try fixture.titles(scope: .search("arrival")).isEmpty)
        #expect(try fixture.page(scope: .genre("Pop"), user: fixture.other).items.map(\.title) == ["Arrival"])
        // A search with nothing searchable in it finds nothing; an empty filter is no filter.
        #expect(try fixture.page(scope: .search("!!")).total == 0)
        #expect(try fixture.page(["q": ""]).total == 4)
        // So is any other left empty, as a client that writes every optional field sends it, and an
        // empty cursor is none: the first page.
        let everyFilterEmpty = try fixture.page(["crate": "", "artist": "", "genre": "", "style": "", "format": "", "yearFrom": "", "yearTo": "",
                                                  "cursor": ""])
        #expect(everyFilterEmpty.total == 4 && everyFilterEmpty.start == 0)
        let artist = try fixture.page(["sort": "title"]).items[0]
        let artistId = try fixture.temporary.database.reader.read { db in
            try Int64.fetchOne(db, sql: "SELECT artist_id FROM album_artist WHERE album_id = ?", arguments: [artist.albumId])
        }
        #expect(try fixture.titles(["sort": "year"], scope: .artist(id: artistId!)) == ["Revolver", "Abbey Road"])
        #expect(try fixture.titles(["sort": "year", "artist": "\(artistId!)", "genre": "Jazz"]).isEmpty)
    }

    @Test func someoneElsesCrateAndAMissingArtistAreNotFound() throws {
        let fixture = try Fixture()
        // Named by the parameter that gave it: the path's id for a grid's own, the filter's name.
        #expect(throws: GridError.notFound("id", "no crate \(fixture.othersCrate) in this collection")) {
            try fixture.page(scope: .crate(id: fixture.othersCrate))
        }
        #expect(throws: GridError.notFound("crate", "no crate 4242 in this collection")) {
            try fixture.page(["crate": "4242"])
        }
        #expect(throws: GridError.notFound("id", "no artist 4242 in this collection")) {
            try fixture.page(scope: .artist(id: 4242))
        }
        // ABBA is on the other user's album only: answered as a missing artist, as grid and filter.
        let abba = try fixture.temporary.database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE name = 'ABBA'")! }
        #expect(throws: GridError.notFound("id", "no artist \(abba) in this collection")) {
            try fixture.page(scope: .artist(id: abba))
        }
        #expect(throws: GridError.notFound("artist", "no artist \(abba) in this collection")) {
            try fixture.page(["artist": "\(abba)"])
        }
        let error = try #require(throws: GridError.self) { try fixture.page(["around": "\(fixture.albums["Arrival"]!)"]) }
        #expect(error.parameter == "around")
        #expect(error.httpStatus == 404)
        #expect(error.code == "not_found")
    }

    @Test func gridChangesFollowTheCollectionAndTheCatalogue() throws {
        let fixture = try Fixture()
        let database = fixture.temporary.database
        #expect(try fixture.page().total == 4)
        // A new rating, a deleted copy, a catalogue title rewritten by sync: the triggers keep up.
        try database.writer.write { db in
            try db.execute(sql: "UPDATE collection_item SET rating = 1 WHERE album_id = ? AND rating = 5", arguments: [fixture.albums["Abbey Road"]!])
            try db.execute(sql: "DELETE FROM collection_item WHERE album_id = ? AND date_added = '2023-07-01T10:00:00Z'", arguments: [fixture.albums["Abbey Road"]!])
            try db.execute(sql: "UPDATE album SET title = 'Zebra Road', sort_title = 'zebra road', year = 1970 WHERE id = ?", arguments: [fixture.albums["Abbey Road"]!])
        }
        let page = try fixture.page(["sort": "title"])
        #expect(page.items.map(\.title) == ["Blue Train", "A Love Supreme", "Revolver", "Zebra Road"])
        let zebra = page.items[3]
        #expect(zebra.copyCount == 2)
        #expect(zebra.rating == 3)
        #expect(zebra.dateAdded == "2022-01-01T10:00:00Z")
        #expect(zebra.year == 1970)
        // The last copy gone, the album leaves the grid.
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM collection_item WHERE album_id = ?", arguments: [fixture.albums["Revolver"]!])
        }
        #expect(try fixture.titles(["sort": "title"]) == ["Blue Train", "A Love Supreme", "Zebra Road"])
        // A copy given to the other user moves its album from one collection to the other.
        try database.writer.write { db in
            try db.execute(sql: "UPDATE collection_item SET user_id = ? WHERE album_id = ?", arguments: [fixture.other, fixture.albums["Blue Train"]!])
        }
        #expect(try fixture.titles(["sort": "title"]) == ["A Love Supreme", "Zebra Road"])
        #expect(try fixture.page(["sort": "title"], user: fixture.other).items.map(\.title) == ["Arrival", "Blue Train"])
        // The summary table agrees with a recount from the copies.
        let mismatches = try database.reader.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM (
                    SELECT user_id, album_id, COUNT(*) AS copies, MAX(date_added) AS latest, COALESCE(MAX(rating), 0) AS best
                    FROM collection_item GROUP BY user_id, album_id
                ) AS recount
                FULL OUTER JOIN collection_album ca USING (user_id, album_id)
                WHERE ca.copies IS NOT recount.copies OR ca.latest_added IS NOT recount.latest OR ca.best_rating IS NOT recount.best
                """)
        }
        #expect(mismatches == 0)
    }

    /// The import's fast path: copies added while the upkeep is deferred are counted at its end, exactly
    /// as the per-row triggers count them.
    @Test func aDeferredBulkWriteCountsLikeTheTriggers() throws {
        func addCopies(_ db: Database, _ fixture: Fixture, artist: Int64) throws {
            for index in 0..<30 {
                let album = try db.insertAlbum(title: "Bulk \(index)", artistId: artist, year: 1980 + index % 7)
                for copy in 0...(index % 3) {
                    _ = try db.insertCopy(userId: fixture.collector, albumId: album, dateAdded: "2024-06-\(10 + copy)T00:00:00Z",
                                          rating: copy == 1 ? 4 : nil, copyOrdinal: copy)
                }
            }
            // More copies of albums already in the collection, one of them the other user's.
            _ = try db.insertCopy(userId: fixture.collector, albumId: fixture.albums["Revolver"]!, dateAdded: "2025-01-01T00:00:00Z", rating: 5)
            _ = try db.insertCopy(userId: fixture.collector, albumId: fixture.albums["Arrival"]!, dateAdded: "2025-01-02T00:00:00Z")
        }
        func summary(_ database: AppDatabase) throws -> [Row] {
            try database.reader.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT a.title, ca.user_id, ca.copies, ca.latest_added, ca.best_rating, ca.artist_key, ca.title_key, ca.year_key
                    FROM collection_album ca JOIN album a ON a.id = ca.album_id ORDER BY a.title, ca.user_id
                    """)
            }
        }
        let perRow = try Fixture()
        try perRow.temporary.database.writer.write { db in
            try addCopies(db, perRow, artist: try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM artist")!)
        }
        let deferred = try Fixture()
        try deferred.temporary.database.writer.write { db in
            try db.execute(sql: "INSERT INTO grid_deferral (id) VALUES (1)")
            try addCopies(db, deferred, artist: try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM artist")!)
            // Nothing is counted until the deferral ends.
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection_album WHERE title_key LIKE 'bulk%'") == 0)
            try db.execute(sql: "DELETE FROM grid_deferral")
        }
        let expected = try summary(perRow.temporary.database)
        // 4 + 30 of the collector's, Arrival for both users.
        #expect(expected.count == 36)
        #expect(try summary(deferred.temporary.database) == expected)
        #expect(try deferred.temporary.database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grid_pending") } == 0)
        #expect(try deferred.page(["sort": "dateAdded"]).items.first?.title == "Arrival")

        // A transaction that would commit with the deferral open is refused, and writes nothing.
        #expect(throws: DatabaseError.self) {
            try deferred.temporary.database.writer.write { db in
                try db.execute(sql: "INSERT INTO grid_deferral (id) VALUES (1)")
                _ = try db.insertCopy(userId: deferred.collector, albumId: deferred.albums["Blue Train"]!, dateAdded: "2025-02-01T00:00:00Z")
            }
        }
        #expect(try summary(deferred.temporary.database) == expected)
    }

    @Test func theCacheSeesEveryWrite() throws {
        let fixture = try Fixture()
        let database = fixture.temporary.database
        let before = try database.reader.read { try ListingGeneration.current($0) }
        let newest = ["sort": "dateAdded"]
        // The same grid twice: the second answer comes from the cached snapshot.
        #expect(try fixture.page(newest).total == 4)
        #expect(try fixture.page(newest).items.first?.title == "Blue Train")
        try fixture.temporary.database.writer.write { db in
            _ = try db.insertCopy(userId: fixture.collector, albumId: fixture.albums["Arrival"]!, dateAdded: "2025-01-01T00:00:00Z")
        }
        #expect(try database.reader.read { try ListingGeneration.current($0) } != before)
        let page = try fixture.page(newest)
        #expect(page.total == 5)
        #expect(page.items.first?.title == "Arrival")
        let next = try #require(try fixture.page(newest.merging(["limit": "2"]) { a, _ in a }).next)
        try fixture.temporary.database.writer.write { db in
            try db.execute(sql: "DELETE FROM collection_item WHERE album_id = ?", arguments: [fixture.albums["Arrival"]!])
        }
        // A cursor made before the write continues right after its album (Blue Train), which has moved
        // up to position 0 since: the next page starts at 1 and fills that row.
        let after = try fixture.page(newest.merging(["limit": "2", "cursor": next]) { a, _ in a })
        #expect(after.start == 1)
        #expect(after.total == 4)
        #expect(after.items.map(\.title) == ["Abbey Road"])
    }

    /// The generation moves with every write that changes what a grid or a search lists, and with no
    /// other: kept positions and results survive the commits of sync state, tokens and the player.
    @Test func theGridGenerationCountsOnlyWritesThatChangeGrids() throws {
        let fixture = try Fixture()
        let database = fixture.temporary.database
        func changesGrids(_ write: (Database) throws -> Void) throws -> Bool {
            let before = try database.reader.read { try ListingGeneration.current($0) }
            try database.writer.write(write)
            return try database.reader.read { try ListingGeneration.current($0) } != before
        }
        let abbey = fixture.albums["Abbey Road"]!
        let copy = try database.reader.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM collection_item WHERE album_id = ? ORDER BY id LIMIT 1", arguments: [abbey])!
        }
        // Writes that change grids or search results: copies, ratings, crates, the catalogue's keys and
        // filters, covers.
        #expect(try changesGrids { db in _ = try db.insertCopy(userId: fixture.collector, albumId: abbey, dateAdded: "2025-01-01T00:00:00Z") })
        #expect(try changesGrids { db in try db.execute(sql: "UPDATE collection_item SET rating = 1 WHERE id = ?", arguments: [copy]) })
        #expect(try changesGrids { db in try db.addToCrate(crateId: fixture.crate, itemId: copy) })
        #expect(try changesGrids { db in try db.execute(sql: "DELETE FROM crate_item WHERE item_id = ?", arguments: [copy]) })
        #expect(try changesGrids { db in try db.execute(sql: "UPDATE album SET title = 'Abbey Road (Remaster)' WHERE id = ?", arguments: [abbey]) })
        #expect(try changesGrids { db in
            try db.execute(sql: "INSERT INTO album_genre (album_id, kind, name, position) VALUES (?, 'style', 'Psychedelic', 0)", arguments: [abbey])
        })
        #expect(try changesGrids { db in try db.insertImage(albumId: abbey, uri: "https://img/a.jpg", uri150: "https://img/a-150.jpg", width: 600) })
        #expect(try changesGrids { db in try db.execute(sql: "DELETE FROM collection_item WHERE id = ?", arguments: [copy]) })
        // Writes that leave grids alone.
        #expect(try !changesGrids { db in try db.execute(sql: "UPDATE collection_item SET notes = 'cleaned' WHERE album_id = ?", arguments: [abbey]) })
        #expect(try !changesGrids { db in
            try db.execute(sql: """
                INSERT INTO album_sync (album_id, status, attempts) VALUES (?, 'failed', 1)
                ON CONFLICT (album_id) DO UPDATE SET status = 'failed', attempts = attempts + 1
                """, arguments: [abbey])
        })
        #expect(try !changesGrids { db in try db.execute(sql: "UPDATE user SET name = 'collector' WHERE id = ?", arguments: [fixture.collector]) })
    }

    /// Crate contents have a generation of their own: a crate edit changes the grids a crate
    /// restricts, at once, and leaves the others' snapshots and cursors as they were.
    @Test func aCrateEditMovesOnlyTheGridsOfCrates() throws {
        let fixture = try Fixture()
        let database = fixture.temporary.database
        let copy = try database.reader.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM collection_item WHERE album_id = ?", arguments: [fixture.albums["Revolver"]!])!
        }
        let collection = ["limit": "1"]
        let crate = ["limit": "1", "crate": "\(fixture.crate)"]
        let listings = try database.reader.read { try ListingGeneration.current($0, .listings) }
        let collectionBefore = try fixture.page(collection)
        let crateBefore = try fixture.page(crate)
        try database.writer.write { db in try db.addToCrate(crateId: fixture.crate, itemId: copy) }
        #expect(try database.reader.read { try ListingGeneration.current($0, .listings) } == listings)
        // The collection's page is the same, down to its cursor's placement at the same generation.
        #expect(try fixture.page(collection) == collectionBefore)
        let crateAfter = try fixture.page(crate)
        #expect(crateAfter.total == crateBefore.total + 1)
        #expect(crateAfter.next != crateBefore.next)
    }

    @Test func artworkIsTheSharedWidthAtLeastItemWidthTimesScale() throws {
        let fixture = try Fixture()
        try fixture.temporary.database.writer.write { db in
            try db.insertImage(albumId: fixture.albums["Abbey Road"]!, uri: "https://img/abbey-600.jpg", uri150: "https://img/abbey-150.jpg", width: 600)
            // A secondary image listed first is not the cover.
            try db.insertImage(albumId: fixture.albums["Blue Train"]!, position: 0, kind: "secondary", uri: "https://img/back.jpg", uri150: "https://img/back-150.jpg", width: 500)
            try db.insertImage(albumId: fixture.albums["Blue Train"]!, position: 1, uri: "https://img/blue.jpg", uri150: "https://img/blue-150.jpg", width: nil)
            // No primary image: the first one.
            try db.insertImage(albumId: fixture.albums["Revolver"]!, position: 1, kind: "secondary", uri: "https://img/rev-1.jpg", uri150: "https://img/rev-1-150.jpg", width: 300)
            try db.insertImage(albumId: fixture.albums["Revolver"]!, position: 0, kind: "secondary", uri: "https://img/rev-0.jpg", uri150: "https://img/rev-0-150.jpg", width: 300)
        }
        func artwork(_ title: String, _ query: [String: String]) throws -> ArtworkReference? {
            try fixture.page(query.merging(["sort": "title"]) { a, _ in a }).items.first { $0.title == title }?.artwork
        }
        func path(_ source: String, _ width: Int) throws -> String {
            ArtworkReference.path(key: try fixture.temporary.database.reader.read { try $0.artworkKey(of: source) }, width: width)
        }
        // iPhone SE portrait: items of 167.5 points. At scale 1, 167.5 pixels: the 192 width.
        #expect(try artwork("Abbey Road", ["layout": "iPhonePortrait", "width": "375", "scale": "1"])
                == ArtworkReference(url: try path("https://img/abbey-600.jpg", 192), width: 192, height: 192, color: nil))
        // iPad Slide Over: items of 116 points; at scale 1, 116 pixels: the 128 width.
        #expect(try artwork("Abbey Road", ["layout": "iPadSlideOver", "width": "320", "scale": "1"])?.url == (try path("https://img/abbey-600.jpg", 128)))
        // At scale 3, 502.5 pixels: 512, assumed square while the size is unknown.
        #expect(try artwork("Blue Train", ["layout": "iPhonePortrait", "width": "375", "scale": "3"])
                == ArtworkReference(url: try path("https://img/blue.jpg", 512), width: 512, height: 512, color: nil))
        // No primary image: the first one; never wider than its 300 pixels.
        #expect(try artwork("Revolver", ["layout": "iPhonePortrait", "width": "375", "scale": "3"])
                == ArtworkReference(url: try path("https://img/rev-0.jpg", 320), width: 300, height: 300, color: nil))
        // No image at all: none.
        #expect(try artwork("A Love Supreme", [:]) == nil)
    }

    @Test func theETagFollowsContentAndLayout() throws {
        let fixture = try Fixture()
        let first = try fixture.page(["layout": "iPhonePortrait"])
        #expect(first.etag.hasPrefix("\"") && first.etag.hasSuffix("\""))
        #expect(try fixture.page(["layout": "iPhonePortrait"]).etag == first.etag)
        #expect(first.matches(ifNoneMatch: first.etag))
        #expect(first.matches(ifNoneMatch: "\"other\", \(first.etag)"))
        #expect(first.matches(ifNoneMatch: "*"))
        // As swift-openapi-runtime sends it: the quotes percent-encoded.
        #expect(first.matches(ifNoneMatch: first.etag.replacingOccurrences(of: "\"", with: "%22")))
        #expect(!first.matches(ifNoneMatch: "%22other%22"))
        #expect(!first.matches(ifNoneMatch: "\"other\""))
        #expect(try fixture.page(["layout": "iPadFullscreen"]).etag != first.etag)
        #expect(try fixture.page(["layout": "iPhonePortrait", "scale": "1", "width": "375"]).etag != first.etag)
        // Another user's change moves the listing generation, which the cursors carry, not this page.
        let small = try fixture.page(["layout": "iPhonePortrait", "limit": "2"])
        try fixture.temporary.database.writer.write { db in
            try db.execute(sql: "UPDATE collection_item SET rating = 1 WHERE user_id = ?", arguments: [fixture.other])
        }
        let unchanged = try fixture.page(["layout": "iPhonePortrait", "limit": "2"])
        #expect(small.next != nil && unchanged.next != small.next, "the cursor's placement hint follows the generation")
        #expect(unchanged.etag == small.etag)
        #expect(try fixture.page(["layout": "iPhonePortrait"]).etag == first.etag)
        try fixture.temporary.database.writer.write { db in
            try db.execute(sql: "UPDATE collection_item SET rating = 4 WHERE album_id = ?", arguments: [fixture.albums["Blue Train"]!])
        }
        #expect(try fixture.page(["layout": "iPhonePortrait"]).etag != first.etag)
    }

    /// ETags must not change between processes or releases that hash the same way (a restart would
    /// turn every 304 into a 200): the value is pinned, computed independently of this code.
    @Test func theStableHashSeparatesTextsAndIsTheSameInEveryProcess() {
        func hash(_ parts: String...) -> String {
            var hash = StableHash()
            for part in parts { hash.combine(part) }
            return hash.hex
        }
        #expect(hash("Déjà vu, eight+ bytes long") == "5649bdb198575a5d")
        #expect(hash("ab", "c") == "1bdcd51b9059b9b3")
        #expect(hash("ab", "c") != hash("a", "bc"))
        #expect(hash("", "x") != hash("x", ""))
        #expect(hash("12345678") != hash("12345678", ""))
        var some = StableHash()
        some.combine(Optional(0)) { $0.combine($1) }
        var none = StableHash()
        none.combine(Int?.none) { $0.combine($1) }
        #expect(some.hex != none.hex)
    }

    /// Years by decade, dates added by year, ratings by stars; `?` gathers unknown years and unrated
    /// albums at the end.
    @Test func sectionsOfOtherSortsAreDecadesYearsAndStars() throws {
        let fixture = try Fixture()
        // Blue Train 1957, Revolver 1966, Abbey Road 1969, A Love Supreme of unknown year.
        #expect(try fixture.page(["sort": "year"]).sections == [
            GridSection(letter: "1950s", position: 0), GridSection(letter: "1960s", position: 1), GridSection(letter: "?", position: 3)])
        // Newest first: 2024, 2023 (Abbey Road's latest copy), 2020, 2019.
        #expect(try fixture.page(["sort": "dateAdded"]).sections == [
            GridSection(letter: "2024", position: 0), GridSection(letter: "2023", position: 1),
            GridSection(letter: "2020", position: 2), GridSection(letter: "2019", position: 3)])
        // Abbey Road 5 (its best copy), Revolver 4, A Love Supreme 2, Blue Train unrated.
        #expect(try fixture.page(["sort": "rating"]).sections == [
            GridSection(letter: "5", position: 0), GridSection(letter: "4", position: 1),
            GridSection(letter: "2", position: 2), GridSection(letter: "?", position: 3)])
        // A filtered grid keeps its own positions.
        #expect(try fixture.page(["sort": "year", "genre": "Rock"]).sections == [GridSection(letter: "1960s", position: 0)])
        #expect(try fixture.page(["sort": "rating", "format": "LP"]).sections == [
            GridSection(letter: "5", position: 0), GridSection(letter: "2", position: 1), GridSection(letter: "?", position: 2)])
    }

    @Test func sectionsIndexTheFirstLetterOfTheSortKey() throws {
        let fixture = try Fixture()
        let sections = try #require(try fixture.page(["sort": "title"]).sections)
        // abbey road, blue train, love supreme, revolver
        #expect(sections == [GridSection(letter: "A", position: 0), GridSection(letter: "B", position: 1),
                             GridSection(letter: "L", position: 2), GridSection(letter: "R", position: 3)])
        #expect(try fixture.page(["sort": "artist"]).sections == [GridSection(letter: "B", position: 0), GridSection(letter: "J", position: 2)])
        #expect(try fixture.page(["sort": "title", "sections": "false"]).sections == nil)
        let next = try #require(try fixture.page(["sort": "title", "limit": "2"]).next)
        #expect(try fixture.page(["sort": "title", "limit": "2", "cursor": next]).sections == nil)
        #expect(try fixture.page(["sort": "title", "limit": "2", "cursor": next, "sections": "true"]).sections?.count == 4)
    }
}
