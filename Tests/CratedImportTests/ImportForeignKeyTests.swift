@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// A bulk import turns foreign key enforcement off for its transaction (see `DiscogsImporter.importFile`).
/// What it writes still satisfies every foreign key, the connection gets enforcement back however the
/// import ends, and the grid deferral's guard still fails a commit that would leave it open. The
/// writer's batch INSERTs stop at a failing row without undoing the batch themselves: the rollback does.
@Suite struct ImportForeignKeyTests {
    private func importing(_ path: String, into database: AppDatabase, user: String? = nil, dryRun: Bool = false) throws -> ImportSummary {
        var options = ImportOptions(userName: user, dryRun: dryRun)
        options.writeMode = .bulk
        return try DiscogsImporter(database: database).importFile(at: path, options: options)
    }

    private func foreignKeysOn(_ database: AppDatabase) throws -> Bool {
        try database.writer.writeWithoutTransaction { db in try Bool.fetchOne(db, sql: "PRAGMA foreign_keys")! }
    }

    private func violations(_ database: AppDatabase) throws -> [String] {
        try database.reader.read { db in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").map(\.description) }
    }

    @Test func bulkImportsSatisfyEveryForeignKeyAndGiveEnforcementBack() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let first = try directory.write("first.csv", syntheticExport(rows: 1500))
        // Albums already in the catalogue and new ones, for a second user; crates of both.
        let later = try directory.write("later.csv", syntheticExport(rows: 300, ratingShift: 1)
            + String(syntheticExport(rows: 400, firstRelease: 5000).dropFirst(exportHeader.count + 1)))
        let summaries = [try importing(first, into: database), try importing(later, into: database),
                         try importing(later, into: database, user: "second")]
        #expect(summaries.map(\.copiesAdded) == [1500, 400, 700])
        #expect(summaries[2].albumsAdded == 0 && summaries[2].cratesAdded > 0)
        #expect(try foreignKeysOn(database))
        #expect(try violations(database) == [])

        // A dry run and a refused file end with enforcement back too.
        _ = try importing(first, into: database, user: "collector", dryRun: true)
        #expect(try foreignKeysOn(database))
        let broken = try directory.write("broken.csv", syntheticExport(rows: 1000) + exportRow(releaseId: "not a number") + "\n")
        do {
            _ = try importing(broken, into: database, user: "collector")
            Issue.record("a file with an invalid row was imported")
        } catch ImportError.invalidRows(_, let total) {
            #expect(total == 1)
        }
        #expect(try foreignKeysOn(database))
    }

    /// Committing with the deferral open fails with SQLite's foreign key error when enforcement is on;
    /// the importer's own check gives the same error when it is off.
    @Test func anOpenGridDeferralFailsTheCommitEitherWay() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let enforced = try database.writer.writeWithoutTransaction { db -> ResultCode? in
            do {
                try db.inTransaction {
                    try db.execute(sql: "INSERT INTO grid_deferral (id) VALUES (1)")
                    return .commit
                }
                return nil
            } catch let error as DatabaseError {
                return error.extendedResultCode
            }
        }
        #expect(enforced == .SQLITE_CONSTRAINT_FOREIGNKEY)
        let checked = try database.writer.writeWithoutTransaction { db -> ResultCode? in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            var code: ResultCode?
            try db.inTransaction {
                try db.execute(sql: "INSERT INTO grid_deferral (id) VALUES (1)")
                do {
                    try DiscogsImporter.checkGridDeferralEnded(db)
                } catch let error as DatabaseError {
                    code = error.extendedResultCode
                }
                try db.execute(sql: "DELETE FROM grid_deferral")
                try DiscogsImporter.checkGridDeferralEnded(db)
                return .rollback
            }
            return code
        }
        #expect(checked == .SQLITE_CONSTRAINT_FOREIGNKEY)
        #expect(try TableCounts(database) == .empty)
    }

    /// The writer's batch INSERTs are OR FAIL (see `MultiRowInsert`): a batch that fails part-way keeps
    /// its earlier rows until the import's transaction is rolled back, which leaves nothing of it, on
    /// either write path.
    @Test(arguments: [ImportWriteMode.incremental, .bulk])
    func anInsertThatFailsPartWayLeavesNothing(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: Paths.ownFixture("sample-collection.csv"))
        // A failure SQLite raises inside the album batch, after the batch's first rows went in.
        try database.writer.write { db in
            try db.execute(sql: """
                CREATE TRIGGER test_refuse_album BEFORE INSERT ON album WHEN NEW.discogs_release_id = 900050
                BEGIN SELECT RAISE(FAIL, 'refused by the test'); END
                """)
        }
        let before = try DatabaseContents(database)
        let file = try directory.write("large.csv", syntheticExport(rows: 1000, firstRelease: 900_000))
        var options = ImportOptions(userName: "collector")
        options.writeMode = mode
        #expect(throws: ImportError.database("refused by the test")) {
            try DiscogsImporter(database: database).importFile(at: file, options: options)
        }
        #expect(try DatabaseContents(database) == before)
        #expect(try foreignKeysOn(database))
    }
}
