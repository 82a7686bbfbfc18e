@testable import CratedAPI
import CratedCore
import CratedTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// An app's sign-in: a user name and password for an API token (`POST /v1/tokens`), and its
/// sign-out (`DELETE /v1/tokens/current`).
@Suite struct AppSignInTests {
    typealias Fixture = WebSessionTests.Fixture
    static let password = WebSessionTests.password

    func signIn(_ client: any TestClientProtocol, _ body: String) async throws -> APIResponse {
        try await client.web(.post, "/v1/tokens", json: body)
    }

    @Test func aPasswordBuysATokenThatOpensTheAPIUntilTheAppSignsOut() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let response = try await signIn(client, #"{"name":"Collector","password":"\#(Self.password)","label":"  Ann's iPhone "}"#)
            #expect(response.status == .created)
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.setCookie] == nil)
            let issued = try response.decode(IssuedTokenDTO.self)
            #expect(issued.token.hasPrefix("crt_") && issued.scope == "write" && issued.label == "Ann's iPhone" && issued.user.name == "collector")
            // crated keeps it as any other token: listed with its label, for its user.
            let listed = try fixture.server.database.tokens(userName: "collector").map(\.token)
            #expect(listed.contains { $0.label == "Ann's iPhone" && $0.scope == .write && $0.revokedAt == nil })

            #expect(try await client.call(.get, "/v1/me", token: issued.token).status == .ok)
            #expect(try await client.call(.post, "/v1/crates", token: issued.token, json: #"{"name":"From the app"}"#).status == .created)

            // Signing out revokes this token alone.
            #expect(try await client.call(.delete, "/v1/tokens/current", token: issued.token).status == .noContent)
            #expect(try await client.call(.get, "/v1/me", token: issued.token).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me", token: fixture.server.writeToken).status == .ok)
        }
    }

    @Test func aReadScopeTokenReadsAndMaySignItselfOut() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let response = try await signIn(client, #"{"name":"collector","password":"\#(Self.password)","scope":"read"}"#)
            let issued = try response.decode(IssuedTokenDTO.self)
            #expect(issued.scope == "read" && issued.label == "signed in from an app")
            // A device named with emoji joined by zero-width joiners signs in.
            let emoji = try await signIn(client, #"{"name":"collector","password":"\#(Self.password)","label":"Dev \#u{1F468}\#u{200D}\#u{1F4BB} iPad"}"#)
            #expect(try emoji.decode(IssuedTokenDTO.self).label == "Dev \u{1F468}\u{200D}\u{1F4BB} iPad")
            #expect(try await client.call(.get, "/v1/me", token: issued.token).status == .ok)
            #expect(try await client.call(.post, "/v1/crates", token: issued.token, json: #"{"name":"No"}"#).status == .forbidden)
            #expect(try await client.call(.delete, "/v1/crates/1", token: issued.token).status == .forbidden)
            #expect(try await client.call(.delete, "/v1/tokens/current", token: issued.token).status == .noContent)
            #expect(try await client.call(.get, "/v1/me", token: issued.token).status == .unauthorized)
        }
    }

    @Test func failuresAreOneAnswerAndCountWithTheWebSignIns() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            for (name, password) in [("collector", "wrong password"), ("nobody", Self.password), ("alice", Self.password)] {
                let response = try await signIn(client, #"{"name":"\#(name)","password":"\#(password)"}"#)
                #expect(response.status == .unauthorized && response.error?.code == "sign_in_failed", "\(name)")
            }
            // Three failures here and three on the web client's sign-in: the name is shut out of both.
            let wrong = #"{"name":"collector","password":"wrong password"}"#
            for _ in 1...2 { #expect(try await signIn(client, wrong).status == .unauthorized) }
            for _ in 1...3 { #expect(try await client.web(.post, "/v1/session", json: wrong).status == .unauthorized) }
            let refused = try await signIn(client, #"{"name":"collector","password":"\#(Self.password)"}"#)
            #expect(refused.status == .tooManyRequests && refused.headers[.retryAfter] == "1")
            #expect(try await client.web(.post, "/v1/session", json: #"{"name":"collector","password":"\#(Self.password)"}"#).status == .tooManyRequests)
            fixture.clock.advance(1.5)
            #expect(try await signIn(client, #"{"name":"collector","password":"\#(Self.password)"}"#).status == .created)
        }
    }

    /// Refused bodies cost no bcrypt check and count as no failed sign-in: the throttle lets the
    /// right password in after all of them.
    @Test func badBodiesAreRefusedBeforeThePasswordIsChecked() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let tokensBefore = try fixture.server.database.tokens(userName: "collector").count
            let good = #""name":"collector","password":"\#(Self.password)""#
            for (body, field) in [
                (#"{\#(good),"label":""}"#, "label"),
                (#"{\#(good),"label":"two\nlines"}"#, "label"),
                // What `crated token list` would print as a terminal escape, or a right-to-left override.
                (#"{\#(good),"label":"\u001b[31mred"}"#, "label"),
                (#"{\#(good),"label":"phone\u202egnp.exe"}"#, "label"),
                (#"{\#(good),"label":"\#(String(repeating: "x", count: 101))"}"#, "label"),
                (#"{\#(good),"scope":"admin"}"#, "scope"),
                (#"{"name":"","password":"x"}"#, "name"),
                (#"{"name":"collector","password":""}"#, "password"),
            ] {
                let response = try await signIn(client, body)
                #expect(response.status == .unprocessableContent && response.error?.field == field, "\(body)")
            }
            #expect(try await signIn(client, #"{\#(good),"remember":true}"#).error?.field == "remember")
            #expect(try await signIn(client, #"{"name":"collector"}"#).status == .badRequest)
            let form = try await client.web(.post, "/v1/tokens", json: nil, headers: [.contentType: "text/plain"])
            #expect(form.status == .unsupportedMediaType)
            // None of these made a token, nor counted against the name.
            #expect(try fixture.server.database.tokens(userName: "collector").count == tokensBefore)
            #expect(try await signIn(client, #"{\#(good)}"#).status == .created)
        }
    }

    /// A web session has no token of its own: it signs out with `DELETE /v1/session`.
    @Test func aWebSessionHasNoTokenToRevoke() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let session = try await client.signIn("collector", Self.password)
            let response = try await client.web(.delete, "/v1/tokens/current", cookie: session.cookie, csrf: session.csrf)
            #expect(response.status == .badRequest && response.error?.message.contains("DELETE /v1/session") == true)
            #expect(try await client.web(.get, "/v1/me", cookie: session.cookie).status == .ok)
            // A change made with the cookie needs its CSRF token, here as anywhere.
            let forged = try await client.web(.delete, "/v1/tokens/current", cookie: session.cookie)
            #expect(forged.status == .forbidden && forged.error?.code == "csrf_failed")
            #expect(try await client.call(.delete, "/v1/tokens/current", token: nil).status == .unauthorized)
        }
    }

    /// A new password signs the apps out, as it does the browsers; tokens made on the command line stay.
    @Test func aNewPasswordRevokesTheTokensAppsSignedInFor() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let issued = try await signIn(client, #"{"name":"collector","password":"\#(Self.password)"}"#).decode(IssuedTokenDTO.self)
            #expect(try await client.call(.get, "/v1/me", token: issued.token).status == .ok)
            try fixture.server.database.setPassword(userName: "collector", password: "a new password", cost: 4)
            #expect(try await client.call(.get, "/v1/me", token: issued.token).status == .unauthorized)
            #expect(try await client.call(.get, "/v1/me", token: fixture.server.writeToken).status == .ok)
            let listed = try #require(try fixture.server.database.tokens(userName: "collector").map(\.token).first { $0.fromSignIn })
            #expect(listed.revokedAt != nil, "listed as revoked, as crated token revoke leaves it")
        }
    }
}
