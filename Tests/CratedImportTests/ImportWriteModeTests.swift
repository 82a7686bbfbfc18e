@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// The import writes a large file into a small database in bulk (catalogue in memory, secondary
/// indexes built again at the end) and anything else row by row. Both must give the same database.
@Suite struct ImportWriteModeTests {
    private func importing(_ path: String, into database: AppDatabase, _ mode: ImportWriteMode, user: String? = nil) throws -> ImportSummary {
        var options = ImportOptions(userName: user)
        options.writeMode = mode
        var summary = try DiscogsImporter(database: database).importFile(at: path, options: options)
        summary.file = ""
        return summary
    }

    @Test func aLargeImportIntoAnEmptyCollectionGivesTheSameDatabaseBothWays() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("large.csv", syntheticExport(rows: 3000))
        let incremental = try directory.database("incremental.sqlite")
        let bulk = try directory.database("bulk.sqlite")
        let incrementalSummary = try importing(file, into: incremental, .incremental)
        let bulkSummary = try importing(file, into: bulk, .bulk)
        #expect(bulkSummary == incrementalSummary)
        #expect(bulkSummary.copiesAdded == 3000 && bulkSummary.albumsAdded > 2000 && bulkSummary.crates == 4)

        let (one, other) = (try DatabaseContents(incremental), try DatabaseContents(bulk))
        #expect(one.differences(from: other) == [])
        #expect(one.tables["collection_item"]?.count == 3000)
        #expect(one.tables["collection_album"]?.count == bulkSummary.albums)
        // The indexes set aside are back, and used: an artist found by name, a grid walked by title.
        let plans = try bulk.reader.read { db in
            func plan(_ sql: String) throws -> String {
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(separator: "; ")
            }
            return (try plan("SELECT id FROM artist WHERE discogs_name = 'Artist 5 (2)'"),
                    try plan("SELECT album_id FROM collection_album WHERE user_id = 1 ORDER BY title_key, album_id"))
        }
        #expect(plans.0.contains("artist_discogs_name") || plans.0.contains("artist_unidentified_name"))
        #expect(plans.1.contains("collection_album_title"))
        let integrity = try bulk.reader.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        #expect(integrity == "ok")
        // The search index, built beside the import in a scratch file and copied in, is whole and finds
        // what the incremental import's finds.
        func search(_ database: AppDatabase) throws -> [Int64] {
            try database.reader.read { db in
                try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH ? ORDER BY rank, rowid",
                                   arguments: [SearchText.matchExpression("deja earth")!])
            }
        }
        #expect(try search(bulk).count > 10)
        #expect(try search(bulk) == search(incremental))
        try bulk.writer.write { db in try db.execute(sql: "INSERT INTO album_search (album_search) VALUES ('integrity-check')") }
    }

    /// The import writes the grid rows of the albums it creates itself, as it goes (migration 0009):
    /// with copies of those albums far down the file, after their rows went in, and albums that were
    /// there before (recounted at the end, as before), the rows are the ones a recount gives. The
    /// per-row listing triggers stay quiet meanwhile.
    @Test(arguments: [ImportWriteMode.incremental, .bulk])
    func theGridRowsAreTheOnesARecountGives(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        // 1000 rows, then later copies of the first 300 releases (another date, other ratings).
        let laterCopies = syntheticExport(rows: 300, ratingShift: 2).dropFirst(exportHeader.count + 1)
            .replacingOccurrences(of: ",2021-", with: ",2024-")
        let file = try directory.write("collection.csv", syntheticExport(rows: 1000) + laterCopies)
        func recount() throws -> (grid: [String], recounted: [String]) {
            try database.reader.read { db in
                (try Row.fetchAll(db, sql: """
                    SELECT user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key
                    FROM collection_album ORDER BY user_id, album_id
                    """).map(\.description),
                 try Row.fetchAll(db, sql: """
                    SELECT c.user_id, c.album_id, COUNT(*) AS copies, MAX(c.date_added) AS latest_added,
                           COALESCE(MAX(c.rating), 0) AS best_rating,
                           a.artist_sort_name || char(31) || printf('%05d', min(max(COALESCE(a.year, 99999), 0), 99999)) || char(31) || a.sort_title
                               AS artist_key,
                           a.sort_title AS title_key, COALESCE(a.year, 99999) AS year_key
                    FROM collection_item c JOIN album a ON a.id = c.album_id
                    GROUP BY c.user_id, c.album_id ORDER BY c.user_id, c.album_id
                    """).map(\.description))
            }
        }
        let generation = try database.reader.read { try ListingGeneration.current($0, .listings) }
        let first = try importing(file, into: database, mode)
        #expect(first.copiesAdded == 1300 && first.albumsAdded == first.albums)
        let afterFirst = try recount()
        #expect(afterFirst.grid == afterFirst.recounted)
        #expect(afterFirst.grid.count == first.albums)
        let counts = try database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection_album WHERE copies >= 2 AND latest_added LIKE '2024-%'")!
        }
        #expect(counts > 250)
        // The end of the deferral and the search index advance the generation; no grid row did.
        let advanced = try database.reader.read { try ListingGeneration.current($0, .listings) } - generation
        #expect(advanced >= 1 && advanced <= 2)

        // Another user, the same albums (now in the catalogue) and new ones.
        let more = try directory.write("more.csv", exportHeader + "\n" + laterCopies + syntheticExport(rows: 200, firstRelease: 5000).dropFirst(exportHeader.count + 1))
        let second = try importing(more, into: database, mode, user: "second")
        #expect(second.copiesAdded == 500 && second.albumsAdded > 150 && second.albumsAdded < second.albums)
        let afterSecond = try recount()
        #expect(afterSecond.grid == afterSecond.recounted)
        #expect(afterSecond.grid.count == first.albums + second.albums)
        #expect(try database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grid_pending") } == 0)
    }

    @Test func theScratchSearchIndexIsAttachedAndRemoved() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let path = try database.writer.writeWithoutTransaction { db in
            let builder = try SearchIndexBuilder(attachingTo: db)
            let attached = try String.fetchAll(db, sql: "SELECT name FROM pragma_database_list")
            #expect(attached.contains(SearchIndexBuilder.schemaName))
            try db.inTransaction(.deferred) {
                try builder.lockMainDatabase(db)
                try builder.start(from: db, expectedAlbums: 1)
                builder.add([SearchIndexBuilder.Album(id: 1, title: "Déjà Vu", artists: "Crosby", labels: "Atlantic", catalogNumbers: "SD 7200")])
                builder.finish()
                // No album 1 in the catalogue: the copy is all this test looks at.
                try builder.copy(into: db)
                let found = try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH 'deja'")
                #expect(found == [1])
                return .rollback
            }
            #expect(FileManager.default.fileExists(atPath: builder.path))
            builder.detach(db)
            #expect(try !String.fetchAll(db, sql: "SELECT name FROM pragma_database_list").contains(SearchIndexBuilder.schemaName))
            return builder.path
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try TableCounts(database) == .empty)
    }

    /// The builder indexes albums as they are handed over, one INSERT each in one transaction, where
    /// `SearchIndex.add` runs one INSERT ... SELECT: for a collection large enough for the bulk buffer,
    /// with pending terms written out several times on the way, FTS5's tables still come out the same.
    /// Also when indexing starts before the last album is handed over and `add` has to wait for it
    /// (a limit of a few kilobytes on the albums waiting).
    @Test(arguments: [24 << 20, 4096])
    func theSearchIndexBuiltBesideTheImportIsTheOneSearchIndexAddBuilds(pendingBytesLimit: Int) throws {
        let count = SearchIndex.bulkAlbums + 2000
        let albums = (1...count).map { n in
            SearchIndexBuilder.Album(
                id: Int64(n), title: "Déjà Title \(n) \(n % 97) word\(n % 1013)", artists: "Artist \(n % 389) & Band \(n % 7)",
                labels: "Label \(n % 53)", catalogNumbers: catalogNumber(n).map { SearchText.catalogNumbers([$0]) } ?? "")
        }
        func catalogNumber(_ n: Int) -> String? { n % 5 == 0 ? nil : "CAT-\(n)" }
        func shadowTables(_ database: AppDatabase) throws -> [String: [String]] {
            try database.reader.read { db in
                var tables: [String: [String]] = [:]
                for table in SearchIndexBuilder.shadowTables {
                    tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1").map(\.description)
                }
                return tables
            }
        }
        let directory = try TemporaryDirectory()
        // The catalogue's way: the albums' rows, then one `SearchIndex.add`.
        let added = try directory.database("added.sqlite")
        try added.writer.write { db in
            for album in albums {
                try db.execute(sql: """
                    INSERT INTO album (id, title, sort_title, artist_credit, artist_sort_name, created_at, updated_at)
                    VALUES (?, ?, '', ?, '', '', '')
                    """, arguments: [album.id, album.title, album.artists])
                try db.execute(sql: "INSERT INTO album_label (album_id, position, name, catalog_number) VALUES (?, 0, ?, ?)",
                               arguments: [album.id, album.labels, catalogNumber(Int(album.id))])
            }
            try SearchIndex.add(db, newAlbumIds: albums.map(\.id))
        }
        // The builder's way, the albums handed over in batches as the import writes them.
        let built = try directory.database("built.sqlite")
        try built.writer.writeWithoutTransaction { db in
            let builder = try SearchIndexBuilder(attachingTo: db, pendingBytesLimit: pendingBytesLimit)
            defer { builder.detach(db) }
            try db.inTransaction(.deferred) {
                try builder.lockMainDatabase(db)
                try builder.start(from: db, expectedAlbums: count)
                for start in stride(from: 0, to: count, by: 1000) {
                    builder.add(Array(albums[start..<min(start + 1000, count)]))
                }
                builder.finish()
                try builder.copy(into: db)
                return .commit
            }
        }
        let (one, other) = (try shadowTables(added), try shadowTables(built))
        // Compared whole, reported by table (the rows run to megabytes).
        #expect(SearchIndexBuilder.shadowTables.filter { one[$0] != other[$0] } == [])
        // Several segments were written on the way (the data table holds more than the structure).
        #expect((one["album_search_data"]?.count ?? 0) > 100)
        let found = try built.reader.read { db in
            try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH ? ORDER BY rowid",
                               arguments: [SearchText.matchExpression("deja word1012")!])
        }
        #expect(found == albums.filter { $0.title.hasSuffix(" word1012") }.map(\.id))
    }

    /// An import that fails before its last album leaves the indexing thread waiting for more: the
    /// builder's removal ends it instead of waiting for ever.
    @Test func aBuilderLeftWithoutItsLastAlbumIsRemoved() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let path = try database.writer.writeWithoutTransaction { db in
            let builder = try SearchIndexBuilder(attachingTo: db)
            try db.inTransaction(.deferred) {
                try builder.lockMainDatabase(db)
                try builder.start(from: db, expectedAlbums: 10)
                builder.add([SearchIndexBuilder.Album(id: 1, title: "Déjà Vu", artists: "Crosby", labels: "Atlantic", catalogNumbers: "SD 7200")])
                return .rollback
            }
            builder.detach(db)
            return builder.path
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try TableCounts(database) == .empty)
    }

    /// `crated import` turns SQLite's memory statistics off before it opens the database (its two
    /// connections contended for their mutex); once a connection is open the setting no longer takes.
    @Test func memoryStatisticsAreSetBeforeTheFirstConnection() throws {
        let directory = try TemporaryDirectory()
        _ = try directory.database()
        #expect(SQLiteProcess.disableMemoryStatistics() == false)
    }

    /// The bulk write sets aside every per-row INSERT trigger of the tables it writes (`ImportTriggers`):
    /// a new one must be looked at, to see whether the writer must do its work while it is set aside.
    @Test func theTriggersSetAsideAreEveryInsertTriggerOfTheTablesWritten() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let found = try database.reader.read { db in
            try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_schema WHERE type = 'trigger' AND sql LIKE '%AFTER INSERT ON%'
                AND tbl_name IN ('artist', 'album', 'album_artist', 'album_label', 'album_format', 'collection_item',
                                 'collection_album', 'crate', 'crate_item', 'grid_pending')
                ORDER BY name
                """)
        }
        #expect(found == ImportTriggers.names.sorted())
        // Set aside and made again, they are as the migrations wrote them.
        let before = try DatabaseContents(database)
        try database.writer.write { db in
            let triggers = try ImportTriggers.setAside(db)
            #expect(triggers.setAside.count == ImportTriggers.names.count)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_schema WHERE name IN (SELECT value FROM json_each(?))",
                                     arguments: ["[" + ImportTriggers.names.map { "\"\($0)\"" }.joined(separator: ",") + "]"]) == 0)
            try triggers.restore(db)
        }
        #expect(try DatabaseContents(database).differences(from: before) == [])
    }

    @Test func scratchFilesOfEndedImportsAreRemoved() throws {
        let folder = FileManager.default.temporaryDirectory
        // A process id that has ended: a child that has run to its end.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let left = folder.appending(path: "crated-import-search-\(ended.processIdentifier)-\(UUID().uuidString).sqlite").path
        let running = folder.appending(path: "crated-import-search-\(getpid())-\(UUID().uuidString).sqlite").path
        for path in [left, running] { #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8))) }
        defer { try? FileManager.default.removeItem(atPath: running) }
        SearchIndexBuilder.removeFilesOfEndedImports()
        #expect(!FileManager.default.fileExists(atPath: left))
        #expect(FileManager.default.fileExists(atPath: running))
    }

    /// The bulk path takes the write lock by its first statement instead of BEGIN IMMEDIATE (see
    /// `SearchIndexBuilder.lockMainDatabase`): another writer is still reported, and nothing is lost.
    @Test func aLockedDatabaseIsReportedOnTheBulkPathToo() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database(busyTimeoutMs: 50)
        let file = try directory.write("large.csv", syntheticExport(rows: 500))
        let other = try DatabaseQueue(path: directory.path("crated.sqlite"))
        try other.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "INSERT INTO user (name, created_at) VALUES ('writer', '2020-01-01T00:00:00Z')")
            #expect(throws: ImportError.databaseLocked) { try importing(file, into: database, .bulk) }
            try db.execute(sql: "COMMIT")
        }
        #expect(try TableCounts(database).copies == 0)
        #expect(try importing(file, into: database, .bulk).copiesAdded == 500)
    }

    @Test func aSmallImportIntoALargeCollectionGivesTheSameDatabaseBothWays() throws {
        let directory = try TemporaryDirectory()
        let first = try directory.write("first.csv", syntheticExport(rows: 2000))
        // A later export: the first 300 releases again, a third of them re-rated, and 200 new ones;
        // and the same for a second user, who shares the catalogue.
        let later = try directory.write("later.csv", syntheticExport(rows: 300, ratingShift: 1)
            + String(syntheticExport(rows: 200, firstRelease: 5000).dropFirst(exportHeader.count + 1)))
        var summaries: [[ImportSummary]] = []
        var snapshots: [DatabaseContents] = []
        for (name, mode) in [("incremental.sqlite", ImportWriteMode.incremental), ("bulk.sqlite", .bulk)] {
            let database = try directory.database(name)
            _ = try importing(first, into: database, .incremental)
            summaries.append([try importing(later, into: database, mode), try importing(later, into: database, mode, user: "second")])
            snapshots.append(try DatabaseContents(database))
        }
        #expect(summaries[0] == summaries[1])
        #expect(summaries[1][0].copiesAdded == 200 && summaries[1][0].copiesUpdated > 0 && summaries[1][0].copiesUnchanged > 0)
        #expect(summaries[1][1].albumsAdded == 0 && summaries[1][1].copiesAdded == 500)
        #expect(snapshots[0].differences(from: snapshots[1]) == [])
    }

    @Test func aBulkReImportChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("large.csv", syntheticExport(rows: 1500))
        let database = try directory.database()
        _ = try importing(file, into: database, .bulk)
        let before = try DatabaseContents(database)
        let again = try importing(file, into: database, .bulk)
        #expect(again.copiesAdded == 0 && again.copiesUpdated == 0 && again.copiesUnchanged == 1500)
        #expect(again.albumsAdded == 0 && again.artistsAdded == 0 && again.cratesAdded == 0)
        #expect(again.albums == before.tables["album"]?.count)
        // The end of the import's grid deferral advances the listing and crate generations whatever it
        // wrote, on either path (migrations 0007, 0010), and the import is recorded (0013); nothing
        // else may change.
        #expect(try DatabaseContents(database).differences(from: before) == ["crate_generation", "import_run", "listing_generation"])
    }

    @Test func aFailedOrDryBulkImportLeavesTheDatabaseAsItWas() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try importing(Paths.ownFixture("sample-collection.csv"), into: database, .incremental)
        let before = try DatabaseContents(database)

        let file = try directory.write("large.csv", syntheticExport(rows: 1000))
        var dryRun = ImportOptions(dryRun: true)
        dryRun.writeMode = .bulk
        let dry = try DiscogsImporter(database: database).importFile(at: file, options: dryRun)
        #expect(dry.copiesAdded == 1000)
        #expect(try DatabaseContents(database) == before)

        let broken = try directory.write("broken.csv", syntheticExport(rows: 1000) + exportRow(releaseId: "not a number") + "\n")
        #expect(throws: ImportError.self) { try importing(broken, into: database, .bulk) }
        #expect(try DatabaseContents(database) == before)
    }

    @Test func theWriteIsChosenFromTheFileSizeAgainstTheDatabase() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let large = DiscogsImporter.bulkMinimumRows * DiscogsImporter.estimatedBytesPerRow
        let empty = try database.writer.read { db in
            [try DiscogsImporter.usesBulkWrite(db, .automatic, fileSize: large),
             try DiscogsImporter.usesBulkWrite(db, .automatic, fileSize: large - DiscogsImporter.estimatedBytesPerRow),
             try DiscogsImporter.usesBulkWrite(db, .incremental, fileSize: large),
             try DiscogsImporter.usesBulkWrite(db, .bulk, fileSize: 10)]
        }
        #expect(empty == [true, false, false, true])
        // A file as large as what the database holds (a re-import of the same export) goes row by row.
        let file = try directory.write("large.csv", syntheticExport(rows: DiscogsImporter.bulkMinimumRows))
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int
        _ = try importing(file, into: database, .automatic)
        let held = try database.writer.read { db in
            [try DiscogsImporter.usesBulkWrite(db, .automatic, fileSize: size),
             try DiscogsImporter.usesBulkWrite(db, .automatic, fileSize: 3 * size)]
        }
        #expect(held == [false, true])
    }

    /// Every secondary index of the tables the import writes is one the bulk write sets aside, or one
    /// the import reads: a new index on these tables must be looked at (it is set aside by default).
    @Test func theIndexesSetAsideAreTheMigrationsOwn() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let setAside = try database.writer.write { db in
            let indexes = try ImportIndexes.setAside(db)
            let left = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL
                AND tbl_name IN ('artist', 'album_artist', 'album_format', 'collection_item', 'crate_item', 'collection_album')
                """)
            try indexes.rebuild(db)
            return (indexes.names, left)
        }
        #expect(setAside.1 == [])
        #expect(setAside.0 == [
            "album_artist_artist", "album_format_name", "album_format_vinyl_description", "artist_discogs_name", "artist_sort", "artist_unidentified_name",
            "collection_album_added", "collection_album_artist", "collection_album_rating", "collection_album_title",
            "collection_album_year", "collection_item_album", "collection_item_instance", "collection_item_user_added",
            "crate_item_item", "crate_item_order",
        ])
    }
}
