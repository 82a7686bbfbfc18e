@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Each committed import leaves a row in `import_run` (the daemon's `/metrics` sums them); an import
/// that is rolled back, a dry run or a refused file, leaves none.
@Suite struct ImportRunTests {
    struct Run: Equatable {
        var user: String?
        var fileName: String
        var rowsRead: Int
    }

    static func runs(_ database: AppDatabase) throws -> [Run] {
        try database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT user.name AS user, file_name, rows_read FROM import_run LEFT JOIN user ON user.id = import_run.user_id ORDER BY import_run.id
                """).map { Run(user: $0["user"], fileName: $0["file_name"], rowsRead: $0["rows_read"]) }
        }
    }

    @Test func aCommittedImportIsRecordedWithItsRows() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        #expect(try database.importedRows() == 0)
        _ = try importer.importFile(at: Paths.ownFixture("sample-collection.csv"), options: ImportOptions(userName: "collector"))
        #expect(try Self.runs(database) == [Run(user: "collector", fileName: "sample-collection.csv", rowsRead: 20)])

        // Importing the same file again reads its rows again, even if nothing changes.
        _ = try importer.importFile(at: Paths.ownFixture("sample-collection.csv"), options: ImportOptions(userName: "collector"))
        #expect(try database.importedRows() == 40)

        // With --skip-invalid the skipped rows were read too.
        let mixed = try directory.write("mixed.csv", [exportHeader, exportRow(releaseId: "9001"), exportRow(releaseId: "x")].joined(separator: "\n"))
        let summary = try importer.importFile(at: mixed, options: ImportOptions(userName: "someone", skipInvalid: true))
        #expect(summary.rowsRead == 2 && summary.skipped.count == 1)
        #expect(try Self.runs(database).last == Run(user: "someone", fileName: "mixed.csv", rowsRead: 2))
        #expect(try database.importedRows() == 42)
    }

    @Test func importsThatRollBackLeaveNoRow() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let dry = try importer.importFile(at: Paths.ownFixture("sample-collection.csv"), options: ImportOptions(dryRun: true))
        #expect(dry.rowsRead == 20)
        let invalid = try directory.write("invalid.csv", [exportHeader, exportRow(releaseId: "1"), exportRow(releaseId: "r123")].joined(separator: "\n"))
        #expect(throws: ImportError.self) { try importer.importFile(at: invalid) }
        let headerOnly = try directory.write("empty.csv", exportHeader + "\n")
        #expect(throws: ImportError.headerOnly) { try importer.importFile(at: headerOnly) }
        #expect(try Self.runs(database).isEmpty)
        #expect(try database.importedRows() == 0)
    }
}
