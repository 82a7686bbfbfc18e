import GRDB
import GRDBSQLite

/// A prepared statement run many times in a row, its values bound straight through the SQLite C API.
/// The import runs a handful of statements hundreds of thousands of times; through GRDB each run built
/// a `StatementArguments` array of boxed values and converted every one of them, which cost as much as
/// SQLite's own work. Here a run is a few C calls.
///
/// Only for statements the caller fully binds before each run (bindings survive a reset), and only on
/// the database connection's own thread, inside the caller's transaction.
final class BulkStatement {
    private let db: Database
    /// Owns the `sqlite3_stmt` (GRDB finalizes it), and gives its SQL to error messages.
    private let statement: Statement
    private let handle: SQLiteStatement

    init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.makeStatement(sql: sql)
        handle = statement.sqliteStatement
    }

    // MARK: Binding (indexes start at 1, as in SQL)

    func bind(_ index: Int32, _ value: Int64) {
        sqlite3_bind_int64(handle, index, value)
    }

    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(handle, index, Int64(value))
    }

    func bind(_ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(handle, index, Int64(value)) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: String) {
        var value = value
        value.withUTF8 { bytes in
            guard let start = bytes.baseAddress else {
                // An empty buffer may have no address, and a null pointer would bind NULL, not ''.
                sqlite3_bind_text(handle, index, "", 0, Self.transient)
                return
            }
            start.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                _ = sqlite3_bind_text(handle, index, $0, Int32(bytes.count), Self.transient)
            }
        }
    }

    func bind(_ index: Int32, _ value: String?) {
        if let value { bind(index, value) } else { sqlite3_bind_null(handle, index) }
    }

    // MARK: Running

    /// Runs a statement that returns no rows.
    func execute() throws {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// Runs a query and reads its first row with `read`, or returns nil when there is none.
    func fetchFirst<T>(_ read: (Row) -> T) throws -> T? {
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return read(Row(handle))
        case SQLITE_DONE: return nil
        case let code: throw error(code)
        }
    }

    /// Runs a query of one integer column and returns its first value.
    func fetchInt64() throws -> Int64? {
        try fetchFirst { $0.int64(0) } ?? nil
    }

    /// The current row of a query, read by column index (from 0, as in SQLite's C API).
    struct Row {
        fileprivate let handle: SQLiteStatement
        fileprivate init(_ handle: SQLiteStatement) { self.handle = handle }

        func int64(_ column: Int32) -> Int64? {
            sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
        }

        func string(_ column: Int32) -> String? {
            guard let text = sqlite3_column_text(handle, column) else { return nil }
            return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
        }
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }

    /// SQLite copies the bytes: the Swift string's buffer does not outlive the call.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }
}

/// One INSERT of many rows at a time, its statements prepared once for each number of rows used.
/// A statement's run costs SQLite more than a row (and, on a table with triggers, a statement journal
/// of its own), so the import writes its new rows a batch per statement.
final class MultiRowInsert {
    private let db: Database
    private let head: String
    let columns: Int32
    private var statements: [Int: BulkStatement] = [:]

    /// `head` is the statement up to VALUES: `INSERT INTO t (a, b)`.
    init(_ db: Database, _ head: String, columns: Int32) {
        self.db = db
        self.head = head
        self.columns = columns
    }

    /// The statement for `rows` rows; values are bound from 1, row after row.
    func statement(rows: Int) throws -> BulkStatement {
        if let statement = statements[rows] { return statement }
        let row = "(" + Array(repeating: "?", count: Int(columns)).joined(separator: ", ") + ")"
        let statement = try BulkStatement(db, sql: head + " VALUES " + Array(repeating: row, count: rows).joined(separator: ", "))
        statements[rows] = statement
        return statement
    }
}

extension MultiRowInsert {
    /// Most rows per statement: the import's batches, well under SQLite's limit on bound values.
    static let maximumRows = 64

    /// Inserts `items`, `maximumRows` rows per statement; `bind` binds one item's values from the
    /// given index on.
    func insert<Item>(_ items: some Collection<Item>, bind: (BulkStatement, Int32, Item) -> Void) throws {
        var start = items.startIndex
        while start != items.endIndex {
            let end = items.index(start, offsetBy: Self.maximumRows, limitedBy: items.endIndex) ?? items.endIndex
            let chunk = items[start..<end]
            let statement = try statement(rows: chunk.count)
            for (offset, item) in chunk.enumerated() {
                bind(statement, Int32(offset) * columns + 1, item)
            }
            try statement.execute()
            start = end
        }
    }
}
