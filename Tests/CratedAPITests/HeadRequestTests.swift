@testable import CratedAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import CratedTestSupport
import Testing

/// HEAD answers wherever GET does, as RFC 9110 asks and a read-scope token is allowed: GET's
/// status and headers, no body.
@Suite struct HeadRequestTests {
    @Test func headAnswersWithGetsStatusAndHeadersAndNoBody() async throws {
        let server = try TestServer()
        let albumId = try server.albumId(release: 1)
        let paths = ["/healthz", "/v1/openapi.json", "/v1/me", "/v1/albums/\(albumId)",
                     "/v1/grid/collection?layout=iPadFullscreen", "/v1/crates", "/v1/player"]
        try await server.test { client in
            for path in paths {
                let get = try await client.call(.get, path, token: server.readToken)
                let head = try await client.call(.head, path, token: server.readToken)
                #expect(get.status == .ok, "GET \(path)")
                #expect(head.status == .ok, "HEAD \(path): \(head.status)")
                #expect(head.body.isEmpty, "HEAD \(path) sent a body")
                #expect(head.headers[.contentType] == get.headers[.contentType], "HEAD \(path)")
                #expect(head.headers[.contentLength] == String(get.body.count), "HEAD \(path)")
            }
            // The grid's validator works for HEAD as for GET.
            let grid = try await client.call(.get, "/v1/grid/collection?layout=iPadFullscreen", token: server.readToken)
            let tag = try #require(grid.headers[.eTag])
            let unchanged = try await client.execute(
                uri: "/v1/grid/collection?layout=iPadFullscreen", method: .head,
                headers: [.authorization: "Bearer \(server.readToken)", .ifNoneMatch: tag]) { $0.status }
            #expect(unchanged == .notModified)
        }
    }

    @Test func headIsRefusedWhereGetWouldBe() async throws {
        let server = try TestServer()
        try await server.test { client in
            let anonymous = try await client.call(.head, "/v1/me", token: nil)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate] != nil)
            let missing = try await client.call(.head, "/v1/albums/999999", token: server.readToken)
            #expect(missing.status == .notFound)
            let postOnly = try await client.call(.head, "/v1/player/play", token: server.readToken)
            #expect(postOnly.status == .methodNotAllowed)
            #expect(postOnly.headers[.allow] == "POST")
        }
    }

    /// On the wire no HEAD answer carries a body, an error's included (NIO frames it without one),
    /// so the next answer on a kept-alive connection starts where it should.
    @Test func headAnswersOnTheWireHaveNoBody() async throws {
        let server = try TestServer()
        try await ConnectionTests.application(server).test(.live) { client in
            let connection = try RawConnection(port: try #require(client.port))
            for (path, status) in [("/v1/me", "401"), ("/healthz", "200")] {
                connection.send("HEAD \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = await connection.read(endingWith: "\r\n\r\n", timeout: ConnectionTests.answerTimeout)
                #expect(head?.hasPrefix("HTTP/1.1 \(status)") == true, "HEAD \(path): \(head ?? "nothing")")
                #expect(head?.contains("Content-Length: ") == true, "HEAD \(path): \(head ?? "nothing")")
            }
            connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = await connection.readUntilClosed(timeout: ConnectionTests.answerTimeout)
            #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(answer ?? "nothing")")
            #expect(answer?.hasSuffix("}") == true, "\(answer ?? "nothing")")
        }
    }

    /// The event stream's head, without the stream: the answer comes at once.
    @Test func headOnTheEventStreamAnswersAtOnce() async throws {
        let server = try TestServer()
        try await server.test { client in
            let head = try await client.call(.head, "/v1/player/events", token: server.readToken)
            #expect(head.status == .ok)
            #expect(head.headers[.contentType]?.hasPrefix("text/event-stream") == true)
            #expect(head.body.isEmpty)
        }
    }
}
