@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import GRDB
import Testing

/// The import's statements bind text from a space of their own, reused run after run (`TextArena`):
/// every run reads back the values it was given, of any length.
@Suite struct BulkStatementTextTests {
    @Test func textOfAnyLengthIsBoundRunAfterRun() throws {
        let db = try DatabaseQueue()
        var generator = SeededGenerator(seed: 9)
        // Empty, small (kept inside the String value), heap, non-ASCII, larger than an arena block.
        let samples = ["", "x", String(repeating: "a", count: 15), String(repeating: "b", count: 16), "Déjà Vu 坂本 😀",
                       String(repeating: "c", count: 70_000), String(repeating: "é", count: 50_000)]
        let rows: [(String, String?)] = (0..<500).map { _ in
            (samples.randomElement(using: &generator)! + String(Int.random(in: 0...9, using: &generator)),
             Bool.random(using: &generator) ? nil : samples.randomElement(using: &generator)!)
        }
        let stored = try db.write { db -> [Row] in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL, b TEXT)")
            let insert = MultiRowInsert(db, "INSERT INTO t (id, a, b)", columns: 3)
            try insert.insert(Array(rows.enumerated())) { statement, first, row in
                statement.bind(first, row.offset)
                statement.bind(first + 1, row.element.0)
                statement.bind(first + 2, row.element.1)
            }
            let find = try BulkStatement(db, sql: "SELECT id FROM t WHERE a = ? ORDER BY id LIMIT 1")
            for (offset, row) in rows.enumerated() {
                find.bind(1, row.0)
                #expect(try find.fetchInt64() == Int64(rows.firstIndex { $0.0 == row.0 }!), "row \(offset)")
            }
            return try Row.fetchAll(db, sql: "SELECT a, b, typeof(b) AS kind FROM t ORDER BY id")
        }
        #expect(stored.count == rows.count)
        for (row, expected) in zip(stored, rows) {
            #expect(row["a"] as String == expected.0)
            #expect(row["b"] as String? == expected.1)
            #expect(row["kind"] as String == (expected.1 == nil ? "null" : "text"))
        }
        // The empty string is text, not NULL.
        let empty = try db.write { db -> String? in
            try db.execute(sql: "CREATE TABLE e (v TEXT)")
            let insert = try BulkStatement(db, sql: "INSERT INTO e (v) VALUES (?)")
            insert.bind(1, "")
            try insert.execute()
            return try String.fetchOne(db, sql: "SELECT typeof(v) FROM e")
        }
        #expect(empty == "text")
    }
}
