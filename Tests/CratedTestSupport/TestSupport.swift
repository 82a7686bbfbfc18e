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

    /// A new database file in the folder with the real migrations applied.
    public func database(_ name: String = "crated.sqlite", busyTimeoutMs: Int = 5000) throws -> AppDatabase {
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

public enum Paths {
    /// The package root, found from this file's location (Tests/CratedCoreTests/TestSupport.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Small fixtures of the project's own making.
    public static func ownFixture(_ name: String) -> String {
        packageRoot.appending(path: "Tests/Fixtures/\(name)").path
    }

    /// Real Discogs data in ../shared/fixtures/discogs, or nil (with a note) when shared/ is absent.
    public static func sharedFixture(_ name: String) -> String? {
        let path = packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures/discogs/\(name)").path
        guard FileManager.default.fileExists(atPath: path) else {
            print("note: skipping checks on \(name): ../shared/fixtures/discogs is not beside the checkout")
            return nil
        }
        return path
    }

    public static var sharedFixturesPresent: Bool {
        FileManager.default.fileExists(atPath: packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures/discogs").path)
    }

    /// The `crated` executable built with the tests (it sits beside the test bundle).
    public static var cratedBinary: String {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appending(path: "crated").path
        if FileManager.default.isExecutableFile(atPath: besideTests) { return besideTests }
        return packageRoot.appending(path: ".build/debug/crated").path
    }
}

/// Counts of the tables an import writes, to show that a failed import wrote nothing.
public struct TableCounts: Equatable, Sendable, CustomStringConvertible {
    public var users, artists, albums, copies, crates, crateItems, searchRows: Int

    public init(_ database: AppDatabase) throws {
        (users, artists, albums, copies, crates, crateItems, searchRows) = try database.reader.read { db in
            func count(_ table: String) throws -> Int { try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")! }
            return (try count("user"), try count("artist"), try count("album"), try count("collection_item"),
                    try count("crate"), try count("crate_item"), try count("album_search"))
        }
    }

    public static let empty = TableCounts(users: 0, artists: 0, albums: 0, copies: 0, crates: 0, crateItems: 0, searchRows: 0)

    private init(users: Int, artists: Int, albums: Int, copies: Int, crates: Int, crateItems: Int, searchRows: Int) {
        (self.users, self.artists, self.albums, self.copies, self.crates, self.crateItems, self.searchRows) =
            (users, artists, albums, copies, crates, crateItems, searchRows)
    }

    public var description: String {
        "users \(users), artists \(artists), albums \(albums), copies \(copies), crates \(crates), crate items \(crateItems), search rows \(searchRows)"
    }
}

/// Runs a program to completion and returns its exit status and output.
public struct ProcessResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

public func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws -> ProcessResult {
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
public let exportHeader = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added,Collection Media Condition,Collection Sleeve Condition,Collection Notes,Collection Purchased At"

/// One export row with sensible values; tests override what they are about.
public func exportRow(
    catalog: String = "CAT 1", artist: String = "Artist", title: String = "Title", label: String = "Label",
    format: String = "\"LP, Album\"", rating: String = "", released: String = "1999", releaseId: String = "100",
    folder: String = "Uncategorized", dateAdded: String = "2020-01-01 10:00:00", media: String = "", sleeve: String = "",
    notes: String = "", purchasedAt: String = ""
) -> String {
    [catalog, artist, title, label, format, rating, released, releaseId, folder, dateAdded, media, sleeve, notes, purchasedAt]
        .joined(separator: ",")
}

/// Everything a database holds, to compare two databases: the schema (tables, indexes, triggers as
/// their SQL) and every table's rows, sorted, without the columns that hold the time of writing.
public struct DatabaseContents: Equatable {
    public var schema: [String]
    public var tables: [String: [String]]

    public static let timeColumns: Set<String> = ["created_at", "updated_at", "added_at", "applied_at"]

    public init(_ database: AppDatabase) throws {
        (schema, tables) = try database.reader.read { db in
            let schema = try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY type, name")
                .map(\.description)
            var tables: [String: [String]] = [:]
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'album_search'") {
                let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                    .filter { !Self.timeColumns.contains($0) }
                    .map(\.quotedDatabaseIdentifier).joined(separator: ", ")
                tables[table] = try Row.fetchAll(db, sql: "SELECT \(columns) FROM \(table.quotedDatabaseIdentifier)").map(\.description).sorted()
            }
            return (schema, tables)
        }
    }

    /// The tables whose rows differ, for a readable failure.
    public func differences(from other: DatabaseContents) -> [String] {
        Set(tables.keys).union(other.tables.keys).sorted().filter { tables[$0] != other.tables[$0] }
            + (schema == other.schema ? [] : ["(schema)"])
    }
}

/// A Discogs-shaped export of `rows` rows, the same for the same arguments: artists from a pool with
/// Discogs suffixes and commas, several copies of one release on other days, identical rows, several
/// labels, `none` catalogue numbers, unknown years, ratings, notes over two lines, folders (some the
/// default), a custom field. Release ids start at `firstRelease`; `ratingShift` changes the rating of every
/// third release.
public func syntheticExport(rows: Int, firstRelease: Int = 1, ratingShift: Int = 0) -> String {
    var lines = [exportHeader]
    lines.reserveCapacity(rows + 1)
    var row = 0
    while row < rows {
        let n = firstRelease + row
        let release = String(n)
        let artist = n % 11 == 0 ? "\"Earth, Wind & Fire (\(n % 3 + 2))\"" : "Artist \(n % 389)\(n % 5 == 0 ? " (2)" : "")"
        let label = n % 4 == 0 ? "\"Label \(n % 53), Label \(n % 17)\"" : "Label \(n % 53)"
        let catalog = n % 9 == 0 ? "none" : (n % 4 == 0 ? "\"CAT \(n), CAT \(n + 1)\"" : "CAT \(n)")
        let folder = ["Uncategorized", "Jazz", "Dub & Reggae", "\"Sell, maybe\"", "Ambient"][n % 5]
        let day = 1 + n % 28, month = 1 + n % 12
        // A shifted rating re-rates every third release.
        let rating = (n + (n % 3 == 0 ? ratingShift : 0)) % 6
        let date = "2021-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day) 1\(n % 10):0\(n % 6):00"
        let line = exportRow(
            catalog: catalog, artist: artist, title: "Title \(n % 7 == 0 ? "Déjà Vu" : "Record") \(n)", label: label,
            format: n % 3 == 0 ? "\"2xLP, Album, RE\"" : "LP", rating: rating == 0 ? "" : String(rating),
            released: n % 13 == 0 ? "0" : String(1960 + n % 60), releaseId: release, folder: folder, dateAdded: date,
            media: n % 2 == 0 ? "Mint (M)" : "", notes: n % 10 == 0 ? "\"First line\nsecond \"\"quoted\"\"\"" : "",
            purchasedAt: n % 6 == 0 ? "Rough Trade" : "")
        lines.append(line)
        row += 1
        // Every 17th release has a second copy on another day, every 23rd an identical row.
        if n % 17 == 0 && row < rows {
            lines.append(line.replacingOccurrences(of: date, with: "2023-05-05 05:05:05"))
            row += 1
        }
        if n % 23 == 0 && row < rows {
            lines.append(line)
            row += 1
        }
    }
    return lines.joined(separator: "\n") + "\n"
}
