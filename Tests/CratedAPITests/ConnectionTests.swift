@testable import CratedAPI
import CratedCore
import CratedTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

/// Connections that would otherwise stay open for ever are closed: after `server.idleTimeoutSeconds`
/// of silence, a head or body sent too slowly, past the connection limit; HTTP/1.0 after its answer.
@Suite struct ConnectionTests {
    /// How long an answer that is due may take: the whole suite may be loading the machine. A close
    /// without the answer still fails the check of the answer's status line that follows each wait.
    static let answerTimeout: Duration = .seconds(20)

    static func application(_ server: TestServer, idleTimeoutSeconds: Int = 30, headTimeoutSeconds: Int = 10,
                            bodyTimeoutSeconds: Int = 60, writeTimeoutSeconds: Int = 30, maxConnections: Int = 1000) throws -> some ApplicationProtocol {
        var configuration = try CratedConfiguration.defaults()
        configuration.serverPort = 0
        configuration.serverIdleTimeoutSeconds = idleTimeoutSeconds
        configuration.serverHeadTimeoutSeconds = headTimeoutSeconds
        configuration.serverBodyTimeoutSeconds = bodyTimeoutSeconds
        configuration.serverWriteTimeoutSeconds = writeTimeoutSeconds
        configuration.serverMaxConnections = maxConnections
        var logger = Logger(label: "crated-tests")
        logger.logLevel = .warning
        return buildApplication(configuration: configuration, services: server.services, logger: logger)
    }

    @Test func idleAndHalfSentRequestsAreClosed() async throws {
        let server = try TestServer()
        try await Self.application(server, idleTimeoutSeconds: 1).test(.live) { client in
            let port = try #require(client.port)
            let halfHead = try RawConnection(port: port)
            halfHead.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
            let noBody = try RawConnection(port: port)
            noBody.send("POST /v1/crates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.writeToken)\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{")
            let silent = try RawConnection(port: port)
            #expect(await halfHead.readUntilClosed(timeout: .seconds(5)) != nil, "half a request head kept its connection")
            #expect(await noBody.readUntilClosed(timeout: .seconds(5)) != nil, "a body that never came kept its connection")
            #expect(await silent.readUntilClosed(timeout: .seconds(5)) != nil, "a silent connection was kept")
            // The server still answers (on a connection of its own: the client's idle one was closed too).
            let fresh = try RawConnection(port: port)
            fresh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = try #require(await fresh.readUntilClosed(timeout: Self.answerTimeout))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(40))")
        }
        #expect(try server.database.crates(userId: 1).count == 6)
    }

