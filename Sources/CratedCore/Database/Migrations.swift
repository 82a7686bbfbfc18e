import Crypto
import Foundation
import GRDB

/// One numbered SQL file from `Migrations/`.
public struct Migration: Sendable, Equatable {
    public var fileName: String
    public var sql: String

    public init(fileName: String, sql: String) {
        self.fileName = fileName
        self.sql = sql
    }

    /// The number before the first underscore: `0001_core.sql` is version 1.
    public var version: Int? {
        fileName.split(separator: "_", maxSplits: 1).first.flatMap { Int($0) }
    }

    /// A migration that makes a table again (SQLite alters little in place) begins with this line:
    /// dropping the old table with foreign keys on would delete the rows that refer to it in
    /// cascade. It runs with them off, and commits only if `PRAGMA foreign_key_check` finds nothing.
    static let foreignKeysOffMarker = "-- crated: foreign keys off"

    var turnsForeignKeysOff: Bool { sql.hasPrefix(Self.foreignKeysOffMarker) }

    var checksum: String {
        SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The migrations compiled into this binary from the package's `Migrations/` folder.
    public static var embedded: [Migration] {
        EmbeddedResources.files
            .filter { $0.name.hasPrefix("Migrations/") }
            .map { Migration(fileName: String($0.name.dropFirst("Migrations/".count)), sql: $0.text) }
    }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    case badFileName(String)
    case duplicateVersion(Int)
    case changedAfterApplying(fileName: String)
    case unknownAppliedVersion(version: Int, fileName: String)
    case failed(fileName: String, reason: String)
    /// A SQLite database of something else: tables, but none of crated's record of migrations.
    case notCrated(tables: [String])

    public var description: String {
        switch self {
        case .badFileName(let name):
            "migration file '\(name)' must be named NNNN_name.sql"
        case .duplicateVersion(let version):
            "two migration files share the number \(version)"
        case .changedAfterApplying(let name):
            "migration \(name) was changed after it was applied to this database; restore the original file and add a new migration instead"
        case .unknownAppliedVersion(let version, let name):
            "this database has migration \(version) (\(name)) applied, which this crated does not know: it was written by a newer version of crated; run that version, or restore a backup taken before it (the database is unchanged)"
        case .failed(let name, let reason):
            "migration \(name) failed: \(reason)"
        case .notCrated(let tables):
            "this SQLite database is not crated's: it has tables (\(tables.prefix(5).joined(separator: ", "))\(tables.count > 5 ? ", ..." : "")) but no schema_migration; crated adds its tables only to its own database or an empty one"
        }
    }
}

/// Applies numbered SQL migrations once each, in order, and records them with a checksum, so that an
/// applied file that was edited later is refused instead of silently diverging.
struct Migrator {
    let migrations: [Migration]

    init(migrations: [Migration]) throws {
        var seen = Set<Int>()
        for migration in migrations {
            guard let version = migration.version else { throw MigrationError.badFileName(migration.fileName) }
            guard seen.insert(version).inserted else { throw MigrationError.duplicateVersion(version) }
        }
        self.migrations = migrations.sorted { $0.version! < $1.version! }
    }

    /// Returns the file names applied by this call.
    @discardableResult
    func migrate(_ writer: some DatabaseWriter) throws -> [String] {
        try writer.barrierWriteWithoutTransaction { db in
            for function in DatabaseFunction.crated { db.add(function: function) }
            // A mistyped --database naming another program's SQLite file must not gain crated's tables.
            if try !db.tableExists("schema_migration") {
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                guard tables.isEmpty else { throw MigrationError.notCrated(tables: tables) }
            }
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS schema_migration (
                    version     INTEGER PRIMARY KEY,
                    file_name   TEXT NOT NULL,
                    checksum    TEXT NOT NULL,
                    applied_at  TEXT NOT NULL
                )
                """)
            let applied = try Row.fetchAll(db, sql: "SELECT version, file_name, checksum FROM schema_migration")
            let known = Dictionary(uniqueKeysWithValues: migrations.map { ($0.version!, $0) })
            for row in applied {
                let version: Int = row["version"]
                guard let migration = known[version] else {
                    throw MigrationError.unknownAppliedVersion(version: version, fileName: row["file_name"])
                }
                guard migration.checksum == row["checksum"] as String else {
                    throw MigrationError.changedAfterApplying(fileName: migration.fileName)
                }
            }
            let appliedVersions = Set(applied.map { $0["version"] as Int })
            var newlyApplied: [String] = []
            for migration in migrations where !appliedVersions.contains(migration.version!) {
                do {
                    // Before the transaction: inside one, SQLite ignores the pragma.
                    if migration.turnsForeignKeysOff { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                    defer { if migration.turnsForeignKeysOff { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
                    try db.inTransaction {
                        try db.execute(sql: migration.sql)
                        if migration.turnsForeignKeysOff, let broken = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check") {
                            throw DatabaseError(message: "it leaves a row of \(broken[0] as String) whose foreign key names a row of \(broken[2] as String) that does not exist")
                        }
                        try db.execute(
                            sql: "INSERT INTO schema_migration (version, file_name, checksum, applied_at) VALUES (?, ?, ?, ?)",
                            arguments: [migration.version!, migration.fileName, migration.checksum, Timestamp.now()])
                        return .commit
                    }
                } catch let error as DatabaseError {
                    throw MigrationError.failed(fileName: migration.fileName, reason: error.message ?? error.description)
                }
                newlyApplied.append(migration.fileName)
            }
            return newlyApplied
        }
    }
}
