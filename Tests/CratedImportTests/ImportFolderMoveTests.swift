@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// A copy moved to another folder on Discogs moves crates when a later export is imported: it joins
/// its folder's crate and leaves the crates of the user's other folders, and the user's own crates
/// keep it (migration 0014, `crate.is_folder`).
@Suite struct ImportFolderMoveTests {
    let sample = Paths.ownFixture("sample-collection.csv")

    /// The sample with A Love Supreme moved from Jazz to Rock, Moanin' from Jazz to no folder, and the
    /// second Kind Of Blue from no folder to Jazz; nothing else about them changed.
    func laterExport(in directory: TemporaryDirectory) throws -> String {
        var text = try String(contentsOfFile: sample, encoding: .utf8)
        for (old, new) in [(",3329867,Jazz,", ",3329867,Rock,"), (",8138518,Jazz,", ",8138518,Uncategorized,"),
                           (",1,Uncategorized,2021-06-12", ",1,Jazz,2021-06-12")] {
            #expect(text.contains(old))
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try directory.write("later.csv", text)
    }

    /// The names of the crates holding the copy of `release` added at `dateAdded` (any, when nil), in order.
    func crates(of release: Int64, addedAt dateAdded: String? = nil, in database: AppDatabase) throws -> [String] {
        try database.reader.read { db in
            try String.fetchAll(db, sql: """
                SELECT crate.name FROM crate_item JOIN crate ON crate.id = crate_item.crate_id
                JOIN collection_item ci ON ci.id = crate_item.item_id JOIN album ON album.id = ci.album_id
                WHERE album.discogs_release_id = ? AND (?2 IS NULL OR ci.date_added = ?2) ORDER BY crate.name
                """, arguments: [release, dateAdded])
        }
    }

    /// The albums of a crate, by release id, in crate order.
    func releases(inCrate name: String, of database: AppDatabase) throws -> [Int64] {
        try database.reader.read { db in
            try Int64.fetchAll(db, sql: """
                SELECT album.discogs_release_id FROM crate_item JOIN crate ON crate.id = crate_item.crate_id
                JOIN collection_item ci ON ci.id = crate_item.item_id JOIN album ON album.id = ci.album_id
                WHERE crate.name = ? ORDER BY crate_item.position
                """, arguments: [name])
        }
    }

    func userId(of database: AppDatabase) throws -> Int64 {
        try database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'collector'")! }
    }

    @Test func aCopyMovedToAnotherFolderMovesCrateAndTheUsersOwnCratesKeepIt() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: sample)
        #expect(try releases(inCrate: "Jazz", of: database) == [1, 3329867, 8138518])
        let user = try userId(of: database)
        let loveSupreme = try await database.reader.read { db in
            try Int64.fetchOne(db, sql: "SELECT ci.id FROM collection_item ci JOIN album ON album.id = ci.album_id WHERE discogs_release_id = 3329867")!
        }
        let favourites = try await database.createCrate(userId: user, name: "Favourites")
        _ = try await database.addToCrate(id: favourites.id!, userId: user, copyIds: [loveSupreme])
        let later = try laterExport(in: directory)

        let dryRun = try importer.importFile(at: later, options: ImportOptions(dryRun: true))
        #expect(dryRun.copiesUpdated == 3 && dryRun.copiesUnchanged == 17)
        #expect(try crates(of: 3329867, in: database) == ["Favourites", "Jazz"])

        let summary = try importer.importFile(at: later)
        #expect(summary.copiesAdded == 0 && summary.copiesUpdated == 3 && summary.copiesUnchanged == 17 && summary.cratesAdded == 0)
        #expect(try crates(of: 3329867, in: database) == ["Favourites", "Rock"])
        #expect(try crates(of: 8138518, in: database) == [])
        #expect(try crates(of: 1, addedAt: "2021-06-12T18:40:11Z", in: database) == ["Jazz"])
        // Joined at the end; the others keep their order.
        #expect(try releases(inCrate: "Jazz", of: database) == [1, 1])
        #expect(try releases(inCrate: "Rock", of: database).last == 3329867)

