import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Synchronization
import Testing

/// `AppDatabase.read` and `unsafeRead` run on read-only connections of their own (ReadConnections).
@Suite struct ReadConnectionTests {
    private func userCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM user") ?? -1
    }

    @Test func readsSeeEachCommitOfTheWriter() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.database()
        #expect(try database.read(userCount) == 0)
        _ = try database.addUser(named: "ana")
        #expect(try database.read(userCount) == 1)
        _ = try database.addUser(named: "ben")
        #expect(try database.unsafeRead(userCount) == 2)
        #expect(try database.users().map(\.name).sorted() == ["ana", "ben"])
    }

    @Test func theConnectionsCannotWrite() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.database()
        #expect(throws: DatabaseError.self) {
            try database.read { db in try db.execute(sql: "INSERT INTO user (name, created_at) VALUES ('x', 'now')") }
        }
        #expect(throws: DatabaseError.self) {
            try database.unsafeRead { db in try db.execute(sql: "DELETE FROM user") }
        }
        _ = try database.addUser(named: "still-writable")
        #expect(try database.read(userCount) == 1)
    }

    @Test func aReadSeesOneStateEvenWhenAWriteCommitsDuringIt() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.database()
        _ = try database.addUser(named: "before")
        let counts = try database.read { db -> (Int, Int) in
            let first = try userCount(db)
            // Commit from another thread while this read transaction is open.
            let done = DispatchSemaphore(value: 0)
            let writer = Thread { _ = try? database.addUser(named: "during"); done.signal() }
            writer.start()
            done.wait()
            return (first, try userCount(db))
        }
        #expect(counts.0 == 1)
        #expect(counts.1 == 1)
        #expect(try database.read(userCount) == 2)
    }

    @Test func aReadThatFailsEndsItsTransaction() throws {
        struct Failure: Error {}
        let folder = try TemporaryDirectory()
        let database = try folder.database()
        // Fail on every kept connection (in the body, and in SQL), then write: each later read must
        // see the write, which a connection left inside its transaction would not.
        for _ in 0..<4 {
            #expect(throws: Failure.self) { try database.read { db in _ = try userCount(db); throw Failure() } }
            #expect(throws: DatabaseError.self) { try database.read { db in try db.execute(sql: "SELECT * FROM no_such_table") } }
        }
        _ = try database.addUser(named: "after")
        for _ in 0..<4 { #expect(try database.read(userCount) == 1) }
    }

    @Test func moreConcurrentReadsThanKeptConnectionsAllSucceed() throws {
        let folder = try TemporaryDirectory()
        let database = try folder.database()
        for name in ["a", "b", "c"] { _ = try database.addUser(named: name) }
        let results = Mutex<[Int]>([])
        // 32 at once: more than the connections kept open, so some reads open one of their own.
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            let count = (try? database.read { db -> Int in
                usleep(2_000)
                return try userCount(db)
            }) ?? -1
            results.withLock { $0.append(count) }
        }
        #expect(results.withLock { $0 } == Array(repeating: 3, count: 32))
    }
}
