import Foundation
import GRDB
import GRDBSQLite

// The API's hot reads step their cached statements through SQLite's C API and read each row by
// column index. Fetching through GRDB's `Row`, every run of a statement read all of its column names
// into a dictionary of lower-cased names, and every row went through a cursor object: an album page
// runs ten statements, and that was more of its time than SQLite's own work. Arguments are bound by
// GRDB, which checks their count against the statement, or here, through the C API (`ids:` and
// `values:`, counted here too): `StatementArguments` boxes every value, and the album page and the
// grid bind nothing but ids and sort keys.

extension Database {
    /// Runs the cached statement for `sql` and reads every row of its result with `read`.
    public func rows<T>(_ sql: String, arguments: StatementArguments = [], _ read: (StatementColumns) throws -> T) throws -> [T] {
        var values: [T] = []
        try forEachRow(sql, arguments: arguments) { values.append(try read($0)) }
        return values
    }

    /// Runs the cached statement for `sql` and reads its first row with `read`; nil when it has none.
    public func firstRow<T>(_ sql: String, arguments: StatementArguments = [], _ read: (StatementColumns) throws -> T) throws -> T? {
        let statement = try cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        defer { sqlite3_reset(statement.sqliteStatement) }
        return try StatementColumns.step(statement) ? read(StatementColumns(statement)) : nil
    }

    /// Runs the cached statement for `sql` and calls `body` with each row of its result.
    public func forEachRow(_ sql: String, arguments: StatementArguments = [], _ body: (StatementColumns) throws -> Void) throws {
        let statement = try cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        defer { sqlite3_reset(statement.sqliteStatement) }
        let columns = StatementColumns(statement)
        while try StatementColumns.step(statement) { try body(columns) }
    }

    /// `rows`, for a statement whose arguments are all integers (ids).
    public func rows<T>(_ sql: String, ids: [Int64], _ read: (StatementColumns) throws -> T) throws -> [T] {
        var values: [T] = []
        try forEachRow(sql, ids: ids) { values.append(try read($0)) }
        return values
    }

    /// `firstRow`, for a statement whose arguments are all integers (ids).
    public func firstRow<T>(_ sql: String, ids: [Int64], _ read: (StatementColumns) throws -> T) throws -> T? {
        let statement = try cachedStatement(sql: sql, binding: ids.count) { sqlite3_bind_int64($0, $1, ids[Int($1) - 1]) }
        defer { sqlite3_reset(statement.sqliteStatement) }
        return try StatementColumns.step(statement) ? read(StatementColumns(statement)) : nil
    }

    /// `forEachRow`, for a statement whose arguments are all integers (ids).
    public func forEachRow(_ sql: String, ids: [Int64], _ body: (StatementColumns) throws -> Void) throws {
        let statement = try cachedStatement(sql: sql, binding: ids.count) { sqlite3_bind_int64($0, $1, ids[Int($1) - 1]) }
        defer { sqlite3_reset(statement.sqliteStatement) }
        let columns = StatementColumns(statement)
        while try StatementColumns.step(statement) { try body(columns) }
    }

    /// `rows`, with database values bound through the C API (the grid's statements: keys and ids).
    public func rows<T>(_ sql: String, values: [DatabaseValue], _ read: (StatementColumns) throws -> T) throws -> [T] {
        var rows: [T] = []
        try forEachRow(sql, values: values) { rows.append(try read($0)) }
        return rows
    }

