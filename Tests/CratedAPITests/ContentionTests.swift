@testable import CratedAPI
import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

/// Another process holds SQLite's write lock (as `sqlite3` or an import would): writes wait for it
/// without holding a server thread, and answer 503 `database_busy` within the busy timeout of their
/// arrival; reads, `/healthz` and token checks go on meanwhile.
@Suite struct ContentionTests {
    /// A transaction of another connection holding the write lock until `release()`.
    final class LockHolder: Sendable {
        private let queue: DatabaseQueue

        init(path: String) throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "UPDATE listing_generation SET value = value")
            }
        }

        func release() throws {
            try queue.inDatabase { db in try db.execute(sql: "COMMIT") }
        }
    }

    static func request(_ method: String, _ path: String, token: String? = nil, body: String? = nil) -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        if let token { text += "Authorization: Bearer \(token)\r\n" }
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }

    @Test func readsAnswerWhileWritesWaitForTheLock() async throws {
        // Long enough that the writes still wait after the reads, however busy the machine (4 s ran
        // out once in CI while the rest of the suite ran, and a read once took over 3 s); the lock is
        // released after the reads. A read blocked behind the writes would wait all of it.
        let server = try TestServer(busyTimeoutMs: 90_000)
        let lock = try LockHolder(path: server.directory.path("crated.sqlite"))
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            // More waiting writes than the machine has threads for Swift's tasks.
            var writes: [RawConnection] = []
            for index in 0..<(2 * ProcessInfo.processInfo.activeProcessorCount + 2) {
                let connection = try RawConnection(port: port)
                connection.send(Self.request("POST", "/v1/crates", token: server.writeToken, body: #"{"name": "Waiting \#(index)"}"#))
                writes.append(connection)
            }
            try await Task.sleep(for: .milliseconds(200))
            for (path, token) in [("/healthz", nil), ("/v1/me", server.readToken), ("/v1/crates", server.readToken),
                                  ("/v1/grid/collection", server.readToken), ("/v1/player", server.readToken)] {
                let read = try RawConnection(port: port)
                read.send(Self.request("GET", path, token: token))
                let answer = try #require(await read.readUntilClosed(timeout: .seconds(12)), "\(path) did not answer while writes waited")
                #expect(answer.hasPrefix("HTTP/1.1 200"), "\(path): \(answer.prefix(60))")
            }
            // Every read answered while every write was still waiting for the lock.
            for write in writes { #expect(await write.readUntilClosed(timeout: .milliseconds(1)) == nil) }
            try lock.release()
            for write in writes {
                let answer = try #require(await write.readUntilClosed(timeout: .seconds(10)))
                #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer.prefix(60))")
            }
        }
        #expect(try server.database.crates(userId: 1).count == 6 + 2 * ProcessInfo.processInfo.activeProcessorCount + 2)
    }

    /// Writes queued behind one another each give up at the busy timeout of their own arrival, not
    /// after all those before them waited theirs in turn.
    @Test func queuedWritesEachAnswer503WithinTheirOwnTimeout() async throws {
        let server = try TestServer(busyTimeoutMs: 2000)
        let lock = try LockHolder(path: server.directory.path("crated.sqlite"))
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            var writes: [RawConnection] = []
            for index in 0..<10 {
                let connection = try RawConnection(port: port)
                connection.send(Self.request("POST", "/v1/crates", token: server.writeToken, body: #"{"name": "Refused \#(index)"}"#))
                writes.append(connection)
            }
            var answered: [ContinuousClock.Instant] = []
            for write in writes {
                let answer = try #require(await write.readUntilClosed(timeout: .seconds(30)))
                answered.append(.now)
                #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer.prefix(60))")
                #expect(answer.lowercased().contains("retry-after:"))
                #expect(answer.contains(#""database_busy""#))
            }
            // Ten writes waiting their timeouts in turn would answer over 18 seconds, one every 2;
            // each waiting its own answer together. Measured from the first answer, so that a machine
            // busy with the rest of the suite (a server slow to start, 9 s seen from the requests)
            // does not count; the margin is for it too.
            #expect(answered.last! - answered.first! < .seconds(8))
        }
        try lock.release()
        #expect(try server.database.crates(userId: 1).count == 6)
    }

    /// One user's requests waiting for an answer are capped (`server.maxRequestsPerUser`): past the
    /// cap their next is a 429 at once, while other users' requests go on as before.
    @Test func oneUsersWaitingRequestsAreCappedAndNoOneElses() async throws {
        let server = try TestServer(busyTimeoutMs: 90_000, maxRequestsPerUser: 3)
        let lock = try LockHolder(path: server.directory.path("crated.sqlite"))
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            var waiting: [RawConnection] = []
            for index in 0..<3 {
                let connection = try RawConnection(port: port)
                connection.send(Self.request("POST", "/v1/crates", token: server.writeToken, body: #"{"name": "Waiting \#(index)"}"#))
                waiting.append(connection)
            }
            let alices = try RawConnection(port: port)
            alices.send(Self.request("POST", "/v1/crates", token: server.aliceToken, body: #"{"name": "Alice waits her turn"}"#))
            try await Task.sleep(for: .milliseconds(300))
            // Whatever the fourth is, a read included, and whichever of the user's tokens it carries.
            for (method, path, token, body) in [("POST", "/v1/crates", server.writeToken, #"{"name": "One too many"}"#),
                                                ("GET", "/v1/crates", server.readToken, nil)] as [(String, String, String, String?)] {
                let refused = try RawConnection(port: port)
                refused.send(Self.request(method, path, token: token, body: body))
                let answer = try #require(await refused.readUntilClosed(timeout: .seconds(10)), "\(method) \(path) waited")
                #expect(answer.hasPrefix("HTTP/1.1 429"), "\(answer.prefix(60))")
                #expect(answer.lowercased().contains("retry-after: 1"))
                #expect(answer.contains(#""too_many_requests""#))
            }
            // Alice's request waits for the lock as the first three do; /healthz answers.
            #expect(await alices.readUntilClosed(timeout: .milliseconds(1)) == nil)
            let health = try RawConnection(port: port)
            health.send(Self.request("GET", "/healthz"))
            #expect(try #require(await health.readUntilClosed(timeout: .seconds(10))).hasPrefix("HTTP/1.1 200"))
            try lock.release()
            for connection in waiting + [alices] {
                let answer = try #require(await connection.readUntilClosed(timeout: .seconds(10)))
                #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer.prefix(60))")
            }
            // Answered, they count no more.
            let after = try RawConnection(port: port)
            after.send(Self.request("GET", "/v1/crates", token: server.readToken))
            #expect(try #require(await after.readUntilClosed(timeout: .seconds(10))).hasPrefix("HTTP/1.1 200"))
            #expect(server.services.requestsInFlight.count(1) == 0)
        }
    }

    /// Writes queued on the write connection behind others, with no lock held elsewhere, give up at
    /// the busy timeout of their own arrival too.
    @Test func writesQueuedBehindALongWriteGiveUpInTime() async throws {
        let server = try TestServer(busyTimeoutMs: 300)
        let longWrite = Task {
            try await server.database.write { db in
                try db.execute(sql: "UPDATE listing_generation SET value = value")
                Thread.sleep(forTimeInterval: 1)
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        await #expect(throws: AppDatabaseError.locked) {
            _ = try await server.database.createCrate(userId: 1, name: "Queued too long")
        }
        try await longWrite.value
        #expect(try await server.database.createCrate(userId: 1, name: "In time").name == "In time")
    }

    /// A player command that cannot get the lock is a 503 with `Retry-After`, never a 500; the state
    /// is as it was.
    @Test func aPlayerCommandThatCannotGetTheLockIs503() async throws {
        let server = try TestServer(busyTimeoutMs: 100)
        let (albumId, _) = try server.seedKindOfBlueTracks()
        let lock = try LockHolder(path: server.directory.path("crated.sqlite"))
        try await server.test { client in
            let refused = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: #"{"albumId": \#(albumId)}"#)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.headers[.retryAfter] != nil)
            try lock.release()
            let player = try await client.call(.get, "/v1/player", token: server.writeToken)
            #expect(player.status == .ok)
            #expect(player.objectKeys.contains("hasActiveTrack"))
            let played = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: #"{"albumId": \#(albumId)}"#)
            #expect(played.status == .ok)
        }
    }
}
