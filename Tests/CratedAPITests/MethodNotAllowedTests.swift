@testable import CratedAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// A known path asked with a method it does not answer: 405 with `Allow`, not 404.
@Suite struct MethodNotAllowedTests {
    @Test func aWrongMethodOnAKnownPathIs405WithAllow() async throws {
        let server = try TestServer()
        let cases: [(HTTPRequest.Method, String, String)] = [
            (.delete, "/v1/me", "GET, HEAD"),
            (.post, "/healthz", "GET, HEAD"),
            (.put, "/v1/openapi.json", "GET, HEAD"),
            (.post, "/v1/albums/5", "GET, HEAD"),
            (.put, "/v1/crates/3", "DELETE, GET, HEAD, PATCH"),
            (.get, "/v1/crates/3/copies", "POST, PUT"),
            (.get, "/v1/crates/3/copies/9", "DELETE, PATCH"),
            (.delete, "/v1/crates", "GET, HEAD, POST"),
            (.post, "/v1/grid/genres/Jazz", "GET, HEAD"),
            (.get, "/v1/player/play", "POST"),
            (.patch, "/v1/session", "DELETE, GET, HEAD, POST"),
        ]
        try await server.test { client in
            for (method, path, allow) in cases {
                // With a token and without: the method is wrong whoever asks.
                for token in [server.writeToken, nil] {
                    let response = try await client.call(method, path, token: token)
                    #expect(response.status == .methodNotAllowed, "\(method) \(path): \(response.status)")
                    #expect(response.headers[.allow] == allow, "\(method) \(path): Allow \(response.headers[.allow] ?? "missing")")
                    #expect(response.error?.code == "method_not_allowed", "\(method) \(path)")
                }
            }
        }
    }

    @Test func unknownPathsAndRightMethodsAreUnchanged() async throws {
        let server = try TestServer()
        try await server.test { client in
            let unknownPath = try await client.call(.get, "/v1/nothing-here", token: server.writeToken)
            #expect(unknownPath.status == .notFound)
            let tooDeep = try await client.call(.delete, "/v1/crates/3/copies/9/extra", token: server.writeToken)
            #expect(tooDeep.status == .notFound)
            let me = try await client.call(.get, "/v1/me", token: server.writeToken)
            #expect(me.status == .ok)
            let anonymous = try await client.call(.get, "/v1/me", token: nil)
            #expect(anonymous.status == .unauthorized)
            // A path parameter that is no id is the route's own 400, not a 405.
            let notAnId = try await client.call(.get, "/v1/albums/abc", token: server.writeToken)
            #expect(notAnId.status == .badRequest)
        }
    }
}