    /// `forEachRow`, with database values bound through the C API.
    public func forEachRow(_ sql: String, values: [DatabaseValue], _ body: (StatementColumns) throws -> Void) throws {
        let statement = try cachedStatement(sql: sql, binding: values.count) { handle, index in
            switch values[Int(index) - 1].storage {
            case .null: sqlite3_bind_null(handle, index)
            case .int64(let value): sqlite3_bind_int64(handle, index, value)
            case .double(let value): sqlite3_bind_double(handle, index, value)
            case .string(let value):
                value.withCString { sqlite3_bind_text(handle, index, $0, Int32(value.utf8.count), Self.transient) }
            case .blob(let data):
                data.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32($0.count), Self.transient) }
            }
        }
        defer { sqlite3_reset(statement.sqliteStatement) }
        let columns = StatementColumns(statement)
        while try StatementColumns.step(statement) { try body(columns) }
    }

    /// SQLite copies what it is given to bind.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    /// The cached statement with its `count` parameters bound by `bind(handle, index)` (from 1), which
    /// returns SQLite's result code; they must be as many as the statement has.
    private func cachedStatement(sql: String, binding count: Int, _ bind: (OpaquePointer, Int32) -> Int32) throws -> Statement {
        let statement = try cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)  // binding needs a statement that is not under way
        guard Int(sqlite3_bind_parameter_count(handle)) == count else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "\(count) arguments for \(sqlite3_bind_parameter_count(handle)) parameters", sql: sql)
        }
        for index in 0..<Int32(count) {
            let code = bind(handle, index + 1)
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: sql) }
        }
        return statement
    }
}

/// `?, ?, ?` for an `IN (...)` of `count` values (at least one). GRDB's `databaseQuestionMarks` joins a
/// lazy sequence through unspecialized generic code: on a small grid page that was a tenth of its time.
public func sqlQuestionMarks(count: Int) -> String {
    precondition(count > 0, "an IN list needs a value")
    return String(repeating: "?, ", count: count - 1) + "?"
}

/// The current row of a statement, read by column index (from 0, as in SQLite's C API). A value of
/// another type than the one asked for throws, as GRDB's decoding does: a stored value of the wrong
/// type is an error to report, not a reason to stop the daemon.
public struct StatementColumns {
    private let statement: Statement
    private var handle: SQLiteStatement { statement.sqliteStatement }

    package init(_ statement: Statement) {
        self.statement = statement
    }

    /// Steps to the next row: true on a row, false at the end.
    package static func step(_ statement: Statement) throws -> Bool {
        switch sqlite3_step(statement.sqliteStatement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = sqlite3_db_handle(statement.sqliteStatement).flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    public func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    public func isInteger(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_INTEGER
    }

    public func int64(_ column: Int32) throws -> Int64 {
        try expect(SQLITE_INTEGER, column)
        return sqlite3_column_int64(handle, column)
    }

    public func int(_ column: Int32) throws -> Int {
        Int(try int64(column))
    }

    public func string(_ column: Int32) throws -> String {
        try expect(SQLITE_TEXT, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func data(_ column: Int32) throws -> Data {
        try expect(SQLITE_BLOB, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    // Nil for NULL.
    public func optionalInt64(_ column: Int32) throws -> Int64? { isNull(column) ? nil : try int64(column) }
    public func optionalInt(_ column: Int32) throws -> Int? { isNull(column) ? nil : try int(column) }
    public func optionalString(_ column: Int32) throws -> String? { isNull(column) ? nil : try string(column) }

    /// A string column read as an enumeration, such as a track's kind; another value throws.
    public func value<T: RawRepresentable<String>>(_ column: Int32, as type: T.Type = T.self) throws -> T {
        let text = try string(column)
        guard let value = T(rawValue: text) else {
            throw StatementColumnError(column: name(column), expected: "\(T.self)", found: "'\(text)'", sql: statement.sql)
        }
        return value
    }

    private func name(_ column: Int32) -> String {
        sqlite3_column_name(handle, column).map { String(cString: $0) } ?? "\(column)"
    }

    private func expect(_ type: Int32, _ column: Int32) throws {
        let actual = sqlite3_column_type(handle, column)
        guard actual != type else { return }
        throw StatementColumnError(column: name(column), expected: Self.typeName(type), found: Self.typeName(actual), sql: statement.sql)
    }

    private static func typeName(_ type: Int32) -> String {
        switch type {
        case SQLITE_INTEGER: "integer"
        case SQLITE_FLOAT: "real"
        case SQLITE_TEXT: "text"
        case SQLITE_BLOB: "blob"
        default: "null"
        }
    }
}

/// A stored value of another type than the column's reader expects.
public struct StatementColumnError: Error, CustomStringConvertible, Equatable {
    public var column: String
    public var expected: String
    public var found: String
    public var sql: String

    public var description: String { "column \(column) holds \(found), not \(expected), in: \(sql)" }
}
