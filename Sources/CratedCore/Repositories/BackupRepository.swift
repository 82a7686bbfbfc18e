import Foundation
import GRDB
import GRDBSQLite

/// What a backup or a restore wrote.
public struct BackupSummary: Sendable, Equatable {
    public var path: String
    public var bytes: Int64
    public var pages: Int
    /// The highest migration applied, by number and file name.
    public var schemaVersion: Int
    public var lastMigration: String
    public var users: Int
    public var copies: Int
    public var albums: Int
    /// Restore only: the migrations applied to the restored copy to bring it up to this crated.
    public var migrationsApplied: [String] = []
    /// Restore only: where the database it replaced is kept (`previousDatabaseSuffix`), if there was one.
    public var previousDatabase: String?
}

public struct BackupProgress: Sendable {
    public var copiedPages: Int
    public var totalPages: Int
}

public enum BackupError: Error, Equatable, CustomStringConvertible {
    case noDatabase(path: String)
    case sameFile(path: String, database: String)
    case isADirectory(path: String)
    case notADatabase(path: String, reason: String)
    case notCrated(path: String, reason: String)
    case newerSchema(path: String, version: Int, fileName: String)
    case changedMigration(path: String, fileName: String)
    case failedIntegrityCheck(path: String, problems: [String])
    case databaseInUse(path: String)
    /// The folder a file would go in is missing: a backup disk not mounted, say. Not created, so
    /// that the file does not land unseen on the disk beneath the mount point.
    case noFolder(path: String)
    /// The disk ran out of space while the file was written: the file it would replace is as it was.
    case diskFull(path: String)
    case sqlite(path: String, reason: String)

    /// Whether the file was refused for what it is or where it goes, rather than failing on the way.
    public var isRefusal: Bool {
        switch self {
        case .diskFull, .sqlite: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .noDatabase(let path):
            "there is no database at \(path)"
        case .sameFile(let path, let database):
            "\(path) is the database \(database) itself; name another file"
        case .isADirectory(let path):
            "\(path) is a directory; name a file"
        case .notADatabase(let path, let reason):
            "\(path) is not a SQLite database: \(reason)"
        case .notCrated(let path, let reason):
            "\(path) is a SQLite database but not a crated one: \(reason)"
        case .newerSchema(let path, let version, let fileName):
            "\(path) was written by a newer crated: it has migration \(version) (\(fileName)), which this crated does not know; restore it with that version or a later one"
        case .changedMigration(let path, let fileName):
            "\(path) has migration \(fileName) applied with other contents than this crated's; it was written by a different build of crated"
        case .failedIntegrityCheck(let path, let problems):
            "\(path) fails SQLite's integrity check: \(problems.prefix(5).joined(separator: "; "))\(problems.count > 5 ? " (and \(problems.count - 5) more)" : "")"
        case .databaseInUse(let path):
            "the database \(path) is open in another process (is crated serve running?); stop it, then restore"
        case .noFolder(let path):
            "the folder \(path) does not exist (is its disk mounted?); create it first"
        case .diskFull(let path):
            "no space left on the disk of \(path); nothing was replaced"
        case .sqlite(let path, let reason):
            "\(path): \(reason)"
        }
    }
}

