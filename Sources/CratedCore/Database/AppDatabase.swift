import Foundation
import GRDB
import Synchronization

/// The one type in front of GRDB: opens the database with crated's settings, applies the migrations,
/// and is extended by the repositories with methods named for what they do.
public struct AppDatabase: Sendable {
    public let writer: any DatabaseWriter
    /// The connections `read` and `unsafeRead` use; without them (a database made from a writer
    /// alone) they read through the writer.
    private let readConnections: ReadConnections?
    /// Recent search results, by user, limit and expression (see `searchAlbums`).
    let searchResults = GenerationCache<[AlbumListing]>(capacity: 256)
    /// How many copies each crate of a user holds, by crate id (see `crates(userId:)`).
    let crateCopyCounts = GenerationCache<[Int64: Int]>(capacity: 64)
    /// Token uses not yet written (see `authenticate(bearer:)`).
    let tokenUses = TokenUses()
    /// How long a write may wait for the write lock, counted from when it was asked for.
    private let writeDeadlines: WriteDeadlines
    private let checkpointConnection: CheckpointConnection
    /// The daemon's instruments; reads and writes record their time here, and the services that
    /// hold this database theirs (`recordingMetrics`).
    public private(set) var metrics = CratedMetrics.disabled
    /// The migrations `open` applied, in order: none when the database was up to date.
    public private(set) var migrationsAppliedAtOpen: [String] = []

