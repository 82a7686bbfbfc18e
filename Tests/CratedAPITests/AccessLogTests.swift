@testable import CratedAPI
import CratedTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite struct AccessLogTests {
    @Test func everyRequestIsLoggedOnceAnsweredWithStatusTimeAndRequestId() async throws {
        let server = try TestServer()
        let log = try LogFile()
        defer { log.close() }
        let albumId = try server.albumId(release: 1)
        let auth: HTTPFields = [.authorization: "Bearer \(server.writeToken)"]
        try await server.makeApplication(logger: log.logger()).test(.router) { client in
            let found = try await client.execute(uri: "/v1/albums/\(albumId)", method: .get, headers: auth)
            // A credential in the query string never reaches the log.
            let missing = try await client.execute(uri: "/v1/albums/999999?x=1&access_token=s3cret&Token=s3cret", method: .get, headers: auth)
            let anonymous = try await client.execute(uri: "/v1/albums/\(albumId)", method: .get)
            let noRoute = try await client.execute(uri: "/no/such/route", method: .get)
            #expect([found.status, missing.status, anonymous.status, noRoute.status] == [.ok, .notFound, .unauthorized, .notFound])
        }
        let requests = try log.lines().filter { $0.contains("GET /") }
        let pattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ info crated: \[hb\.request\.id=([0-9a-f]+)\] GET (\S+) (\d{3}) (\d+\.\d\d) ms$/
        let parsed = try requests.map { line in try #require(try pattern.wholeMatch(in: line), "\(line)").output }
        #expect(parsed.map { "\($0.2) \($0.3)" } == [
            "/v1/albums/\(albumId) 200", "/v1/albums/999999?x=1&access_token=REDACTED&Token=REDACTED 404", "/v1/albums/\(albumId) 401",
            "/no/such/route 404",
        ])
        #expect(Set(parsed.map(\.1)).count == 4, "each request has its own id")
        #expect(try !log.lines().joined().contains("s3cret"))
    }

    @Test func answersOf500AndAboveAreWarnings() {
        let middleware = AccessLogMiddleware<AppRequestContext>()
        #expect([200, 304, 404, 499, 500, 503].map(middleware.level(forStatus:)) == [.info, .info, .info, .info, .warning, .warning])
        #expect(AccessLogMiddleware<AppRequestContext>(level: .error).level(forStatus: 503) == .error)
    }

    @Test func requestsAreNotLoggedBelowTheLoggersLevel() async throws {
        let server = try TestServer()
        let log = try LogFile()
        defer { log.close() }
        try await server.makeApplication(logger: log.logger(level: .warning)).test(.router) { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
        }
        #expect(try log.lines().filter { $0.contains("GET /healthz") }.isEmpty)
    }

    @Test func millisecondsHaveTwoDecimals() {
        let start = ContinuousClock.now - .microseconds(1_234_567)
        let text = AccessLogMiddleware<AppRequestContext>.milliseconds(since: start)
        let value = Double(text) ?? -1
        #expect(text.split(separator: ".").last?.count == 2)
        #expect(value >= 1234.56 && value < 1300)
    }

    /// A client that goes away mid-body is logged as 499 (client closed request), not as a 500 and
    /// not as an error.
    @Test func aClientGoneMidBodyIsLoggedAs499() async throws {
        let server = try TestServer()
        let log = try LogFile()
        defer { log.close() }
        try await server.makeApplication(logger: log.logger(level: .info)).test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            connection.send("POST /v1/crates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.writeToken)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"name\": ")
            connection.finishSending()
            _ = await connection.readUntilClosed(timeout: .seconds(5))
            // The line is written once the request is over, which the closed connection does not wait for.
            try await waitUntil("the request's access line") { try log.lines().contains { $0.contains("POST /v1/crates") } }
        }
        let lines = try log.lines()
        let request = try #require(lines.first { $0.contains("POST /v1/crates") }, "\(lines)")
        #expect(request.contains(" 499 "), "\(request)")
        #expect(!lines.contains { $0.contains(" error ") || $0.contains("unhandled") }, "\(lines)")
    }
}