extension AppDatabase {
    /// Copies the database at `source` to `destination` with SQLite's online backup API, a few
    /// pages at a time, inside one read transaction on the source: the copy is the database as it was
    /// when the backup began, and in WAL mode neither the daemon's readers nor its writers wait for
    /// it (the WAL grows meanwhile: the daemon's checkpoints cannot pass the backup's snapshot). The copy goes to a temporary file beside `destination`, is checked with
    /// `PRAGMA integrity_check`, switched to a rollback journal (a file that stands alone), synced,
    /// and only then renamed over `destination`: a backup that fails or is killed leaves the
    /// previous file as it was.
    ///
    /// The source is opened as it is, not migrated: a backup taken before an upgrade is of the
    /// database before it.
    ///
    /// - Parameter pauseBetweenSteps: spreads the reads of a large database over time, to leave the
    ///   disk to the daemon.
    public static func backup(
        databaseAt source: String, to destination: String,
        pagesPerStep: Int32 = 1024, pauseBetweenSteps: Duration = .zero, busyTimeoutMs: Int = 5000,
        progress: ((BackupProgress) -> Void)? = nil
    ) throws -> BackupSummary {
        guard isRegularFile(source) else { throw BackupError.noDatabase(path: source) }
        if isDirectory(destination) { throw BackupError.isADirectory(path: destination) }
        if AtomicFile.isSameFile(source, destination) || absolute(source) == absolute(destination) {
            throw BackupError.sameFile(path: destination, database: source)
        }
        let sourceQueue = try openExisting(source, busyTimeoutMs: busyTimeoutMs, readonly: false)
        _ = try appliedMigrations(sourceQueue, path: source)
        // A link is followed: the file it names is replaced, and the link kept.
        let file = AtomicFile.resolved(destination)
        try requireFolder(of: file)

        var summary = try writeBeside(file, putInPlace: { try AtomicFile.replace(file, with: $0) }) { copy in
            try sqlite(destination) {
                try copy.writeWithoutTransaction { copyDb in
                    try sourceQueue.read { sourceDb in
                        // Reading once begins the read transaction's snapshot; without it each step
                        // would read in a transaction of its own, and a write between two steps would
                        // start the backup over (under a daemon's steady writes, again and again).
                        _ = try Int.fetchOne(sourceDb, sql: "SELECT COUNT(*) FROM schema_migration")
                        try sourceDb.backup(to: copyDb, pagesPerStep: pagesPerStep) { step in
                            progress?(BackupProgress(copiedPages: step.completedPageCount, totalPages: step.totalPageCount))
                            if !step.isCompleted && pauseBetweenSteps > .zero { Thread.sleep(forTimeInterval: seconds(pauseBetweenSteps)) }
                        }
                    }
                }
            }
            try checkIntegrity(copy, path: destination)
        }
        summary.path = destination
        return summary
    }

    /// Replaces the database at `target` with the backup at `source`, after checking that it is a
    /// crated database this crated knows every migration of and that it passes
    /// `PRAGMA integrity_check`. The backup is copied beside the target, migrated to this crated's
    /// schema and synced there; the target is then taken only if no other process has it open (see
    /// `replaceUnusedDatabase`), and the copy is renamed over it.
    public static func restore(backupAt source: String, into target: String, busyTimeoutMs: Int = 1000,
                               migrations: [Migration] = Migration.embedded) throws -> BackupSummary {
        guard FileManager.default.fileExists(atPath: source) else { throw BackupError.noDatabase(path: source) }
        guard isRegularFile(source) else { throw BackupError.isADirectory(path: source) }
        if isDirectory(target) { throw BackupError.isADirectory(path: target) }
        if AtomicFile.isSameFile(source, target) || absolute(source) == absolute(target) {
            throw BackupError.sameFile(path: source, database: target)
        }
        try checkSQLiteHeader(source)
        let backupQueue = try openExisting(source, busyTimeoutMs: busyTimeoutMs, readonly: true)
        let known = Dictionary(uniqueKeysWithValues: migrations.compactMap { migration in migration.version.map { ($0, migration) } })
        for applied in try appliedMigrations(backupQueue, path: source) {
            guard let migration = known[applied.version] else {
                throw BackupError.newerSchema(path: source, version: applied.version, fileName: applied.fileName)
            }
            guard migration.checksum == applied.checksum else { throw BackupError.changedMigration(path: source, fileName: applied.fileName) }
        }
        try checkIntegrity(backupQueue, path: source)
        // A database reached through a link is restored into the file it names, and the link kept.
        let file = AtomicFile.resolved(target)
        try requireFolder(of: file)

        var migrationsApplied: [String] = []
        var previousKept: String?
        var summary = try writeBeside(file, putInPlace: { previousKept = try replaceUnusedDatabase(file, with: $0, busyTimeoutMs: busyTimeoutMs) }) { copy in
            try sqlite(target) { try backupQueue.backup(to: copy) }
            do {
                migrationsApplied = try Migrator(migrations: migrations).migrate(copy)
            } catch let error as MigrationError {
                throw BackupError.sqlite(path: source, reason: error.description)
            }
        }
        summary.migrationsApplied = migrationsApplied
        summary.path = target
        summary.previousDatabase = previousKept
        return summary
    }