    /// A body announced larger than any body taken is a 413 at once, not after waiting for it.
    @Test func aBodyAnnouncedTooLargeIsRefusedBeforeItComes() async throws {
        let server = try TestServer()
        try await Self.application(server).test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            connection.send("POST /v1/crates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.writeToken)\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{")
            let answer = await connection.read(endingWith: "}", timeout: Self.answerTimeout)
            #expect(answer?.hasPrefix("HTTP/1.1 413") == true, "\(answer?.prefix(60) ?? "no answer")")
            #expect(answer?.contains("body_too_large") == true)
        }
        #expect(try server.database.crates(userId: 1).count == 6)
    }

    /// A head sent a byte at a time, each in time for the idle timeout, is closed at the head timeout.
    @Test func aHeadSentTooSlowlyIsClosed() async throws {
        let server = try TestServer()
        try await Self.application(server, idleTimeoutSeconds: 30, headTimeoutSeconds: 1).test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            var closed: String?
            for byte in "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 0123456789012345678901234567890123456789" {
                connection.send(String(byte))
                closed = await connection.readUntilClosed(timeout: .milliseconds(100))
                if closed != nil { break }
            }
            #expect(closed != nil, "a head dripped over 8 seconds kept its connection")
        }
    }

    /// A body sent a byte at a time is closed at the body timeout.
    @Test func aBodySentTooSlowlyIsClosed() async throws {
        let server = try TestServer()
        try await Self.application(server, idleTimeoutSeconds: 30, bodyTimeoutSeconds: 1).test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            connection.send("POST /v1/crates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.writeToken)\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
            var closed: String?
            for _ in 0..<50 {
                connection.send(" ")
                closed = await connection.readUntilClosed(timeout: .milliseconds(100))
                if closed != nil { break }
            }
            #expect(closed != nil, "a body dripped over 5 seconds kept its connection")
        }
        #expect(try server.database.crates(userId: 1).count == 6)
    }

    /// Past the connection limit, half-open connections make way for new ones, oldest first: a
    /// flood of them cannot stop `/healthz` answering.
    @Test func aFloodOfHalfOpenConnectionsIsShed() async throws {
        let server = try TestServer()
        // A head timeout far beyond the test: with the whole suite running on two cores, the flood
        // can outlast the default 10 s, which would close the newest connections before they are read.
        try await Self.application(server, headTimeoutSeconds: 600, maxConnections: 16).test(.live) { client in
            let port = try #require(client.port)
            var flood: [RawConnection] = []
            for _ in 0..<64 {
                let connection = try RawConnection(port: port)
                connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
                flood.append(connection)
            }
            let fresh = try RawConnection(port: port)
            fresh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = try #require(await fresh.readUntilClosed(timeout: Self.answerTimeout))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(40))")
            // The oldest were closed; the newest (up to the limit, less the fresh one) are still open.
            var closedCount = 0
            for connection in flood where await connection.readUntilClosed(timeout: .milliseconds(20)) != nil { closedCount += 1 }
            #expect(closedCount >= 64 - 15)
            #expect(await flood.last!.readUntilClosed(timeout: .milliseconds(20)) == nil)
        }
    }

    /// Past the connection limit, connections sending a body a byte at a time make way too, the one
    /// waiting longest first: without a token (sign-in takes a body) a client could otherwise hold every slot.
    @Test func aFloodOfSlowBodiesIsShed() async throws {
        let server = try TestServer()
        try await Self.application(server, maxConnections: 16).test(.live) { client in
            let port = try #require(client.port)
            var flood: [RawConnection] = []
            for _ in 0..<16 {
                let connection = try RawConnection(port: port)
                connection.send("POST /v1/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
                flood.append(connection)
            }
            // Every head read, so that each connection waits for the rest of its body.
            try await Task.sleep(for: .milliseconds(300))
            for connection in flood { connection.send(" ") }
            let fresh = try RawConnection(port: port)
            fresh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = try #require(await fresh.readUntilClosed(timeout: Self.answerTimeout))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(40))")
            // Slow bodies made way, one a connection: for the fresh one, and for the test client's
            // own (HummingbirdTesting connects one) when it came after the flood.
            var closedCount = 0
            for connection in flood where await connection.readUntilClosed(timeout: .milliseconds(50)) != nil { closedCount += 1 }
            #expect((1...2).contains(closedCount))
        }
    }

    /// Which connections a new one past the limit may close, through one request's life: waiting
    /// for its head, then its body, then (answered) for the next head; not while the server owes the
    /// answer. Answered before its body ended (a 401 to a body not yet read), a connection stays in
    /// that line when the body ends: it waits on its client, and must not hold its slot for free.
    @Test func aConnectionWaitingOnItsClientCanMakeWay() throws {
        let connections = OpenConnections()
        let limits = ConnectionLimits(maxConnections: 10, headTimeout: .seconds(10), bodyTimeout: .seconds(10), writeTimeout: .seconds(10))
        let channel = EmbeddedChannel(handler: ConnectionGuard(limits: limits, idleTimeout: .seconds(30), connections: connections))
        defer { _ = try? channel.finish() }
        let post = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/crates", headers: ["Content-Length": "2"])
        let answer = HTTPResponseHead(version: .http1_1, status: .unauthorized, headers: ["Content-Length": "0"])
        #expect(connections.waitingCount == 1, "waiting for a head")

        try channel.writeInbound(HTTPServerRequestPart.head(post))
        #expect(connections.waitingCount == 1, "waiting for the body")
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(connections.waitingCount == 0, "the server owes the answer")
        try channel.writeOutbound(HTTPServerResponsePart.head(answer))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(connections.waitingCount == 1, "answered: waiting for the next head")

        // Answered first, then the body ends.
        try channel.writeInbound(HTTPServerRequestPart.head(post))
        try channel.writeOutbound(HTTPServerResponsePart.head(answer))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(connections.waitingCount == 1, "answered before its body ended, it still waits on its client")
    }

    /// A client that pipelines requests and never reads the answers is closed once its answers have
    /// waited the write timeout, and its connection makes way: it no longer holds a slot (and an
    /// event stream nobody reads no longer holds SIGTERM) for as long as it likes.
    @Test func aClientThatStopsReadingIsClosedAtTheWriteTimeout() async throws {
        let server = try TestServer()
        try await Self.application(server, writeTimeoutSeconds: 1, maxConnections: 1).test(.live) { client in
            let port = try #require(client.port)
            let hog = try RawConnection(port: port, receiveBuffer: 4096)
            // Some 30 MB of answers (the OpenAPI document, no token needed), far more than the
            // sockets' buffers hold.
            hog.send(String(repeating: "GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n", count: 200))
            var answer: String?
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                let fresh = try RawConnection(port: port)
                fresh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                answer = await fresh.readUntilClosed(timeout: .seconds(2))
                if answer?.hasPrefix("HTTP/1.1 200") == true { break }
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "the unread connection kept the only slot: \(answer?.prefix(40) ?? "nothing")")
            #expect(await hog.readUntilClosed(timeout: .seconds(5)) != nil, "the unread connection is still open")
        }
    }

    /// HTTP/1.0 closes after the answer unless the request asks to keep the connection alive.
    @Test func http10WithoutKeepAliveIsClosedAfterItsAnswer() async throws {
        let server = try TestServer()
        try await Self.application(server, idleTimeoutSeconds: 30).test(.live) { client in
            let port = try #require(client.port)
            let plain = try RawConnection(port: port)
            plain.send("GET /healthz HTTP/1.0\r\n\r\n")
            let answer = try #require(await plain.readUntilClosed(timeout: Self.answerTimeout), "HTTP/1.0 connection left open")
            #expect(answer.contains(" 200 "))
            let kept = try RawConnection(port: port)
            kept.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            // Still open after its answer (read and dropped here), and answers a second request.
            #expect(await kept.readUntilClosed(timeout: .milliseconds(500)) == nil)
            kept.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let second = try #require(await kept.readUntilClosed(timeout: Self.answerTimeout))
            #expect(second.hasPrefix("HTTP/1.1 200"), "\(second.prefix(40))")
        }
    }

    /// What the HTTP parser refuses answers in the API's error shape, then closes.
    @Test func aRequestThatCannotBeParsedIsAnsweredInTheErrorShape() async throws {
        let server = try TestServer()
        try await Self.application(server).test(.live) { client in
            let port = try #require(client.port)
            let cases = [
                ("GET /v1/search?q=\(String(repeating: "x", count: 100_000)) HTTP/1.1\r\nHost: x\r\n\r\n", "431", "http_431"),
                ("NOT HTTP AT ALL\r\n\r\n", "400", "http_400"),
                // A body the parser refuses after a good head: the client is still there to be told.
                ("POST /v1/crates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.writeToken)\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\nZZZ\r\n", "400", "http_400"),
            ]
            for (request, status, code) in cases {
                let connection = try RawConnection(port: port)
                connection.send(request)
                let answer = try #require(await connection.readUntilClosed(timeout: Self.answerTimeout), "left open: \(request.prefix(30))")
                #expect(answer.hasPrefix("HTTP/1.1 \(status)"), "\(answer.prefix(200))")
                #expect(answer.contains("Content-Type: application/json"), "\(answer.prefix(200))")
                let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
                let error = try JSONDecoder().decode(ErrorBody.self, from: Data(body.utf8)).error
                #expect(error.code == code, "\(body)")
            }
            // The server goes on answering.
            let fresh = try RawConnection(port: port)
            fresh.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(try #require(await fresh.readUntilClosed(timeout: Self.answerTimeout)).hasPrefix("HTTP/1.1 200"))
        }
    }

    /// Requests sent before the first is answered (HTTP/1.1 pipelining) are each answered, in order;
    /// the last one's `Connection: close` closes the connection after its own answer, not the first's.
    @Test func pipelinedRequestsAreEachAnsweredInOrder() async throws {
        let server = try TestServer()
        try await Self.application(server).test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
                + "HEAD /v1/me HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.readToken)\r\nConnection: close\r\n\r\n")
            let answer = try #require(await connection.readUntilClosed(timeout: Self.answerTimeout))
            let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
            #expect(statuses == ["200", "401", "200"], "\(answer)")
            #expect(answer.hasSuffix("}") && answer.contains(#""name":"collector""#), "\(answer)")
        }
    }
}
