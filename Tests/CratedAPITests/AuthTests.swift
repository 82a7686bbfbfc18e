@testable import CratedAPI
import CratedCore
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct AuthTests {
    @Test func healthNeedsNoToken() async throws {
        let server = try TestServer()
        try await server.test { client in
            let health = try await client.decoded(HealthDTO.self, "/healthz", token: nil)
            #expect(health.status == "ok")
        }
    }

    @Test func everyV1RouteNeedsAValidToken() async throws {
        let server = try TestServer()
        let revoked = try server.database.createToken(userName: "collector", scope: .write, label: "old")
        _ = try server.database.revokeToken(revoked.record.tokenPrefix)
        try await server.test { client in
            for token in [nil, "", "nonsense", "crt_000000000000_wrong", String(server.writeToken.dropLast()) + "x", revoked.token] {
                let response = try await client.call(.get, "/v1/crates", token: token)
                #expect(response.status == .unauthorized, "token \(String(describing: token))")
                #expect(response.error?.code == "unauthorized")
                // RFC 6750: a token presented and refused is `invalid_token`; without one, the realm alone.
                let presented = !(token ?? "").isEmpty
                #expect(response.headers[.wwwAuthenticate] == "Bearer realm=\"crated\"" + (presented ? ", error=\"invalid_token\"" : ""),
                        "token \(String(describing: token))")
            }
            let basic = try await client.execute(uri: "/v1/crates", method: .get, headers: [.authorization: "Basic dXNlcjpwYXNz"]) { $0.status }
            #expect(basic == .unauthorized)
            let me = try await client.decoded(MeDTO.self, "/v1/me", token: server.writeToken)
            #expect(me.user.name == "collector")
        }
    }

    /// A token is revoked by its whole self, its listed prefix, or that prefix as the token begins.
    @Test func aTokenIsRevokedByAnyFormOfItsPrefix() throws {
        let server = try TestServer()
        for form in [{ (token: String) in token }, { String($0.prefix(16)) }, { String($0.dropFirst(4).prefix(12)) }] {
            let created = try server.database.createToken(userName: "collector", scope: .read, label: "phone")
            let revoked = try server.database.revokeToken(form(created.token))
            #expect(revoked.token.id == created.record.id)
            #expect(revoked.wasActive)
            let revokedAt = try #require(revoked.token.revokedAt)
            #expect(try server.database.authenticate(bearer: created.token) == nil)
            // Again: said so, and the first revocation's time is kept.
            let again = try server.database.revokeToken(form(created.token))
            #expect(!again.wasActive)
            #expect(again.token.revokedAt == revokedAt)
        }
        #expect(throws: TokenError.notFound("000000000000")) { try server.database.revokeToken("crt_000000000000") }
        #expect(throws: UserError.notFound("nobody")) { try server.database.tokens(userName: "nobody") }
        #expect(try server.database.tokens(userName: "COLLECTOR").count == 2 + 3, "the server's two and the three revoked above")
        // A whole token with another secret revokes nothing, though its prefix names a token.
        let kept = try server.database.createToken(userName: "collector", scope: .read, label: "tablet")
        let forged = String(kept.token.prefix(17)) + "not-the-secret"
        #expect(throws: TokenError.notThisToken(prefix: kept.record.tokenPrefix)) { try server.database.revokeToken(forged) }
        #expect(try server.database.authenticate(bearer: kept.token) != nil)
    }

    @Test func readScopeCannotWrite() async throws {
        let server = try TestServer()
        try await server.test { client in
            #expect(try await client.call(.get, "/v1/crates", token: server.readToken).status == .ok)
            let response = try await client.call(.post, "/v1/crates", token: server.readToken, json: #"{"name": "New"}"#)
            #expect(response.status == .forbidden)
            #expect(response.error?.code == "forbidden")
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
        // Noted by the request, written by the daemon's recorder (here when the server stopped).
        await server.database.recordTokenUses()
        let used = try server.database.tokens(userName: "collector").filter { $0.token.lastUsedAt != nil }
        #expect(used.count == 1)
        #expect(server.writeToken.contains(used[0].token.tokenPrefix))
    }

    @Test func theLastUseIsWrittenAtMostOnceAMinute() async throws {
        let server = try TestServer()
        let prefix = try #require(server.database.tokens(userName: "collector").first { server.writeToken.contains($0.token.tokenPrefix) }).token.tokenPrefix
        func setLastUse(secondsAgo: Int64) throws -> String {
            let value = Timestamp.string(fromEpochSeconds: Int64(Date().timeIntervalSince1970) - secondsAgo)
            try server.database.writer.write { db in
                try db.execute(sql: "UPDATE api_token SET last_used_at = ? WHERE token_prefix = ?", arguments: [value, prefix])
            }
            return value
        }
        func lastUse() throws -> String? {
            try server.database.tokens(userName: "collector").first { $0.token.tokenPrefix == prefix }?.token.lastUsedAt
        }
        // Ahead of the clock rather than a little behind it: however long this test waits for a thread
        // among the suite's others, the use stays less than a minute old.
        let recent = try setLastUse(secondsAgo: -600)
        try await server.test { client in _ = try await client.call(.get, "/v1/me", token: server.writeToken) }
        await server.database.recordTokenUses()
        #expect(try lastUse() == recent)

        let old = try setLastUse(secondsAgo: 120)
        try await server.test { client in _ = try await client.call(.get, "/v1/me", token: server.writeToken) }
        await server.database.recordTokenUses()
        let written = try #require(try lastUse())
        #expect(written != old)
        #expect(written > old)
    }

    @Test func spacesAroundTheTokenAreIgnored() async throws {
        let server = try TestServer()
        try await server.test { client in
            let response = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer   \(server.writeToken) \t"])
            #expect(response.status == .ok)
            let inside = try await client.execute(uri: "/v1/me", method: .get, headers: [.authorization: "Bearer \(server.writeToken.prefix(10)) \(server.writeToken.dropFirst(10))"])
            #expect(inside.status == .unauthorized)
        }
    }

    /// Another process holds the write lock: requests go on at once, and their uses are written once
    /// the lock is free.
    @Test func aHeldWriteLockNeitherFailsNorDelaysTheTokenCheck() async throws {
        // A busy timeout far above the bound below: one request waiting for the lock fails the test
        // however slowly a loaded machine runs the other two.
        let server = try TestServer(busyTimeoutMs: 20_000)
        // Another process's connection, holding the write lock across the requests.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: server.directory.path("crated.sqlite"), configuration: holding)
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        try await server.test { client in
            let started = ContinuousClock.now
            for _ in 0..<3 {
                let response = try await client.call(.get, "/v1/me", token: server.writeToken)
                #expect(response.status == .ok)
            }
            // Waiting for the lock would take the busy timeout (20 s) for each.
            #expect(ContinuousClock.now - started < .seconds(15), "the token check waited for the lock")
        }
        await server.database.recordTokenUses()
        #expect(try server.database.tokens(userName: "collector").allSatisfy { $0.token.lastUsedAt == nil })
        try other.inDatabase { db in try db.execute(sql: "COMMIT") }
        await server.database.recordTokenUses()
        #expect(try server.database.tokens(userName: "collector").contains { $0.token.lastUsedAt != nil })
    }
}
