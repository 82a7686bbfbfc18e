import Foundation
import GRDB
import Synchronization

/// Read-only connections for the daemon's reads, handed out under a plain mutex.
///
/// GRDB's `DatabasePool` guards its readers with a concurrent `DispatchQueue` and barrier blocks.
/// On Linux, two threads reading at once often park one of them in the kernel there: every API
/// read cost a context switch, more than the read itself (`/v1/layout`, whose only read is the
/// token check, serves half as many requests/s again without it). Here a read takes an idle
/// connection from a list, or opens one, runs on it, and puts it back.
final class ReadConnections: Sendable {
    private let path: String
    private let configuration: Configuration
    /// Connections kept open at most; beyond it a read opens a connection just for itself.
    private let limit: Int
    private let idle = Mutex<[DatabaseQueue]>([])

    /// - Parameters:
    ///   - configuration: the writer's; the connections are opened read-only with it.
    ///   - limit: by default enough for every thread of Swift's concurrency pool (one per core) to
    ///     read at once, with room for the threads of its own that an import or a test runs.
    init(path: String, configuration: Configuration, limit: Int = max(8, 2 * ProcessInfo.processInfo.activeProcessorCount)) {
        var configuration = configuration
        configuration.readonly = true
        // The journal mode belongs to the database file, which the writer has already set.
        configuration.journalMode = .default
        self.path = path
        self.configuration = configuration
        self.limit = limit
    }

    /// Runs `body` in a read transaction: it sees one committed state of the database throughout.
    ///
    /// BEGIN and COMMIT run as cached statements: GRDB's own `read` compiles both anew each time,
    /// a few microseconds of every grid and album page.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { connection in
            try connection.unsafeRead { db in
                try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
                // A failed statement may already have ended the transaction; a connection goes back
                // to the list with none open, or it would keep reading an old state.
                defer { if db.isInsideTransaction { try? db.cachedStatement(sql: "COMMIT TRANSACTION").execute() } }
                return try body(db)
            }
        }
    }

    /// Runs `body` outside a transaction: each statement sees the latest commit. For single
    /// statements, where BEGIN and COMMIT would double the work.
    func unsafeRead<T>(_ body: (Database) throws -> T) throws -> T {
        try withConnection { try $0.unsafeRead(body) }
    }

    /// Closes the connections kept open; a read after this opens one again.
    func closeIdle() throws {
        for connection in idle.withLock({ connections in defer { connections.removeAll() }; return connections }) {
            try connection.close()
        }
    }

    private func withConnection<T>(_ body: (DatabaseQueue) throws -> T) throws -> T {
        let connection = try idle.withLock { $0.popLast() } ?? DatabaseQueue(path: path, configuration: configuration)
        defer {
            idle.withLock { connections in
                if connections.count < limit { connections.append(connection) }
            }
        }
        return try body(connection)
    }
}
