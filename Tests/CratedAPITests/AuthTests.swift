@testable import CratedAPI
import CratedCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct AuthTests {
    @Test func healthNeedsNoToken() async throws {
        let server = try TestServer()
        try await server.test { client in
            let (status, body, _) = try await client.call(.get, "/healthz", token: nil)
            #expect(status == .ok)
            #expect((body as? [String: Any])?["status"] as? String == "ok")
        }
    }

    @Test func everyV1RouteNeedsAValidToken() async throws {
        let server = try TestServer()
        let revoked = try server.database.createToken(userName: "collector", scope: .write, label: "old")
        _ = try server.database.revokeToken(revoked.record.tokenPrefix)
        try await server.test { client in
            for token in [nil, "", "nonsense", "crt_000000000000_wrong", String(server.writeToken.dropLast()) + "x", revoked.token] {
                let (status, body, headers) = try await client.call(.get, "/v1/crates", token: token)
                #expect(status == .unauthorized, "token \(String(describing: token))")
                #expect(errorCode(body) == "unauthorized")
                #expect(headers[.wwwAuthenticate] == "Bearer realm=\"crated\"")
            }
            let basic = try await client.execute(uri: "/v1/crates", method: .get, headers: [.authorization: "Basic dXNlcjpwYXNz"]) { $0.status }
            #expect(basic == .unauthorized)
            let (status, body, _) = try await client.call(.get, "/v1/me", token: server.writeToken)
            #expect(status == .ok)
            #expect(((body as? [String: Any])?["user"] as? [String: Any])?["name"] as? String == "collector")
        }
    }

    @Test func readScopeCannotWrite() async throws {
        let server = try TestServer()
        try await server.test { client in
            #expect(try await client.call(.get, "/v1/crates", token: server.readToken).status == .ok)
            let (status, body, _) = try await client.call(.post, "/v1/crates", token: server.readToken, json: #"{"name": "New"}"#)
            #expect(status == .forbidden)
            #expect(errorCode(body) == "forbidden")
            #expect(try server.database.crates(userId: 1).count == 6)
        }
    }

    @Test func tokensAreStoredHashedAndRecordTheirLastUse() async throws {
        let server = try TestServer()
        let stored = try server.database.tokens(userName: "collector")
        #expect(stored.allSatisfy { $0.token.tokenHash.count == 32 })
        #expect(stored.allSatisfy { $0.token.lastUsedAt == nil })
        try await server.test { client in
            _ = try await client.call(.get, "/v1/me", token: server.writeToken)
        }
        let used = try server.database.tokens(userName: "collector").filter { $0.token.lastUsedAt != nil }
        #expect(used.count == 1)
        #expect(server.writeToken.contains(used[0].token.tokenPrefix))
    }
}
