import Foundation
import GRDB

/// Imports that committed (Migrations/0013_import_runs.sql): what the daemon knows of imports made by
/// `crated import`, another process.
extension AppDatabase {
    /// Notes an import inside its own transaction, so that only a committed import is counted.
    public static func recordImportRun(_ db: Database, userId: Int64, path: String, rowsRead: Int) throws {
        try db.execute(
            sql: "INSERT INTO import_run (user_id, file_name, rows_read, imported_at) VALUES (?, ?, ?, ?)",
            arguments: [userId, URL(fileURLWithPath: path).lastPathComponent, rowsRead, Timestamp.now()])
    }

    /// The rows every committed import read, all users together.
    public func importedRows() throws -> Int64 {
        try read { db in try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(rows_read), 0) FROM import_run") ?? 0 }
    }
}
