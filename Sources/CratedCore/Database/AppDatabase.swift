import Foundation
import GRDB

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
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(Double(busyTimeoutMs) / 1000)
        configuration.journalMode = .wal
        configuration.prepareDatabase { db in
            // Safe with WAL: a crash loses at most the last transactions, never integrity.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Reads through a memory map instead of a read() per page: the API's reads of a large
            // collection spent most of their time in the kernel copying pages.
            try db.execute(sql: "PRAGMA mmap_size = 1073741824")
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw AppDatabaseError.cannotOpen(path: path, reason: error.message ?? error.description)
        }
        try AppDatabase(writer: pool).migrate(migrations)
        // Opened after the migrations: these connections keep the schema they first read.
        return AppDatabase(writer: pool, readConnections: ReadConnections(path: path, configuration: configuration))
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
        self.init(writer: writer, readConnections: nil)
    }

    private init(writer: any DatabaseWriter, readConnections: ReadConnections?) {
        self.writer = writer
        self.readConnections = readConnections
    }

    /// Runs `body` in a read transaction: one committed state of the database throughout.
    public func read<T>(_ body: (Database) throws -> T) throws -> T {
        if let readConnections { return try readConnections.read(body) }
        return try writer.read(body)
    }

    /// Runs `body` in a write transaction. A write lock that another connection or process holds past
    /// the busy timeout is `AppDatabaseError.locked`: the API answers it with 503 and `Retry-After`.
    public func write<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try writer.write(body)
        } catch let error as DatabaseError where error.isBusy {
            throw AppDatabaseError.locked
        }
    }

    /// Runs `body` outside a transaction, for a single statement, which is consistent on its own.
    public func unsafeRead<T>(_ body: (Database) throws -> T) throws -> T {
        if let readConnections { return try readConnections.unsafeRead(body) }
        return try writer.unsafeRead(body)
    }
}

public enum AppDatabaseError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, reason: String)
    case locked
    case notADatabase

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open database \(path): \(reason)"
        case .locked: "the database is locked by another writer; try again when it has finished"
        case .notADatabase: "the database file is not a SQLite database"
        }
    }
}

extension DatabaseError {
    /// SQLite answered BUSY: another connection or process holds the write lock past the busy timeout.
    package var isBusy: Bool { resultCode == .SQLITE_BUSY || resultCode == .SQLITE_LOCKED }
}
