@testable import CratedAPI
import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

/// Tokens that stop by themselves: one made to expire on a date, and an app's sign-in once it has
/// gone unused for `tokens.signInIdleDays`; a token in use, or made without a date, never does.
@Suite struct TokenExpiryTests {
    typealias Fixture = WebSessionTests.Fixture
    static let day: TimeInterval = 24 * 3600

    func signIn(_ client: any TestClientProtocol, unusedDaysUntilExpiry: Int? = 180) async throws -> String {
        let response = try await client.web(.post, "/v1/tokens", json: #"{"name":"collector","password":"\#(WebSessionTests.password)","label":"phone"}"#)
        #expect(response.status == .created)
        let issued = try response.decode(IssuedTokenDTO.self)
        #expect(issued.unusedDaysUntilExpiry == unusedDaysUntilExpiry, "the app is told when its token stops")
        return issued.token
    }

    /// Moves a token's times back, as if it had been made or last used `days` ago.
    func age(_ database: AppDatabase, token: String, lastUsedDaysAgo days: Double?, expiresDaysAgo: Double? = nil) throws {
        let prefix = String(token.dropFirst(4).prefix(12))
        let ago = { (days: Double) in Timestamp.string(from: Date().addingTimeInterval(-days * Self.day)) }
        try database.writer.write { db in
            try db.execute(sql: "UPDATE api_token SET created_at = ?, last_used_at = ? WHERE token_prefix = ?",
                           arguments: [ago(400), days.map(ago), prefix])
            if let expiresDaysAgo {
                try db.execute(sql: "UPDATE api_token SET expires_at = ? WHERE token_prefix = ?", arguments: [ago(expiresDaysAgo), prefix])
            }
        }
    }

    @Test func anAppsSignInStopsOnceUnusedForTheIdleDays() async throws {
        let fixture = try Fixture()
        #expect(fixture.services.tokenExpiry.signInIdleLimit == 180 * Self.day, "the default, tokens.signInIdleDays")
        let database = fixture.server.database
        try await fixture.test { client in
            let used = try await signIn(client)
            let idle = try await signIn(client)
            let neverUsed = try await signIn(client)
            try age(database, token: used, lastUsedDaysAgo: 179)
            try age(database, token: idle, lastUsedDaysAgo: 181)
            // Counted from its making when it was never used.
            try age(database, token: neverUsed, lastUsedDaysAgo: nil)
            #expect(try await client.call(.get, "/v1/me", token: used).status == .ok)
            for token in [idle, neverUsed] {
                let refused = try await client.call(.get, "/v1/me", token: token)
                #expect(refused.status == .unauthorized)
                #expect(refused.error?.code == "token_expired")
                #expect(refused.headers[.wwwAuthenticate] == "Bearer realm=\"crated\", error=\"invalid_token\"")
                #expect(refused.error?.message.contains("expired") == true && refused.error?.message.contains("sign in again") == true,
                        "\(refused.error?.message ?? "")")
            }
            // A token made by the operator does not stop for going unused.
            try age(database, token: fixture.server.writeToken, lastUsedDaysAgo: 1000)
            #expect(try await client.call(.get, "/v1/me", token: fixture.server.writeToken).status == .ok)
        }
    }

    @Test func withNoIdleDaysAnAppsSignInLastsUntilRevoked() async throws {
        var configuration = try await CratedConfiguration.load(environment: ["CRATED_TOKENS_SIGN_IN_IDLE_DAYS": "0"])
        #expect(configuration.tokenExpiry.signInIdleLimit == nil)
        configuration.tokensSignInIdleDays = 2
        #expect(configuration.tokenExpiry.signInIdleLimit == 2 * Self.day)
        let fixture = try Fixture(tokenExpiry: .byDateOnly)
        let database = fixture.server.database
        try await fixture.test { client in
            let token = try await signIn(client, unusedDaysUntilExpiry: nil)
            try age(database, token: token, lastUsedDaysAgo: 3000)
            #expect(try await client.call(.get, "/v1/me", token: token).status == .ok)
        }
    }

