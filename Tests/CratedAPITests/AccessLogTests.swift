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
            let missing = try await client.execute(uri: "/v1/albums/999999?x=1", method: .get, headers: auth)
            let anonymous = try await client.execute(uri: "/v1/albums/\(albumId)", method: .get)
            let noRoute = try await client.execute(uri: "/no/such/route", method: .get)
            #expect([found.status, missing.status, anonymous.status, noRoute.status] == [.ok, .notFound, .unauthorized, .notFound])
        }
        let requests = try log.lines().filter { $0.contains("GET /") }
        let pattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ info crated: \[hb\.request\.id=([0-9a-f]+)\] GET (\S+) (\d{3}) (\d+\.\d\d) ms$/
        let parsed = try requests.map { line in try #require(try pattern.wholeMatch(in: line), "\(line)").output }
        #expect(parsed.map { "\($0.2) \($0.3)" } == [
            "/v1/albums/\(albumId) 200", "/v1/albums/999999?x=1 404", "/v1/albums/\(albumId) 401", "/no/such/route 404",
        ])
        #expect(Set(parsed.map(\.1)).count == 4, "each request has its own id")
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
}
