import CratedCore
import Foundation
import GRDB

/// A temporary folder for one test, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "crated-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func path(_ name: String) -> String { url.appending(path: name).path }

    /// Writes `text` (or raw bytes) to a file in the folder and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, bytes: Data(text.utf8))
    }

    @discardableResult
    public func write(_ name: String, bytes: Data) throws -> String {
        let path = path(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The busy timeout of tests' databases: long, so that a write never fails only because the
    /// whole suite loads the machine. Tests of the busy answers pass a short one.
    public static let busyTimeoutMs = 20_000

    /// A new database file in the folder with the real migrations applied.
    public func database(_ name: String = "crated.sqlite", busyTimeoutMs: Int = TemporaryDirectory.busyTimeoutMs) throws -> AppDatabase {
        try AppDatabase.open(path: path(name), busyTimeoutMs: busyTimeoutMs)
    }
}

/// A migrated database in a temporary folder of its own, removed with the folder.
public final class TemporaryDatabase: Sendable {
    public let directory: TemporaryDirectory
    public let database: AppDatabase
    /// The database file, to open it again as a restarted daemon would.
    public var path: String { directory.path("crated.sqlite") }

    public init() throws {
        directory = try TemporaryDirectory()
        database = try directory.database()
    }
}
