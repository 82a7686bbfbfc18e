import CratedCore
import GRDB
import GRDBSQLite

/// A prepared statement run many times in a row, its values bound straight through the SQLite C API.
/// The import runs a handful of statements hundreds of thousands of times; through GRDB each run built
/// a `StatementArguments` array of boxed values and converted every one of them, which cost as much as
/// SQLite's own work. Here a run is a few C calls.
///
/// Only for statements the caller fully binds before each run, and only on the database connection's
/// own thread, inside the caller's transaction.
final class BulkStatement {
    private let db: Database
    /// Owns the `sqlite3_stmt` (GRDB finalizes it), and gives its SQL to error messages.
    private let statement: Statement
    private let handle: SQLiteStatement
    /// The text bound for the next run, copied here and bound as SQLITE_STATIC; the bindings are
    /// cleared after each run, before the space is used again. Bound as SQLITE_TRANSIENT, SQLite freed
    /// the last run's copy of every value and allocated the next: a tenth of the import's writing thread.
    private var text = TextArena()

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
        // Never a null pointer (which would bind NULL, not ''), also for an empty string.
        let copy = text.copy(value.utf8)
        sqlite3_bind_text(handle, index, copy.baseAddress, Int32(copy.count), Self.staticText)
    }

    /// Binds UTF-8 text given as bytes (valid UTF-8: SQLite does not check it).
    func bind(_ index: Int32, utf8 bytes: UnsafeBufferPointer<UInt8>) {
        let copy = text.copy(bytes)
        sqlite3_bind_text(handle, index, copy.baseAddress, Int32(copy.count), Self.staticText)
    }

    func bind(_ index: Int32, _ value: String?) {
        if let value { bind(index, value) } else { sqlite3_bind_null(handle, index) }
    }

    // MARK: Running

    /// Runs a statement that returns no rows.
    func execute() throws {
        let code = sqlite3_step(handle)
        endRun()
        guard code == SQLITE_DONE else { throw error(code) }
    }

    /// Runs a query and reads its first row with `read`, or returns nil when there is none.
    func fetchFirst<T>(_ read: (StatementColumns) throws -> T) throws -> T? {
        defer { endRun() }
        return try StatementColumns.step(statement) ? read(StatementColumns(statement)) : nil
    }

    /// Runs a query and reads its rows with `read`, until it returns false.
    func forEach(_ read: (StatementColumns) throws -> Bool) throws {
        defer { endRun() }
        while try StatementColumns.step(statement), try read(StatementColumns(statement)) {}
    }

    /// Runs a query of one integer column and returns its first value.
    func fetchInt64() throws -> Int64? {
        try fetchFirst { try $0.optionalInt64(0) } ?? nil
    }

    /// Resets the statement and lets go of the text bound for the run.
    private func endRun() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        text.removeAll()
    }

    private func error(_ code: Int32) -> DatabaseError {
        let message = db.sqliteConnection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }

    /// SQLite uses the bytes where they are (in `text`) until the bindings are cleared.
    private static var staticText: sqlite3_destructor_type? { nil }
}

/// Space for the text of one run of a statement: blocks that are never moved while the run's values
/// point into them, emptied for the next run and kept.
struct TextArena: ~Copyable {
    private var blocks: [UnsafeMutableRawBufferPointer] = []
    /// The block being filled, and how much of it is.
    private var current = 0
    private var used = 0
    private static let blockSize = 64 * 1024

    /// Copies `bytes` into the arena; the copy stays in place until `removeAll`.
    mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<CChar> {
        let destination = reserve(bytes.count)
        if let base = bytes.baseAddress { destination.copyMemory(from: base, byteCount: bytes.count) }
        return UnsafeBufferPointer(start: destination.assumingMemoryBound(to: CChar.self), count: bytes.count)
    }

    /// Room for `count` bytes that stays in place until `removeAll`.
    private mutating func reserve(_ count: Int) -> UnsafeMutableRawPointer {
        if current == blocks.count || used + count > blocks[current].count {
            nextBlock(holding: count)
        }
        let destination = blocks[current].baseAddress! + used
        used += count
        return destination
    }

    /// Copies `bytes` into the arena; the copy stays in place until `removeAll`.
    mutating func copy(_ bytes: String.UTF8View) -> UnsafeBufferPointer<CChar> {
        let count = bytes.count
        let destination = reserve(count)
        let copied = bytes.withContiguousStorageIfAvailable { source -> Bool in
            if let base = source.baseAddress { destination.copyMemory(from: base, byteCount: count) }
            return true
        } ?? false
        if !copied {
            for (offset, byte) in bytes.enumerated() { destination.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
        }
        return UnsafeBufferPointer(start: destination.assumingMemoryBound(to: CChar.self), count: count)
    }

    /// Moves on to a block with room for `count` bytes: the next one kept, or a new one (larger than
    /// usual for a value that fills more than a block).
    private mutating func nextBlock(holding count: Int) {
        if current < blocks.count && used > 0 { current += 1 }
        used = 0
        while current < blocks.count && blocks[current].count < count { current += 1 }
        if current == blocks.count {
            blocks.append(.allocate(byteCount: max(Self.blockSize, count), alignment: 1))
        }
    }

    mutating func removeAll() {
        current = 0
        used = 0
    }

    deinit {
        for block in blocks { block.deallocate() }
    }
}

/// One INSERT of many rows at a time, its statements prepared once for each number of rows used.
/// A statement's run costs SQLite more than a row (and, on a table with triggers, a statement journal
/// of its own), so the import writes its new rows a batch per statement.
///
/// The import's are `INSERT OR FAIL` where they can be. With the default (ABORT), a statement that
/// writes several rows into a table with a UNIQUE constraint keeps a statement journal, a copy of
/// every page it changes that existed before it, to undo its own earlier rows should a later one fail
/// (for an album batch: up to 64 random leaves of the release id index). FAIL stops at the failing
/// row and keeps the rows before it; the import then throws and rolls its whole transaction back, so
/// nothing of a failed statement is left either way. Not on a table with an INSERT trigger that has a
/// conflict clause of its own: the outer statement's would override it.
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