    /// Opens (creating if needed) the database file: WAL, foreign keys on, a busy timeout, migrated.
    public static func open(
        path: String,
        busyTimeoutMs: Int = 5000,
        migrations: [Migration] = Migration.embedded
    ) throws -> AppDatabase {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw AppDatabaseError.cannotOpen(path: path, reason: "it is a directory")
        }
        if !FileManager.default.fileExists(atPath: directory.path) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw AppDatabaseError.cannotOpen(path: path, reason: "cannot create \(directory.path): \(error.localizedDescription)")
            }
        }
        // Private to its owner, like its backups: it holds password hashes, notes and CSRF tokens.
        // SQLite gives the WAL and shared-memory files the database file's permissions.
        if !FileManager.default.fileExists(atPath: path) { try? AtomicFile.createPrivate(path) }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        let writeDeadlines = WriteDeadlines(timeout: .milliseconds(busyTimeoutMs))
        configuration.busyMode = .callback { tries in writeDeadlines.shouldRetry(tries: tries) }
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            // Safe with WAL: a crash loses at most the last transactions, never integrity.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Reads through a memory map instead of a read() per page: the API's reads of a large
            // collection spent most of their time in the kernel copying pages.
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
            for function in DatabaseFunction.crated { db.add(function: function) }
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw AppDatabaseError.cannotOpen(path: path, reason: openFailureReason(error, path: path))
        }
        let applied: [String]
        do {
            applied = try AppDatabase(writer: pool, writeDeadlines: writeDeadlines).migrate(migrations)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY || error.resultCode == .SQLITE_CANTOPEN {
            // A file this user may read but not write opens, and fails at its first write.
            throw AppDatabaseError.cannotOpen(path: path, reason: openFailureReason(error, path: path))
        }
        // Readers wait only for a checkpoint or a recovery, never for a writer: a plain timeout.
        var readConfiguration = configuration
        readConfiguration.busyMode = .timeout(Double(busyTimeoutMs) / 1000)
        // Opened after the migrations: these connections keep the schema they first read.
        var database = AppDatabase(writer: pool, writeDeadlines: writeDeadlines,
                                   readConnections: ReadConnections(path: path, configuration: readConfiguration))
        database.migrationsAppliedAtOpen = applied
        return database
    }

    /// Why `path` could not be opened. SQLite's words for a file or folder this user may not write
    /// ("unable to open database file", "attempt to write a readonly database") do not say which, and
    /// the operator needs to know what to give this user: the folder too, for the -wal and -shm files.
    static func openFailureReason(_ error: DatabaseError, path: String,
                                  canWrite: (String) -> Bool = { access($0, W_OK) == 0 }) -> String {
        let sqliteSays = error.message ?? error.description
        guard error.resultCode == .SQLITE_CANTOPEN || error.resultCode == .SQLITE_READONLY else { return sqliteSays }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let unwritable = [path, path + "-wal", path + "-shm"].first { FileManager.default.fileExists(atPath: $0) && !canWrite($0) }
            ?? (canWrite(directory) ? nil : directory)
        guard let unwritable else { return sqliteSays }
        let what = unwritable == directory
            ? "the folder \(directory), where SQLite keeps the database's -wal and -shm files"
            : "the file \(unwritable)"
        return "\(currentUserDescription()) cannot write \(what) (SQLite said: \(sqliteSays))"
    }

    private static func currentUserDescription() -> String {
        let uid = geteuid()
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "user id \(uid)" }
        return "user \(String(cString: name)) (id \(uid))"
    }

    /// Closes every connection, the writer last: the last connection to close checkpoints the WAL
    /// and removes the `-wal` and `-shm` files, which a read-only one cannot do. For a command that
    /// is done; the daemon's connections end with the process.
    public func close() throws {
        try readConnections?.closeIdle()
        try checkpointConnection.close()
        if let pool = writer as? DatabasePool { try pool.close() } else if let queue = writer as? DatabaseQueue { try queue.close() }
    }

    /// Applies the migrations that this database lacks; returns the file names applied.
    @discardableResult
    public func migrate(_ migrations: [Migration] = Migration.embedded) throws -> [String] {
        do {
            return try Migrator(migrations: migrations).migrate(writer)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw AppDatabaseError.locked
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw AppDatabaseError.notADatabase
        }
    }

    public init(writer: any DatabaseWriter) {
        self.init(writer: writer, writeDeadlines: WriteDeadlines(timeout: .seconds(5)), readConnections: nil)
    }

    private init(writer: any DatabaseWriter, writeDeadlines: WriteDeadlines, readConnections: ReadConnections? = nil) {
        self.writer = writer
        self.writeDeadlines = writeDeadlines
        self.checkpointConnection = CheckpointConnection(path: writer.path)
        self.readConnections = readConnections
    }

    /// This database with `metrics` as its instruments: what opens it for the daemon calls this
    /// before handing it to the services.
    public func recordingMetrics(_ metrics: CratedMetrics) -> AppDatabase {
        var database = self
        database.metrics = metrics
        return database
    }

    /// Runs `body` in a read transaction: one committed state of the database throughout.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        guard metrics.isEnabled else { return try readWithoutMetrics(body) }
        let start = ContinuousClock.now
        defer { metrics.database.readDuration.record(ContinuousClock.now - start) }
        return try readWithoutMetrics(body)
    }

    private func readWithoutMetrics<T>(_ body: (Database) throws -> T) throws -> T {
        if let readConnections { return try readConnections.read(body) }
        return try writer.read(body)
    }

    /// Runs `body` in a write transaction, suspending the caller (never holding its thread) while the
    /// write waits for its turn and for the lock. A write that has not got the lock within the busy
    /// timeout of being asked for, however long it queued behind others, is `AppDatabaseError.locked`:
    /// the API answers it with 503 and `Retry-After`.
    public func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        try await writeOutsideTransaction { db in try Self.inTransaction(db, body) }
    }

    /// `write` for a body that begins its own transaction (after a PRAGMA that SQLite takes only
    /// outside one), under the same deadline.
    public func writeOutsideTransaction<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        let askedAt = ContinuousClock.now
        let deadline = writeDeadlines.deadline(askedAt: askedAt)
        let metrics = self.metrics
        defer { if metrics.isEnabled { metrics.database.writeDuration.record(ContinuousClock.now - askedAt) } }
        do {
            return try await writer.writeWithoutTransaction { db in
                // One that waited out its time behind the writes queued before it gives up as one
                // that waited for SQLite's lock does: a flood of writes is answered, not queued for ever.
                guard ContinuousClock.now < deadline else {
                    throw DatabaseError(resultCode: .SQLITE_BUSY, message: "the writes before it took the whole busy timeout")
                }
                return try writeDeadlines.waiting(until: deadline, metrics: metrics.database) { try body(db) }
            }
        } catch let error as DatabaseError where error.isBusy {
            metrics.database.writesBusy.increment()
            throw AppDatabaseError.locked
        } catch let error as DatabaseError where error.isStorageFailure {
            throw AppDatabaseError.storageFailed(error.message ?? error.description)
        }
    }

    /// `write` for the command line and start-up, where nothing else waits on the calling thread.
    public func writeBlocking<T>(_ body: (Database) throws -> T) throws -> T {
        let deadline = writeDeadlines.deadline(askedAt: .now)
        do {
            return try writer.writeWithoutTransaction { db in
                try writeDeadlines.waiting(until: deadline, metrics: metrics.database) { try Self.inTransaction(db, body) }
            }
        } catch let error as DatabaseError where error.isBusy {
            metrics.database.writesBusy.increment()
            throw AppDatabaseError.locked
        } catch let error as DatabaseError where error.isStorageFailure {
            throw AppDatabaseError.storageFailed(error.message ?? error.description)
        }
    }

    private static func inTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            result = try body(db)
            return .commit
        }
        return result!
    }

    /// Stops the write connection checkpointing the WAL when a commit finds it long: the commit that
    /// did (the first write after an import, say) copied hundreds of megabytes inside a request.
    /// The daemon checkpoints with `checkpointWAL()` in the background instead.
    public func stopAutomaticCheckpoints() throws {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            // A WAL the writer starts again from its beginning is cut back to this size.
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
        }
    }

    /// The WAL's size past which `checkpointWAL` empties it: 64 MiB.
    public static let walSizeLimit = 64 << 20

    /// Copies committed pages from the WAL into the database file, as far as readers allow, without
    /// waiting for readers or writers (a PASSIVE checkpoint), on a connection of its own so that
    /// writes go on meanwhile. Returns the WAL's frames and how many of them are now in the file,
    /// or nil when another connection is checkpointing (an import's commit).
    ///
    /// Writes that follow one another without a pause (a sync against a fast host) always find the
    /// WAL not quite copied, so the writer never starts it again from its beginning and it grows
    /// for as long as they go on. A WAL past `limit` bytes is therefore emptied and truncated (a
    /// TRUNCATE checkpoint): writers wait for it at most 100 ms, and little is left to copy after
    /// the passive one. Readers still using the WAL make it wait for the next call.
    @discardableResult
    public func checkpointWAL(truncatingPast limit: Int = walSizeLimit) async throws -> (walFrames: Int, checkpointed: Int)? {
        let connection = try checkpointConnection.connection()
        do {
            return try await connection.writeWithoutTransaction { db in
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")!
                let (frames, checkpointed): (Int, Int) = (row[1], row[2])
                let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
                if frames * pageSize > limit {
                    try db.execute(sql: "PRAGMA busy_timeout = 100")
                    defer { try? db.execute(sql: "PRAGMA busy_timeout = 0") }
                    let truncated = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")!
                    if truncated[0] as Int == 0 { return (frames, frames) }
                }
                return (frames, checkpointed)
            }
        } catch let error as DatabaseError where error.isBusy {
            return nil
        }
    }

    /// Runs `body` outside a transaction, for a single statement, which is consistent on its own.
    public func unsafeRead<T>(_ body: (Database) throws -> T) throws -> T {
        guard metrics.isEnabled else { return try unsafeReadWithoutMetrics(body) }
        let start = ContinuousClock.now
        defer { metrics.database.readDuration.record(ContinuousClock.now - start) }
        return try unsafeReadWithoutMetrics(body)
    }

    private func unsafeReadWithoutMetrics<T>(_ body: (Database) throws -> T) throws -> T {
        if let readConnections { return try readConnections.unsafeRead(body) }
        return try writer.unsafeRead(body)
    }
}