        // And the same file again changes nothing.
        let again = try importer.importFile(at: later)
        #expect(again.copiesUpdated == 0 && again.copiesUnchanged == 20)
        #expect(try crates(of: 3329867, in: database) == ["Favourites", "Rock"])
    }

    @Test func aCopyWhoseFieldsAndFolderChangedCountsOnce() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: sample)
        let text = try String(contentsOfFile: laterExport(in: directory), encoding: .utf8)
            .replacingOccurrences(of: "\"LP, Album, Gat\",5,1965,3329867,Rock,", with: "\"LP, Album, Gat\",4,1965,3329867,Rock,")
        let summary = try importer.importFile(at: directory.write("rerated.csv", text))
        #expect(summary.copiesUpdated == 3 && summary.copiesUnchanged == 17)
        #expect(try crates(of: 3329867, in: database) == ["Rock"])
    }

    @Test func aRenamedFolderCrateIsTheUsersOwnAndKeepsItsCopies() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: sample)
        let user = try userId(of: database)
        let jazz = try await database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM crate WHERE name = 'Jazz'")! }
        _ = try await database.renameCrate(id: jazz, userId: user, name: "Jazz LPs")

        let summary = try importer.importFile(at: laterExport(in: directory))
        // The file's Jazz folder is a crate again, which the renamed one no longer stands for.
        #expect(summary.cratesAdded == 1)
        #expect(try releases(inCrate: "Jazz LPs", of: database) == [1, 3329867, 8138518])
        #expect(try releases(inCrate: "Jazz", of: database) == [1, 1])
        #expect(try crates(of: 3329867, in: database) == ["Jazz LPs", "Rock"])
    }

    @Test func aCrateOfTheSameNameMadeBeforeTheImportBecomesTheFoldersCrate() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("one.csv", exportHeader + "\n" +
            exportRow(title: "First", releaseId: "1", folder: "Uncategorized") + "\n"))
        let user = try userId(of: database)
        let ownJazz = try await database.createCrate(userId: user, name: "Jazz")
        let older = try await database.createCrate(userId: user, name: "Older")
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("two.csv", exportHeader + "\n" +
            exportRow(title: "First", releaseId: "1", folder: "Uncategorized") + "\n" +
            exportRow(title: "Second", releaseId: "2", folder: "Jazz", dateAdded: "2021-01-01 00:00:00") + "\n"))
        let second = try await database.reader.read { db in
            try Int64.fetchOne(db, sql: "SELECT ci.id FROM collection_item ci JOIN album ON album.id = ci.album_id WHERE discogs_release_id = 2")!
        }
        _ = try await database.addToCrate(id: older.id!, userId: user, copyIds: [second])
        #expect(try crates(of: 2, in: database) == ["Jazz", "Older"])
        let isFolder = try await database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT is_folder FROM crate WHERE id = ?", arguments: [ownJazz.id!])
        }
        #expect(isFolder == 1)
        // The export names the folder's crate, not the user's crate that is older than it.
        let exported = try String(contentsOfFile: ExportRoundTripTests.exportCSV(database, in: directory), encoding: .utf8)
        #expect(exported.contains(",2,Jazz,2021-01-01 00:00:00,"))

        // Moved to no folder, it leaves Jazz and stays in the user's own crate.
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("three.csv", exportHeader + "\n" +
            exportRow(title: "Second", releaseId: "2", folder: "Uncategorized", dateAdded: "2021-01-01 00:00:00") + "\n"))
        #expect(try crates(of: 2, in: database) == ["Older"])
    }

    /// A folder is the user's crate of the same name as the API compares names: `soul` is `Soul`, and
    /// `Café` written decomposed (as a Mac may write it) is `Café`. A new folder's crate is named as
    /// the API would store it: composed, with a control character a space.
    @Test func aFolderIsTheCrateTheAPICallsByTheSameName() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("one.csv", exportHeader + "\n" +
            exportRow(title: "First", releaseId: "1", folder: "Uncategorized") + "\n"))
        let user = try userId(of: database)
        let soul = try await database.createCrate(userId: user, name: "Soul")
        let cafe = try await database.createCrate(userId: user, name: "Caf\u{E9}")
        let summary = try DiscogsImporter(database: database).importFile(at: directory.write("two.csv", exportHeader + "\n" +
            exportRow(title: "Second", releaseId: "2", folder: "soul", dateAdded: "2021-01-01 00:00:00") + "\n" +
            exportRow(title: "Third", releaseId: "3", folder: "Cafe\u{301}", dateAdded: "2021-01-02 00:00:00") + "\n" +
            exportRow(title: "Fourth", releaseId: "4", folder: "Tab\tbed", dateAdded: "2021-01-03 00:00:00") + "\n" +
            exportRow(title: "Fifth", releaseId: "5", folder: "SOUL", dateAdded: "2021-01-04 00:00:00") + "\n"))
        #expect(summary.cratesAdded == 1)
        let crates = try await database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name FROM crate WHERE user_id = ? ORDER BY id", arguments: [user])
                .map { (id: $0["id"] as Int64, name: $0["name"] as String) }
        }
        // Bytes compared: Swift's `==` would call composed and decomposed `Café` equal.
        #expect(crates.map { Array($0.name.utf8) } == ["Soul", "Caf\u{E9}", "Tab bed"].map { Array($0.utf8) })
        #expect(crates[0].id == soul.id && crates[1].id == cafe.id)
        #expect(try releases(inCrate: "Soul", of: database) == [2, 5])
        // Two spellings, one crate, one order: each new copy has a place of its own.
        let positions = try await database.reader.read { db in
            try Int.fetchAll(db, sql: "SELECT position FROM crate_item WHERE crate_id = ? ORDER BY position", arguments: [soul.id!])
        }
        #expect(positions == [0, 1])
        #expect(try releases(inCrate: "Caf\u{E9}", of: database) == [3])
        #expect(try releases(inCrate: "Tab bed", of: database) == [4])
        // The API can rename the crate the import made: its name is one the API takes.
        _ = try await database.renameCrate(id: crates[2].id, userId: user, name: "Tabbed")
    }

    @Test func aFileWithoutFoldersMovesNothing() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: directory.write("folders.csv", exportHeader + "\n" +
            exportRow(title: "First", releaseId: "1", folder: "Jazz") + "\n"))
        // The same copy from an export without its CollectionFolder column: it says nothing of folders.
        let summary = try importer.importFile(at: directory.write("nofolders.csv", """
            Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,Date Added
            CAT 1,Artist,First,Label,"LP, Album",,1999,1,2020-01-01 10:00:00

            """))
        #expect(summary.copiesUpdated == 0 && summary.copiesUnchanged == 1)
        #expect(try crates(of: 1, in: database) == ["Jazz"])
    }
}
