import CratedCore
import Foundation
import GRDB

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

/// Everything a database holds, to compare two databases: the schema (tables, indexes, triggers as
/// their SQL) and every table's rows, sorted, without the columns that hold the time of writing.
public struct DatabaseContents: Equatable {
    public var schema: [String]
    public var tables: [String: [String]]

    public static let timeColumns: Set<String> = ["created_at", "updated_at", "added_at", "applied_at", "imported_at"]

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

    /// The same contents without these tables' rows (the schema stays whole).
    public func without(_ names: String...) -> DatabaseContents {
        var copy = self
        for name in names { copy.tables[name] = nil }
        return copy
    }

    /// The tables whose rows differ, for a readable failure.
    public func differences(from other: DatabaseContents) -> [String] {
        Set(tables.keys).union(other.tables.keys).sorted().filter { tables[$0] != other.tables[$0] }
            + (schema == other.schema ? [] : ["(schema)"])
    }
}