public enum AppDatabaseError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case locked
    case notADatabase
    /// The disk is full, or the file could not be read or written (an I/O error, a file made
    /// read-only under the daemon): nothing was written, and a later try may succeed.
    case storageFailed(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open database \(path): \(reason)"
        case .locked: "the database is locked by another writer; try again when it has finished"
        case .notADatabase: "the database file is not a SQLite database"
        case .storageFailed(let reason): "the database could not be written: \(reason)"
        }
    }
}

extension DatabaseError {
    /// SQLite answered BUSY: another connection or process holds the write lock past the busy timeout.
    package var isBusy: Bool { resultCode == .SQLITE_BUSY || resultCode == .SQLITE_LOCKED }

    /// SQLite could not store or read the file: the disk is full, an I/O error, a file that cannot
    /// be written or opened any more.
    package var isStorageFailure: Bool {
        [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN].contains(resultCode)
    }
}

/// The connection `checkpointWAL` runs on, opened on first use.
private final class CheckpointConnection: Sendable {
    private let path: String
    private let opened = Mutex<DatabaseQueue?>(nil)

    init(path: String) {
        self.path = path
    }

    func close() throws {
        try opened.withLock { queue in
            try queue?.close()
            queue = nil
        }
    }

    func connection() throws -> DatabaseQueue {
        try opened.withLock { queue in
            if let queue { return queue }
            var configuration = Configuration()
            configuration.busyMode = .immediateError
            let connection = try DatabaseQueue(path: path, configuration: configuration)
            queue = connection
            return connection
        }
    }
}