    /// Beside a database a restore replaced: that database, so that restoring the wrong backup can be
    /// undone (`crated restore` over it again, or a rename). A later restore keeps its own beside it
    /// (`.before-restore-2`, ...): the earlier one may be the only copy of its state.
    public static let previousDatabaseSuffix = ".before-restore"

    // MARK: - The steps

    /// Writes a database into a temporary file beside `path` with `body`, makes it stand alone
    /// (rollback journal), syncs it and puts it in place with `putInPlace`, given the temporary
    /// file's path; removes the temporary file when any of it fails. The file holds password and
    /// token hashes: it is written readable by its owner only, and takes the owner and permissions
    /// of the file it replaces, if any.
    private static func writeBeside(_ path: String, putInPlace: (String) throws -> Void,
                                    _ body: (DatabaseQueue) throws -> Void) throws -> BackupSummary {
        AtomicFile.removeAbandonedTemporaryFiles(beside: path)
        let temporaryPath = AtomicFile.temporaryPath(beside: path)
        func removeTemporary() {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: temporaryPath + suffix) }
        }
        removeTemporary()
        do {
            try AtomicFile.createPrivate(temporaryPath)
            let temporary = try sqlite(path) { try DatabaseQueue(path: temporaryPath) }
            try body(temporary)
            var summary = try summarize(temporary, path: path)
            try sqlite(path) {
                // The backup copied the source's header, WAL mode included: a backup file should not
                // need a `-wal` beside it.
                _ = try temporary.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
                try temporary.close()
            }
            try AtomicFile.sync(temporaryPath)
            try AtomicFile.matchOwnerAndMode(of: path, on: temporaryPath)
            let attributes = try FileManager.default.attributesOfItem(atPath: temporaryPath)
            summary.bytes = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            try putInPlace(temporaryPath)
            return summary
        } catch {
            removeTemporary()
            throw error
        }
    }

    /// Renames `temporary` over the database at `target` once no other process has it open. Taking a
    /// WAL database out of WAL mode needs the only connection to it, so `PRAGMA journal_mode =
    /// DELETE` failing busy means another process (`crated serve`) has it open; when it succeeds,
    /// SQLite has checkpointed and removed the target's `-wal` and `-shm`, which must not outlive
    /// the file they belong to (SQLite would replay an old `-wal` into the new file). The exclusive
    /// lock held meanwhile keeps any process from opening the target until the rename is done.
    /// Returns where the database replaced is kept, if there was one.
    private static func replaceUnusedDatabase(_ target: String, with temporary: String, busyTimeoutMs: Int) throws -> String? {
        guard FileManager.default.fileExists(atPath: target) else {
            // A `-wal` left without its database would be replayed into the restored one.
            for suffix in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: target + suffix) {
                try FileManager.default.removeItem(atPath: target + suffix)
            }
            try AtomicFile.replace(target, with: temporary)
            return nil
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(Double(busyTimeoutMs) / 1000)
        // The exclusive transaction outlives the statement that begins it, until the rename is done.
        configuration.allowsUnsafeTransactions = true
        let current: DatabaseQueue
        do {
            current = try DatabaseQueue(path: target, configuration: configuration)
            try current.writeWithoutTransaction { db in
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                guard mode?.lowercased() == "delete" else { throw BackupError.databaseInUse(path: target) }
                try db.execute(sql: "BEGIN EXCLUSIVE")
            }
        } catch let error as DatabaseError where error.isBusy {
            throw BackupError.databaseInUse(path: target)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw BackupError.notADatabase(path: target, reason: "it is there, but is no database; move it away to restore over it")
        } catch let error as DatabaseError {
            throw BackupError.sqlite(path: target, reason: error.message ?? error.description)
        }
        defer {
            try? current.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
            try? current.close()
        }
        for suffix in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: target + suffix) {
            try FileManager.default.removeItem(atPath: target + suffix)
        }
        // In rollback-journal mode and held exclusively, the file is the whole database: a second
        // name for it keeps it once the rename below gives `target` to the backup.
        let previous = (1...).lazy.map { target + previousDatabaseSuffix + ($0 == 1 ? "" : "-\($0)") }
            .first { !FileManager.default.fileExists(atPath: $0) }!
        if link(target, previous) != 0 {
            do {
                try FileManager.default.copyItem(atPath: target, toPath: previous)
            } catch {
                throw BackupError.sqlite(path: target, reason: "cannot keep it as \(previous) before restoring over it: \(error.localizedDescription)")
            }
        }
        try AtomicFile.replace(target, with: temporary)
        return previous
    }

    private static func checkSQLiteHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw BackupError.notADatabase(path: path, reason: "it cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        if head.isEmpty { throw BackupError.notADatabase(path: path, reason: "it is empty") }
        guard head == Data("SQLite format 3\0".utf8) else {
            let text = String(decoding: head.prefix { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
            // Text quoted; a binary file (gzip, zip) by its first bytes, which name its kind.
            let start = text.isEmpty ? "the bytes \(head.prefix(8).map { String(format: "%02x", $0) }.joined(separator: " "))" : "'\(text)'"
            throw BackupError.notADatabase(path: path, reason: "it starts with \(start), not SQLite's header")
        }
    }

    private static func openExisting(_ path: String, busyTimeoutMs: Int, readonly: Bool) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(Double(busyTimeoutMs) / 1000)
        return try sqlite(path) { try DatabaseQueue(path: path, configuration: configuration) }
    }

    /// The migrations the database records, in order; refuses a database that records none.
    private static func appliedMigrations(_ queue: DatabaseQueue, path: String) throws -> [(version: Int, fileName: String, checksum: String)] {
        try sqlite(path) {
            try queue.read { db in
                guard try db.tableExists("schema_migration") else {
                    let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name LIMIT 6")
                    throw BackupError.notCrated(path: path, reason: "it has no schema_migration table" + (tables.isEmpty ? " (it has no tables at all)" : " (its tables: \(tables.prefix(5).joined(separator: ", "))\(tables.count > 5 ? ", ..." : ""))"))
                }
                let columns = Set(try db.columns(in: "schema_migration").map(\.name))
                if let missing = ["version", "file_name", "checksum"].first(where: { !columns.contains($0) }) {
                    throw BackupError.notCrated(path: path, reason: "its schema_migration table is not crated's (it has no column \(missing))")
                }
                let rows = try Row.fetchAll(db, sql: "SELECT version, file_name, checksum FROM schema_migration ORDER BY version")
                guard !rows.isEmpty else { throw BackupError.notCrated(path: path, reason: "it records no applied migrations") }
                return rows.map { ($0["version"], $0["file_name"], $0["checksum"]) }
            }
        }
    }

    private static func checkIntegrity(_ queue: DatabaseQueue, path: String) throws {
        let problems = try sqlite(path) { try queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } }
        guard problems == ["ok"] else { throw BackupError.failedIntegrityCheck(path: path, problems: problems) }
    }

    private static func summarize(_ queue: DatabaseQueue, path: String) throws -> BackupSummary {
        try sqlite(path) {
            try queue.read { db in
                let last = try Row.fetchOne(db, sql: "SELECT version, file_name FROM schema_migration ORDER BY version DESC LIMIT 1")
                func count(_ table: String) throws -> Int {
                    try db.tableExists(table) ? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 : 0
                }
                return BackupSummary(
                    path: path, bytes: 0, pages: try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0,
                    schemaVersion: last?["version"] ?? 0, lastMigration: last?["file_name"] ?? "none",
                    users: try count("user"), copies: try count("collection_item"), albums: try count("album"))
            }
        }
    }

    /// Runs `body`, naming `path` in the SQLite error it throws.
    private static func sqlite<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw backupError(error, path: path)
        }
    }

    /// What a SQLite error during a backup or restore means for `path`. A failed backup step leaves
    /// the copy's connection with no message of its own ("not an error"): the result code says it.
    static func backupError(_ error: DatabaseError, path: String) -> BackupError {
        switch error.resultCode {
        case .SQLITE_NOTADB: return .notADatabase(path: path, reason: error.message ?? error.description)
        case .SQLITE_FULL: return .diskFull(path: path)
        default:
            guard let message = error.message, message != "not an error" else {
                return .sqlite(path: path, reason: String(cString: sqlite3_errstr(error.extendedResultCode.rawValue)))
            }
            return .sqlite(path: path, reason: message)
        }
    }

    private static func requireFolder(of file: String) throws {
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().path
        guard isDirectory(folder) else { throw BackupError.noFolder(path: folder) }
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && !directory.boolValue
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    private static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
