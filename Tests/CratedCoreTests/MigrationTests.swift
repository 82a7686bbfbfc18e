@testable import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

@Suite struct MigrationTests {
    @Test func aNewDatabaseHasEveryMigrationRecordedOnce() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let recorded = try database.reader.read { db in try String.fetchAll(db, sql: "SELECT file_name FROM schema_migration ORDER BY version") }
        #expect(recorded == Migration.embedded.map(\.fileName))
        #expect(recorded.first == "0001_core.sql")
        // Opening again applies nothing.
        #expect(try database.migrate().isEmpty)
        #expect(try directory.database().migrate().isEmpty)
    }

    /// Migration 0014: crates that sync had linked to a Discogs folder stand for it; the rest cannot
    /// be told from the user's own and wait for an import to name their folder.
    @Test func cratesLinkedToAFolderBecomeFolderCrates() throws {
        let directory = try TemporaryDirectory()
        let before = Migration.embedded(before: "0014")
        let database = try AppDatabase.open(path: directory.path("crated.sqlite"), migrations: before)
        try database.writer.write { db in
            try db.execute(sql: "INSERT INTO user (id, name, created_at) VALUES (1, 'collector', '2026-01-01T00:00:00Z')")
            for (name, folder) in [("Jazz", 7 as Int64?), ("Imported", nil)] {
                try db.execute(sql: """
                    INSERT INTO crate (user_id, name, discogs_folder_id, created_at, updated_at)
                    VALUES (1, ?, ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')
                    """, arguments: [name, folder])
            }
        }
        #expect(try database.migrate().first == "0014_folder_crates.sql")
        let folders = try database.reader.read { db in try Crate.order(Column("name")).fetchAll(db).map { "\($0.name) \($0.isFolder)" } }
        #expect(folders == ["Imported false", "Jazz true"])
    }

    @Test func walForeignKeysAndBusyTimeoutAreOn() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database(busyTimeoutMs: 300)
        let (journal, foreignKeys) = try database.writer.write { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode")!, try Int.fetchOne(db, sql: "PRAGMA foreign_keys")!)
        }
        #expect(journal == "wal")
        #expect(foreignKeys == 1)
        #expect(try database.read { db in try Int.fetchOne(db, sql: "PRAGMA busy_timeout") } == 300)
        #expect(throws: DatabaseError.self) {
            try database.writer.write { db in
                try db.execute(sql: "INSERT INTO collection_item (user_id, album_id, date_added) VALUES (99, 99, 'x')")
            }
        }
        // A write waits the busy timeout for another connection's lock, then gives up as `locked`.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: directory.path("crated.sqlite"), configuration: holding)
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let started = ContinuousClock.now
        #expect(throws: AppDatabaseError.locked) {
            try database.writeBlocking { db in try db.execute(sql: "UPDATE listing_generation SET value = value") }
        }
        #expect(ContinuousClock.now - started >= .milliseconds(300))
        try other.inDatabase { db in try db.execute(sql: "COMMIT") }
        try database.writeBlocking { db in try db.execute(sql: "UPDATE listing_generation SET value = value") }
    }


    /// Another program's SQLite file, named by mistake, is refused and left as it was.
    @Test func aSQLiteDatabaseThatIsNotCratedsIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("photos.sqlite")
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE photo (id INTEGER PRIMARY KEY, name TEXT)") }
        #expect(throws: MigrationError.notCrated(tables: ["photo"])) { try AppDatabase.open(path: path) }
        let tables = try DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        #expect(tables == ["photo"])
        #expect("\(MigrationError.notCrated(tables: ["photo"]))".contains("not crated's"))
        // An empty SQLite file is a new database.
        let empty = directory.path("empty.sqlite")
        _ = try DatabaseQueue(path: empty)
        #expect(try AppDatabase.open(path: empty).migrate().isEmpty)
    }

    @Test func aChangedAppliedFileIsRefusedByName() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        var changed = Migration.embedded
        changed[0].sql += "\nCREATE TABLE sneaky (id INTEGER);"
        #expect(throws: MigrationError.changedAfterApplying(fileName: "0001_core.sql")) { try database.migrate(changed) }
        #expect("\(MigrationError.changedAfterApplying(fileName: "0001_core.sql"))".contains("0001_core.sql"))
        // Reopening with the changed set fails the same way; the database is untouched.
        #expect(throws: MigrationError.changedAfterApplying(fileName: "0001_core.sql")) {
            try AppDatabase.open(path: directory.path("crated.sqlite"), migrations: changed)
        }
        let sneaky = try database.reader.read { db in try db.tableExists("sneaky") }
        #expect(!sneaky)
    }

    @Test func newMigrationsApplyInOrderAndAFailingOneLeavesNoTrace() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let later = Migration.embedded + [
            Migration(fileName: "9001_second.sql", sql: "ALTER TABLE extra ADD COLUMN note TEXT;"),
            Migration(fileName: "9000_first.sql", sql: "CREATE TABLE extra (id INTEGER PRIMARY KEY);"),
        ]
        #expect(try database.migrate(later) == ["9000_first.sql", "9001_second.sql"])

        let broken = Migration.embedded + [Migration(fileName: "9100_broken.sql", sql: "CREATE TABLE half (id INTEGER); THIS IS NOT SQL;")]
        #expect(throws: MigrationError.self) { try directory.database("other.sqlite").migrate(broken) }
        let other = try directory.database("other.sqlite")
        let (halfExists, recorded) = try other.reader.read { db in
            (try db.tableExists("half"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM schema_migration WHERE version = 9100")!)
        }
        #expect(!halfExists)
        #expect(recorded == 0)
    }

    @Test func aDatabaseFromANewerCrated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("db.sqlite")
        try AppDatabase.open(path: path, migrations: Migration.embedded + [Migration(fileName: "9999_future.sql", sql: "CREATE TABLE future (id INTEGER);")])
            .close()
        // What the database holds (GRDB's opening writes a page it frees again: the bytes move, not this).
        let content = {
            try DatabaseQueue(path: path).read { db in
                (try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"),
                 try Row.fetchAll(db, sql: "SELECT * FROM schema_migration ORDER BY version"))
            }
        }
        let before = try content()
        #expect(throws: MigrationError.unknownAppliedVersion(version: 9999, fileName: "9999_future.sql")) {
            try AppDatabase.open(path: path)
        }
        let after = try content()
        #expect(after.0 == before.0 && after.1 == before.1 && before.1.last?["version"] == 9999)
        // What to do about it is said too.
        #expect(MigrationError.unknownAppliedVersion(version: 9999, fileName: "9999_future.sql").description
            .hasSuffix("written by a newer version of crated; run that version, or restore a backup taken before it (the database is unchanged)"))
    }

    @Test func badMigrationSetsAreRefused() throws {
        #expect(throws: MigrationError.badFileName("core.sql")) { try Migrator(migrations: [Migration(fileName: "core.sql", sql: "")]) }
        #expect(throws: MigrationError.duplicateVersion(1)) {
            try Migrator(migrations: [Migration(fileName: "0001_a.sql", sql: ""), Migration(fileName: "1_b.sql", sql: "")])
        }
    }

    @Test func aFileThatIsNotADatabaseIsAClearError() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("not.sqlite", String(repeating: "this is text, not SQLite\n", count: 200))
        #expect(throws: (any Error).self) { try AppDatabase.open(path: path) }
        #expect(throws: AppDatabaseError.cannotOpen(path: directory.url.path, reason: "it is a directory")) {
            try AppDatabase.open(path: directory.url.path)
        }
    }

    /// SQLite's "unable to open database file" and "attempt to write a readonly database" name
    /// neither the file nor the folder this user may not write; the reason does. (The command-line
    /// tests open such a database as another user.)
    @Test func aDatabaseThisUserCannotWriteNamesWhatItCannotWrite() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.url.path
        let path = directory.path("c.sqlite")
        let cannotOpen = DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "unable to open database file")
        let readOnly = DatabaseError(resultCode: .SQLITE_READONLY, message: "attempt to write a readonly database")

        let noFolder = AppDatabase.openFailureReason(cannotOpen, path: path) { $0 != folder }
        #expect(noFolder.hasSuffix("cannot write the folder \(folder), where SQLite keeps the database's -wal and -shm files (SQLite said: unable to open database file)"))
        #expect(noFolder.hasPrefix("user "))
        // The database file does not exist yet: only the folder can be at fault.
        #expect(AppDatabase.openFailureReason(cannotOpen, path: path) { $0 == folder } == "unable to open database file")
        try directory.write("c.sqlite-wal", "")
        let noWAL = AppDatabase.openFailureReason(readOnly, path: path) { !$0.hasSuffix("-wal") }
        #expect(noWAL.hasSuffix("cannot write the file \(path)-wal (SQLite said: attempt to write a readonly database)"))
        // Every file and the folder writable, or another kind of failure: SQLite's words alone.
        #expect(AppDatabase.openFailureReason(readOnly, path: path) { _ in true } == "attempt to write a readonly database")
        let corrupt = DatabaseError(resultCode: .SQLITE_CORRUPT, message: "database disk image is malformed")
        #expect(AppDatabase.openFailureReason(corrupt, path: path) { _ in false } == "database disk image is malformed")
    }

    /// Migration 0018 rewrites the sort keys written before it, and the grid's copies follow.
    @Test func migration0018RewritesTheSortKeysThatChanged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0018")
        let old = try AppDatabase.open(path: path, migrations: before)
        let (eroica, beatles) = try old.writer.write { db in
            let user = try db.insertUser("collector")
            let choeur = try db.insertArtist("Chœur Des Moines")
            let eroica = try db.insertAlbum(title: "»Eroica«", artistId: choeur)
            let beatles = try db.insertAlbum(title: "Abbey Road", artistId: try db.insertArtist("The Beatles"))
            _ = try db.insertCopy(userId: user, albumId: eroica, dateAdded: "2024-01-01T10:00:00Z")
            _ = try db.insertCopy(userId: user, albumId: beatles, dateAdded: "2024-01-01T10:00:00Z")
            // The keys as crated wrote them before 0018.
            try db.execute(sql: "UPDATE album SET sort_title = '»eroica«', artist_sort_name = 'chœur des moines' WHERE id = ?", arguments: [eroica])
            try db.execute(sql: "UPDATE artist SET sort_name = 'chœur des moines' WHERE id = ?", arguments: [choeur])
            return (eroica, beatles)
        }

        let migrated = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0019"))
        let keys = try migrated.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.sort_title, a.artist_sort_name, c.title_key, c.artist_key FROM album a JOIN collection_album c ON c.album_id = a.id
                WHERE a.id IN (?, ?) ORDER BY a.id
                """, arguments: [eroica, beatles]).map { [$0[0], $0[1], $0[2], $0[3]] as [String] }
        }
        #expect(keys == [["eroica«", "choeur des moines", "eroica«", "choeur des moines"], ["abbey road", "beatles", "abbey road", "beatles"]])
        let artistKeys = try migrated.writer.read { db in try String.fetchAll(db, sql: "SELECT sort_name FROM artist ORDER BY id") }
        #expect(artistKeys == ["choeur des moines", "beatles"])
    }

    /// Migration 0019 renames the formats an import stored under the export's abbreviations, leaves
    /// sync's alone, and moves the listing generation on (the format filter's answers change).
    @Test func migration0019NamesImportedFormatsAsTheAPIDoes() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0019")
        let old = try AppDatabase.open(path: path, migrations: before)
        let (imported, synced, generation) = try old.writer.write { db in
            let artist = try db.insertArtist("Sleater-Kinney")
            let imported = try db.insertAlbum(title: "No Cities To Love", artistId: artist)
            let synced = try db.insertAlbum(title: "Dig Me Out", artistId: artist)
            // As an import wrote `2xLP, Album, Whi + Cass + Box, Dl + RE, Gat + CD, Album` before 0019.
            for (position, name, quantity, descriptions) in [(0, "LP", 2, #"["Album","Whi"]"#), (1, "Cass", 1, "[]"), (2, "Box", 1, #"["Dl"]"#),
                                                             (3, "RE", 1, #"["Gat"]"#), (4, "CD", 1, #"["Album"]"#), (5, "12\"", 1, "[]")] {
                try db.execute(sql: "INSERT INTO album_format (album_id, position, name, quantity, descriptions) VALUES (?, ?, ?, ?, ?)",
                               arguments: [imported, position, name, quantity, descriptions])
            }
            try db.execute(sql: #"INSERT INTO album_format (album_id, position, name, quantity, descriptions) VALUES (?, 0, 'Vinyl', 1, '["LP", "Album"]')"#,
                           arguments: [synced])
            return (imported, synced, try Int.fetchOne(db, sql: "SELECT value FROM listing_generation")!)
        }

        let migrated = try AppDatabase.open(path: path)
        let formats = { (album: Int64) in
            try migrated.writer.read { db in
                try Row.fetchAll(db, sql: "SELECT name, quantity, descriptions FROM album_format WHERE album_id = ? ORDER BY position", arguments: [album])
                    .map { "\($0["name"] as String)|\($0["quantity"] as Int)|\($0["descriptions"] as String)" }
            }
        }
        #expect(try formats(imported) == [#"Vinyl|2|["LP","Album","Whi"]"#, "Cassette|1|[]", #"Box Set|1|["Dl"]"#,
                                          #"All Media|1|["RE","Gat"]"#, #"CD|1|["Album"]"#, #"Vinyl|1|["12\""]"#])
        #expect(try formats(synced) == [#"Vinyl|1|["LP", "Album"]"#])
        #expect(try migrated.writer.read { db in try Int.fetchOne(db, sql: "SELECT value FROM listing_generation")! } > generation)
    }

    /// Migration 0020 takes Discogs' suffix off the label names an import stored, indexes those
    /// albums' labels for search again, leaves other labels alone, and moves the listing generation on.
    @Test func migration0020ShowsLabelNamesWithoutTheirSuffix() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0020")
        let old = try AppDatabase.open(path: path, migrations: before)
        let (imported, synced, generation) = try old.writer.write { db in
            let artist = try db.insertArtist("Mogwai")
            let imported = try db.insertAlbum(title: "Hardcore Will Never Die", artistId: artist)
            let synced = try db.insertAlbum(title: "Young Team", artistId: artist)
            // As an import wrote `Death Waltz Recording Company, Mondo (3)` before 0020.
            for (album, position, name, number) in [(imported, 0, "Death Waltz Recording Company", "DW40LP"), (imported, 1, "Mondo (3)", "DW40LP"),
                                                    (synced, 0, "Chemikal Underground", "CHEM 018"), (synced, 1, "Jinx (In Dub)", nil)] {
                try db.execute(sql: "INSERT INTO album_label (album_id, position, name, catalog_number) VALUES (?, ?, ?, ?)",
                               arguments: [album, position, name, number])
            }
            try SearchIndex.refresh(db, albumIds: [imported, synced])
            return (imported, synced, try Int.fetchOne(db, sql: "SELECT value FROM listing_generation")!)
        }

        let migrated = try AppDatabase.open(path: path)
        try migrated.writer.read { db in
            let names = { (album: Int64) in
                try String.fetchAll(db, sql: "SELECT name FROM album_label WHERE album_id = ? ORDER BY position", arguments: [album])
            }
            #expect(try names(imported) == ["Death Waltz Recording Company", "Mondo"])
            #expect(try names(synced) == ["Chemikal Underground", "Jinx (In Dub)"])
            let indexed = try Row.fetchAll(db, sql: "SELECT rowid, labels FROM album_search ORDER BY rowid").map { "\($0[0] as Int64) \($0[1] as String)" }
            #expect(indexed == ["\(imported) Death Waltz Recording Company Mondo", "\(synced) Chemikal Underground Jinx (In Dub)"])
            #expect(try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH 'labels:mondo'") == [imported])
            #expect(try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH 'labels:3'") == [])
            #expect(try Int.fetchOne(db, sql: "SELECT value FROM listing_generation")! > generation)
        }
    }

    /// Migration 0024 makes the copy and crate tables again with AUTOINCREMENT: every row, crate
    /// entry and grid count stays, the triggers keep the grid in step, and a deleted copy's or
    /// crate's id is not given to the next one.
    @Test func migration0024KeepsEveryRowAndNeverGivesAnIdTwice() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0024")
        let old = try AppDatabase.open(path: path, migrations: before)
        let (user, album) = try await old.writer.write { db in
            let user = try db.insertUser("collector")
            let album = try db.insertAlbum(title: "Kind of Blue", artistId: try db.insertArtist("Miles Davis"))
            for day in 1...3 { _ = try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-01-0\(day)T00:00:00Z") }
            return (user, album)
        }
        let jazz = try await old.createCrate(userId: user, name: "Jazz").id!
        let loud = try await old.createCrate(userId: user, name: "Loud").id!
        let copyIds = try old.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM collection_item ORDER BY id") }
        _ = try await old.addToCrate(id: jazz, userId: user, copyIds: copyIds)
        func snapshot(_ database: AppDatabase) throws -> [String] {
            try database.read { db in
                try ["SELECT id, user_id, album_id, date_added FROM collection_item ORDER BY id",
                     "SELECT id, name, is_folder FROM crate ORDER BY id",
                     "SELECT crate_id, item_id, position FROM crate_item ORDER BY crate_id, position",
                     "SELECT user_id, album_id, copies FROM collection_album",
                     "SELECT type, name FROM sqlite_schema WHERE tbl_name IN ('collection_item', 'crate') ORDER BY name"].map {
                    try Row.fetchAll(db, sql: $0).map(\.description).joined(separator: ";")
                }
            }
        }
        let kept = try snapshot(old)

        let migrated = try AppDatabase.open(path: path)
        #expect(try snapshot(migrated) == kept)
        #expect(try migrated.read { db in try Int.fetchOne(db, sql: "PRAGMA foreign_keys") } == 1)

        try await migrated.removeCopy(id: copyIds[2], userId: user)
        try await migrated.deleteCrate(id: loud, userId: user)
        let (newCopy, copies) = try await migrated.writer.write { db in
            let id = try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-02-01T00:00:00Z")
            return (id, try Int.fetchOne(db, sql: "SELECT copies FROM collection_album WHERE album_id = ?", arguments: [album]))
        }
        #expect(newCopy > copyIds[2])
        #expect(copies == 3, "the grid's count follows through the triggers made again")
        #expect(try await migrated.createCrate(userId: user, name: "Quiet").id! > loud)
    }

    /// Migration 0026 makes the albums synced with tracks due again, without their ETag, so that the
    /// next pass fetches them whole and their tracks gain their artists; the others stay as they were.
    @Test func migration0026FetchesTheSyncedTracklistsAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0026"))
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let syncedAt = Timestamp.string(from: now.addingTimeInterval(-3600))
        let (withTracks, withoutTracks) = try old.writer.write { db in
            let artist = try db.insertArtist("Trash80")
            let withTracks = try db.insertAlbum(title: "Darwinia Soundtrack", artistId: artist)
            let withoutTracks = try db.insertAlbum(title: "Icarus", artistId: artist)
            for (album, release) in [(withTracks, 3329867), (withoutTracks, 4)] {
                try markSynced(db, album: album, release: release, at: syncedAt)
            }
            try db.execute(sql: """
                INSERT INTO track (album_id, position, sort_order, title, kind) VALUES (?, '1', 0, 'Visitors From Dreams', 'track')
                """, arguments: [withTracks])
            return (withTracks, withoutTracks)
        }

        let migrated = try AppDatabase.open(path: path)
        let due = try migrated.albumsDueForSync(now: now, staleBefore: now.addingTimeInterval(-30 * 86_400))
        #expect(due.map(\.albumId) == [withTracks])
        #expect(due.first?.etag == nil, "fetched whole: a 304 would leave the tracks without their artists")
        let untouched = try migrated.read { db in
            try Row.fetchOne(db, sql: "SELECT etag, last_synced_at FROM album_sync WHERE album_id = ?", arguments: [withoutTracks])
        }
        #expect(untouched?["etag"] == "\"v1\"" && untouched?["last_synced_at"] == syncedAt)
        #expect(try migrated.tracks(ofAlbum: withTracks).map(\.artistCredit) == [nil])
    }

    /// Migration 0027 makes due again, without their ETag, the albums with tracks credited to artists
    /// of their own, so that those tracks gain their artist rows; the others stay as they were.
    @Test func migration0027FetchesTheTracksWithArtistsOfTheirOwnAgain() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0027"))
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let syncedAt = Timestamp.string(from: now.addingTimeInterval(-3600))
        let (compilation, album) = try old.writer.write { db in
            let various = try db.insertArtist("Various")
            let artist = try db.insertArtist("Trash80")
            let compilation = try db.insertAlbum(title: "Chip Compilation", artistId: various)
            let album = try db.insertAlbum(title: "Icarus", artistId: artist)
            for (id, release, credit) in [(compilation, 10, "Trash80" as String?), (album, 11, nil)] {
                try markSynced(db, album: id, release: release, at: syncedAt)
                try db.execute(sql: """
                    INSERT INTO track (album_id, position, sort_order, title, kind, artist_credit) VALUES (?, '1', 0, 'One', 'track', ?)
                    """, arguments: [id, credit])
            }
            return (compilation, album)
        }

        // Up to 0027 only: 0030 fetches every synced tracklist again for its credits.
        let migrated = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0028"))
        let due = try migrated.albumsDueForSync(now: now, staleBefore: now.addingTimeInterval(-30 * 86_400))
        #expect(due.map(\.albumId) == [compilation])
        #expect(due.first?.etag == nil)
        let untouched = try migrated.read { db in
            try Row.fetchOne(db, sql: "SELECT etag, last_synced_at FROM album_sync WHERE album_id = ?", arguments: [album])
        }
        #expect(untouched?["etag"] == "\"v1\"" && untouched?["last_synced_at"] == syncedAt)
    }

    /// Migration 0030 makes the albums synced with tracks due again, without their ETag, so that the
    /// next pass brings their credits. One whose last attempt failed loses its ETag too (its retry
    /// would otherwise be answered 304) and keeps its retry time; an album that only a collection
    /// listing wrote stays as it was.
    @Test func migration0030FetchesTheSyncedReleasesAgainForTheirCredits() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0030"))
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let syncedAt = Timestamp.string(from: now.addingTimeInterval(-3600))
        let retryAt = Timestamp.string(from: now.addingTimeInterval(600))
        let (released, failed, listed) = try old.writer.write { db in
            let artist = try db.insertArtist("Trash80")
            let released = try db.insertAlbum(title: "Icarus", artistId: artist)
            let failed = try db.insertAlbum(title: "Sunlight", artistId: artist)
            let listed = try db.insertAlbum(title: "Darwinia Soundtrack", artistId: artist)
            for (album, release) in [(released, 12), (failed, 14), (listed, 13)] {
                try markSynced(db, album: album, release: release, at: syncedAt)
            }
            try db.execute(sql: "UPDATE album_sync SET status = 'failed', attempts = 1, last_error = 'HTTP 502', next_attempt_at = ? WHERE album_id = ?",
                           arguments: [retryAt, failed])
            for album in [released, failed] {
                try db.execute(sql: "INSERT INTO track (album_id, position, sort_order, title, kind) VALUES (?, 'A1', 0, 'One', 'track')",
                               arguments: [album])
            }
            return (released, failed, listed)
        }

        let migrated = try AppDatabase.open(path: path)
        let due = try migrated.albumsDueForSync(now: now, staleBefore: now.addingTimeInterval(-30 * 86_400))
        #expect(due.map(\.albumId) == [released])
        #expect(due.first?.etag == nil, "fetched whole: a 304 would bring no credits")
        let state = { (album: Int64) in
            try migrated.read { db in
                try Row.fetchOne(db, sql: "SELECT status, etag, last_synced_at, next_attempt_at FROM album_sync WHERE album_id = ?", arguments: [album])
            }
        }
        let failedState = try state(failed)
        #expect(failedState?["status"] == "failed" && failedState?["etag"] == nil as String?)
        #expect(failedState?["next_attempt_at"] == retryAt && failedState?["last_synced_at"] == syncedAt)
        // Its retry, once due, asks for the whole release.
        let later = now.addingTimeInterval(3600)
        #expect(try migrated.albumsDueForSync(now: later, staleBefore: later.addingTimeInterval(-30 * 86_400))
                    .first { $0.albumId == failed }.map { $0.etag == nil } == true)
        let untouched = try state(listed)
        #expect(untouched?["etag"] == "\"v1\"" && untouched?["last_synced_at"] == syncedAt)
    }

    /// Migration 0032 takes a synced album without a single image for one whose images Discogs may
    /// have withheld (synced without a token): a pass with a token fetches it again, whole; a pass
    /// without one leaves it be, as it does an album with images.
    @Test func migration0032MarksTheSyncedAlbumsWithoutImages() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0032"))
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let syncedAt = Timestamp.string(from: now.addingTimeInterval(-3600))
        let (bare, pictured) = try old.writer.write { db in
            let artist = try db.insertArtist("Trash80")
            let bare = try db.insertAlbum(title: "Icarus", artistId: artist)
            let pictured = try db.insertAlbum(title: "Sunlight", artistId: artist)
            for (album, release) in [(bare, 12), (pictured, 14)] {
                try markSynced(db, album: album, release: release, at: syncedAt)
            }
            try db.execute(sql: "INSERT INTO album_image (album_id, position, kind, uri, uri150) VALUES (?, 0, 'primary', 'https://i.discogs.com/a.jpg', 'https://i.discogs.com/a-150.jpg')",
                           arguments: [pictured])
            return (bare, pictured)
        }

        let migrated = try AppDatabase.open(path: path)
        #expect(try migrated.syncState(ofAlbum: bare)?.imagesWithheld == true)
        #expect(try migrated.syncState(ofAlbum: pictured)?.imagesWithheld == false)
        let staleBefore = now.addingTimeInterval(-30 * 86_400)
        #expect(try migrated.albumsDueForSync(now: now, staleBefore: staleBefore).isEmpty)
        let withToken = try migrated.albumsDueForSync(now: now, staleBefore: staleBefore, imagesWithheldAreDue: true)
        #expect(withToken.map(\.albumId) == [bare] && withToken.first?.etag == nil)
        #expect(try migrated.syncStateCounts(now: now, staleBefore: staleBefore).imagesWithheld == 1)
    }

    /// Migration 0036 makes a stored length of 0 (Discogs' `0:00`) unknown, as the player took it.
    @Test func migration0036MakesZeroLengthsUnknown() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0036"))
        let album = try old.writer.write { db in
            let album = try db.insertAlbum(title: "Sound System Champions", artistId: try db.insertArtist("Mungo's Hi-Fi"))
            try db.insertTrack(albumId: album, position: "A1", side: "A", sortOrder: 0, title: "Intro", durationMs: 0)
            try db.insertTrack(albumId: album, position: "A2", side: "A", sortOrder: 1, title: "Champion", durationMs: 215_000)
            try db.insertTrack(albumId: album, position: "B1", side: "B", sortOrder: 2, title: "Outro", durationMs: nil)
            return album
        }

        let migrated = try AppDatabase.open(path: path)
        let lengths = try migrated.reader.read { db in
            try Int?.fetchAll(db, sql: "SELECT duration_ms FROM track WHERE album_id = ? ORDER BY sort_order", arguments: [album])
        }
        #expect(lengths == [nil, 215_000, nil])
    }

    /// Migration 0038 makes a year of 0 or less (an import's `-001`) unknown, and the grid's year
    /// keys follow, so that such an album sorts with the unknown years, last.
    @Test func migration0038MakesYearsBeforeOneUnknown() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0038"))
        let (negative, known) = try old.writer.write { db in
            let artist = try db.insertArtist("Anon")
            let user = try db.insertUser("collector")
            let negative = try db.insertAlbum(title: "Minus One", artistId: artist)
            try db.execute(sql: "UPDATE album SET year = -1 WHERE id = ?", arguments: [negative])
            let known = try db.insertAlbum(title: "Nineteen", artistId: artist, year: 1999)
            for album in [negative, known] { _ = try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-01-01T00:00:00Z") }
            return (negative, known)
        }
        #expect(try old.reader.read { db in try Int.fetchOne(db, sql: "SELECT year_key FROM collection_album WHERE album_id = ?", arguments: [negative]) } == -1)

        let migrated = try AppDatabase.open(path: path)
        let rows = try migrated.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT a.id, a.year, c.year_key FROM album a JOIN collection_album c ON c.album_id = a.id ORDER BY c.year_key")
        }
        #expect(rows.map { $0[0] as Int64 } == [known, negative])
        #expect(rows.map { $0[1] as Int? } == [1999, nil])
        #expect(rows.map { $0[2] as Int } == [1999, 99999])
    }

    /// Migration 0028 sorts numbers by value and, in the artist sort, one artist's albums by year,
    /// then title (unknown years last); the grid's rows follow, and so do later changes.
    @Test func migration0028SortsNumbersByValueAndAnArtistsAlbumsByYear() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0028"))
        let (user, wall, piper, bootleg, volumeTen, volumeTwo) = try old.writer.write { db in
            let user = try db.insertUser("collector")
            let floyd = try db.insertArtist("Pink Floyd")
            // Added to the catalogue in an order that is neither the years' nor the titles'.
            let wall = try db.insertAlbum(title: "The Wall", artistId: floyd, year: 1979)
            let bootleg = try db.insertAlbum(title: "Bootleg", artistId: floyd)
            let piper = try db.insertAlbum(title: "The Piper At The Gates Of Dawn", artistId: floyd, year: 1967)
            let various = try db.insertArtist("2 Many DJs")
            let volumeTen = try db.insertAlbum(title: "Vol. 10", artistId: various, year: 1990)
            let volumeTwo = try db.insertAlbum(title: "Vol. 2", artistId: various, year: 1990)
            for album in [wall, bootleg, piper, volumeTen, volumeTwo] {
                _ = try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-01-01T10:00:00Z")
            }
            // The keys as crated wrote them before 0028.
            try db.execute(sql: "UPDATE album SET sort_title = lower(title), artist_sort_name = '2 many djs' WHERE id IN (?, ?)",
                           arguments: [volumeTen, volumeTwo])
            try db.execute(sql: "UPDATE artist SET sort_name = '2 many djs' WHERE id = ?", arguments: [various])
            try db.execute(sql: "UPDATE collection_album SET artist_key = (SELECT artist_sort_name FROM album WHERE id = album_id)")
            return (user, wall, piper, bootleg, volumeTen, volumeTwo)
        }

        let migrated = try AppDatabase.open(path: path)
        func grid(_ key: String) throws -> [Int64] {
            try migrated.reader.read { db in
                try Int64.fetchAll(db, sql: "SELECT album_id FROM collection_album WHERE user_id = ? ORDER BY \(key), album_id", arguments: [user])
            }
        }
        #expect(try grid("artist_key") == [volumeTwo, volumeTen, piper, wall, bootleg])
        #expect(try grid("title_key") == [bootleg, piper, volumeTwo, volumeTen, wall])
        #expect(try migrated.reader.read { db in try String.fetchAll(db, sql: "SELECT sort_name FROM artist ORDER BY id") } == ["pink floyd", "12 many djs"])
        func keysMatchGridKey() throws -> Bool {
            try migrated.reader.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT ca.artist_key, a.artist_sort_name, a.year, a.sort_title FROM collection_album ca JOIN album a ON a.id = ca.album_id
                    """).allSatisfy { row in
                    row[0] == GridKey.artist(creditSortKey: row[1], year: row[2], titleSortKey: row[3])
                }
            }
        }
        #expect(try keysMatchGridKey())

        // A year sync corrects, and a copy added afterwards, are ordered the same way.
        try migrated.writer.write { db in
            try db.execute(sql: "UPDATE album SET year = 1966 WHERE id = ?", arguments: [wall])
            _ = try db.insertCopy(userId: user, albumId: bootleg, dateAdded: "2024-02-01T10:00:00Z")
        }
        #expect(try grid("artist_key") == [volumeTwo, volumeTen, wall, piper, bootleg])
        #expect(try keysMatchGridKey())
    }

    /// With automatic checkpoints off, a long WAL stays until `checkpointWAL` copies it into the
    /// database file, on a connection of its own.
    @Test func theWALIsCheckpointedOnlyWhenAsked() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        try database.stopAutomaticCheckpoints()
        for batch in 0..<4 {
            try await database.write { db in
                for index in 0..<500 {
                    try db.execute(sql: "INSERT INTO user (name, created_at) VALUES (?, '2024-01-01T00:00:00Z')",
                                   arguments: ["user \(batch)-\(index) " + String(repeating: "x", count: 3000)])
                }
            }
        }
        // More than SQLite's automatic threshold of 1,000 pages, none of them checkpointed.
        let before = try #require(try await database.checkpointWAL())
        #expect(before.walFrames > 1000)
        #expect(before.checkpointed == before.walFrames)
        #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") } == 2000)
        #expect(try walBytes(directory.path("crated.sqlite")) > 4 << 20, "below the limit, the file stays for the writer to reuse")
    }

    /// A WAL past the limit is emptied and its file cut to nothing, so that writes without a pause
    /// (a sync against a fast host) do not grow it without end; a reader still on it makes it wait.
    @Test func aWALPastTheLimitIsTruncated() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let database = try directory.database()
        try database.stopAutomaticCheckpoints()
        func fill(_ round: Int) async throws {
            try await database.write { db in
                for index in 0..<1_000 {
                    try db.execute(sql: "INSERT INTO user (name, created_at) VALUES (?, '2024-01-01T00:00:00Z')",
                                   arguments: ["user \(round)-\(index) " + String(repeating: "x", count: 3000)])
                }
            }
        }
        try await fill(0)

        // A reader whose transaction began before the next write holds the WAL.
        var readerConfiguration = Configuration()
        readerConfiguration.allowsUnsafeTransactions = true
        let reader = try DatabaseQueue(path: path, configuration: readerConfiguration)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN DEFERRED")
            _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user")
        }
        try await fill(1)
        _ = try await database.checkpointWAL(truncatingPast: 1 << 20)
        #expect(try walBytes(path) > 1 << 20, "not truncated under a reader")
        try reader.inDatabase { db in try db.execute(sql: "COMMIT") }

        let result = try #require(try await database.checkpointWAL(truncatingPast: 1 << 20))
        #expect(result.checkpointed == result.walFrames)
        #expect(try walBytes(path) == 0)
        #expect(try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") } == 2000)
        try reader.close()
    }

    /// Gives the album a Discogs release and the sync state of one synced at `syncedAt` with the
    /// ETag `"v1"`, as the migrations that fetch synced albums again find them.
    private func markSynced(_ db: Database, album: Int64, release: Int, at syncedAt: String) throws {
        try db.execute(sql: "UPDATE album SET discogs_release_id = ? WHERE id = ?", arguments: [release, album])
        try db.execute(sql: """
            INSERT INTO album_sync (album_id, status, etag, last_synced_at, last_attempt_at) VALUES (?, 'synced', '"v1"', ?, ?)
            """, arguments: [album, syncedAt, syncedAt])
    }

    private func walBytes(_ databasePath: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: databasePath + "-wal")
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }
}