    /// A token made to expire (`crated token create --expires-in-days`) opens the API until then,
    /// and an event stream open on it ends when it expires.
    @Test func aTokenWithAnExpiryDateStopsThen() async throws {
        let server = try TestServer()
        let lasting = try server.database.createToken(userName: "collector", scope: .write, label: "a week", expiresAt: Date().addingTimeInterval(7 * Self.day))
        let past = try server.database.createToken(userName: "collector", scope: .write, label: "gone", expiresAt: Date().addingTimeInterval(7 * Self.day))
        try age(server.database, token: past.token, lastUsedDaysAgo: nil, expiresDaysAgo: 1)
        #expect(try server.database.isTokenActive(id: lasting.record.id!))
        #expect(try !server.database.isTokenActive(id: past.record.id!))
        #expect(try !server.database.isTokenActive(id: lasting.record.id!, now: Date().addingTimeInterval(8 * Self.day)))
        #expect(throws: TokenError.self) {
            try server.database.authenticate(bearer: lasting.token, now: Date().addingTimeInterval(8 * Self.day))
        }
        try await server.test { client in
            #expect(try await client.call(.get, "/v1/me", token: lasting.token).status == .ok)
            let refused = try await client.call(.get, "/v1/me", token: past.token)
            #expect(refused.status == .unauthorized && refused.error?.code == "token_expired")
            #expect(refused.error?.message.contains("expired at 20") == true, "\(refused.error?.message ?? "")")
            // /metrics, which takes any API token, takes no expired one.
            #expect(try await client.call(.get, "/metrics", token: past.token).status == .unauthorized)
            #expect(try await client.call(.get, "/metrics", token: lasting.token).status == .ok)
        }
    }

    /// An app's sign-in gone unused past the idle days is given that moment as its expiry date (at
    /// the daemon's start and hourly), so raising or turning off the setting later does not bring a
    /// lost phone's token back; one still in use, and an operator's, are left as they are.
    @Test func anIdleSignInStaysStoppedWhenTheSettingIsRaised() async throws {
        let fixture = try Fixture()
        let database = fixture.server.database
        try await fixture.test { client in
            let idle = try await signIn(client)
            let used = try await signIn(client)
            try age(database, token: idle, lastUsedDaysAgo: 181)
            try age(database, token: used, lastUsedDaysAgo: 10)
            try age(database, token: fixture.server.writeToken, lastUsedDaysAgo: 1000)
            #expect(try await database.settleIdleSignInTokens(expiry: fixture.services.tokenExpiry) == 1)
            #expect(try await database.settleIdleSignInTokens(expiry: fixture.services.tokenExpiry) == 0, "once")
            let stored = try database.tokens(userName: "collector").map(\.token)
            let pinned = try #require(stored.first { idle.contains($0.tokenPrefix) })
            let lastUsed = try #require(pinned.lastUsedAt.flatMap(Timestamp.date(from:)))
            #expect(pinned.expiresAt == Timestamp.string(from: lastUsed.addingTimeInterval(180 * Self.day)))
            #expect(stored.first { used.contains($0.tokenPrefix) }?.expiresAt == nil)
            #expect(stored.first { fixture.server.writeToken.contains($0.tokenPrefix) }?.expiresAt == nil)
            // With the setting turned off, the stopped token stays stopped; the other works.
            #expect(throws: TokenError.self) { try database.authenticate(bearer: idle, expiry: .byDateOnly) }
            #expect(try database.authenticate(bearer: used, expiry: .byDateOnly) != nil)
            #expect(try await client.call(.get, "/v1/me", token: idle).status == .unauthorized)
        }
    }

    /// An event stream open on a token is a use of it: its checks note one, which the recorder writes.
    @Test func aStreamOpenOnATokenUsesIt() async throws {
        let server = try TestServer()
        let created = try server.database.createToken(userName: "collector", scope: .read, label: "turntable display")
        #expect(try server.database.isTokenActive(id: created.record.id!))
        await server.database.recordTokenUses()
        #expect(try server.database.tokens(userName: "collector").first { $0.token.id == created.record.id }?.token.lastUsedAt != nil)
    }
}
