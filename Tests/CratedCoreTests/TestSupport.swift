import CratedCore
import Foundation
import GRDB
import Testing

/// A temporary folder for one test, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "crated-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appending(path: name).path }

    /// Writes `text` (or raw bytes) to a file in the folder and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, bytes: Data(text.utf8))
    }

    @discardableResult
    func write(_ name: String, bytes: Data) throws -> String {
        let path = path(name)
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A new database file in the folder with the real migrations applied.
    func database(_ name: String = "crated.sqlite", busyTimeoutMs: Int = 5000) throws -> AppDatabase {
        try AppDatabase.open(path: path(name), busyTimeoutMs: busyTimeoutMs)
    }
}

enum Paths {
    /// The package root, found from this file's location (Tests/CratedCoreTests/TestSupport.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Small fixtures of the project's own making.
    static func ownFixture(_ name: String) -> String {
        packageRoot.appending(path: "Tests/Fixtures/\(name)").path
    }

    /// Real Discogs data in ../shared/fixtures/discogs, or nil (with a note) when shared/ is absent.
    static func sharedFixture(_ name: String) -> String? {
        let path = packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures/discogs/\(name)").path
        guard FileManager.default.fileExists(atPath: path) else {
            print("note: skipping checks on \(name): ../shared/fixtures/discogs is not beside the checkout")
            return nil
        }
        return path
    }

    static var sharedFixturesPresent: Bool {
        FileManager.default.fileExists(atPath: packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures/discogs").path)
    }

    /// The `crated` executable built with the tests (it sits beside the test bundle).
    static var cratedBinary: String {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appending(path: "crated").path
        if FileManager.default.isExecutableFile(atPath: besideTests) { return besideTests }
        return packageRoot.appending(path: ".build/debug/crated").path
    }
}

/// Counts of the tables an import writes, to show that a failed import wrote nothing.
struct TableCounts: Equatable, CustomStringConvertible {
    var users, artists, albums, copies, crates, crateItems, searchRows: Int

    init(_ database: AppDatabase) throws {
        (users, artists, albums, copies, crates, crateItems, searchRows) = try database.reader.read { db in
            func count(_ table: String) throws -> Int { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")! }
            return (try count("user"), try count("artist"), try count("album"), try count("collection_item"),
                    try count("crate"), try count("crate_item"), try count("album_search"))
        }
    }

    static let empty = TableCounts(users: 0, artists: 0, albums: 0, copies: 0, crates: 0, crateItems: 0, searchRows: 0)

    private init(users: Int, artists: Int, albums: Int, copies: Int, crates: Int, crateItems: Int, searchRows: Int) {
        (self.users, self.artists, self.albums, self.copies, self.crates, self.crateItems, self.searchRows) =
            (users, artists, albums, copies, crates, crateItems, searchRows)
    }

    var description: String {
        "users \(users), artists \(artists), albums \(albums), copies \(copies), crates \(crates), crate items \(crateItems), search rows \(searchRows)"
    }
}

/// Runs a program to completion and returns its exit status and output.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read before waiting, so a full pipe cannot block the child.
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
}

/// The header of a default Discogs collection export, with one custom field.
let exportHeader = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added,Collection Media Condition,Collection Sleeve Condition,Collection Notes,Collection Purchased At"

/// One export row with sensible values; tests override what they are about.
func exportRow(
    catalog: String = "CAT 1", artist: String = "Artist", title: String = "Title", label: String = "Label",
    format: String = "\"LP, Album\"", rating: String = "", released: String = "1999", releaseId: String = "100",
    folder: String = "Uncategorized", dateAdded: String = "2020-01-01 10:00:00", media: String = "", sleeve: String = "",
    notes: String = "", purchasedAt: String = ""
) -> String {
    [catalog, artist, title, label, format, rating, released, releaseId, folder, dateAdded, media, sleeve, notes, purchasedAt]
        .joined(separator: ",")
}
