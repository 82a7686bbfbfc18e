@testable import CratedAPI
import CratedCore
import CratedTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// The web client's sign-in: passwords, the session cookie beside bearer tokens, CSRF on every
/// change made with the cookie, sign-out, and the slowing of failed sign-ins.
@Suite struct WebSessionTests {
    static let password = "correct horse battery"

    /// The sample server with a password for `collector` (bcrypt at the lowest cost: tests check the
    /// rules, not the work factor) and a throttle on a clock the test moves.
    struct Fixture {
        let server: TestServer
        let clock: TestClock
        let services: AppServices

        init(sessionDays: Int? = nil, throttle policy: SignInThrottle.Policy = .init(), trustedProxies: String = "",
             tokenExpiry: TokenExpiry? = nil, passwordChecks: PasswordCheckQueue? = nil) throws {
            server = try TestServer()
            try server.database.setPassword(userName: "collector", password: WebSessionTests.password, cost: 4)
            clock = TestClock()
            var services = server.services
            let clock = self.clock
            services.signInThrottle = SignInThrottle(policy: policy, now: { clock.now })
            services.trustedProxies = try TrustedProxies(parsing: trustedProxies)
            if let tokenExpiry { services.tokenExpiry = tokenExpiry }
            if let passwordChecks { services.passwordChecks = passwordChecks }
            if let sessionDays {
                var configuration = try CratedConfiguration.defaults()
                configuration.webSessionDays = sessionDays
                services.sessionLifetime = configuration.webSessionLifetime
            }
            self.services = services
        }

        /// In-process, or over a real connection from 127.0.0.1 (`live`), which gives the sign-in a
        /// peer address.
        func test(live: Bool = false, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
            var configuration = try CratedConfiguration.defaults()
            configuration.serverPort = 0
            // A live client connects before the body runs: under the suite's load its first request
            // may come after the default head and idle timeouts (see TestServer.makeApplication).
            configuration.serverHeadTimeoutSeconds = 300
            configuration.serverIdleTimeoutSeconds = 300
            var logger = Logger(label: "crated-web-tests")
            logger.logLevel = .critical
            try await buildApplication(configuration: configuration, services: services, logger: logger).test(live ? .live : .router, body)
        }
    }

    final class TestClock: Sendable {
        private let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    struct SignedIn {
        let cookie: String
        let csrf: String
        let setCookie: String
    }

    @Test func signingInSetsAStrictHttpOnlyCookieThatOpensTheAPI() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let session = try await client.signIn("collector", Self.password)
            #expect(session.setCookie.hasPrefix("crated_session="))
            let attributes = Set(session.setCookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes.contains("HttpOnly"))
            #expect(attributes.contains("SameSite=Strict"))
            #expect(attributes.contains("Path=/"))
            #expect(attributes.contains("Max-Age=2592000"))
            // Plain HTTP on loopback: a Secure cookie would never come back.
            #expect(!attributes.contains("Secure"))

            let me = try await client.web(.get, "/v1/me", cookie: session.cookie)
            #expect(me.status == .ok)
            #expect(me.headers[.cacheControl] == "private, no-cache")
            #expect(String(decoding: me.body, as: UTF8.self).contains("\"collector\""))
            let current = try await client.web(.get, "/v1/session", cookie: session.cookie)
            #expect(current.status == .ok)
            #expect(try current.decode(SessionDTO.self).csrfToken == session.csrf)
            #expect(try current.decode(SessionDTO.self).user.name == "collector")
            // Reads need no CSRF token.
            #expect(try await client.web(.get, "/v1/grid/collection?width=390&height=844", cookie: session.cookie).status == .ok)
        }
    }

    /// `web.sessionDays` sets the cookie's Max-Age and the session's expiry alike.
    @Test func theConfiguredLifetimeIsTheCookiesAndTheSessions() async throws {
        let fixture = try Fixture(sessionDays: 2)
        try await fixture.test { client in
            let signedInAt = Date()
            let session = try await client.signIn("collector", Self.password)
            #expect(session.setCookie.contains("; Max-Age=172800"))
            let current = try await client.web(.get, "/v1/session", cookie: session.cookie).decode(SessionDTO.self)
            let expires = try #require(ISO8601DateFormatter().date(from: current.expiresAt))
            #expect(abs(expires.timeIntervalSince(signedInAt) - 172_800) < 60)
        }
    }

    @Test func theCookieIsSecureBehindATLSProxy() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let response = try await client.web(.post, "/v1/session", json: #"{"name":"collector","password":"\#(Self.password)"}"#,
                                                headers: [.init("X-Forwarded-Proto")!: "https"])
            #expect(response.status == .created)
            #expect(response.headers[.setCookie]?.hasSuffix("; Secure") == true)
        }
    }

    @Test func aWrongPasswordAnUnknownUserAndAUserWithoutPasswordAreOneAnswer() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            for (name, password) in [("collector", "wrong password"), ("nobody", Self.password), ("alice", Self.password)] {
                let response = try await client.web(.post, "/v1/session", json: #"{"name":"\#(name)","password":"\#(password)"}"#)
                #expect(response.status == .unauthorized, "\(name)")
                #expect(response.error?.code == "sign_in_failed")
                #expect(response.headers[.setCookie] == nil)
            }
            // Names compare case-insensitively, as everywhere.
            #expect(try await client.signIn("COLLECTOR", Self.password).csrf.isEmpty == false)
        }
    }

    @Test func signInBodiesAreCheckedLikeEveryOther() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            #expect(try await client.web(.post, "/v1/session", json: #"{"name":"collector"}"#).status == .badRequest)
            let unknown = try await client.web(.post, "/v1/session", json: #"{"name":"collector","password":"x","remember":true}"#)
            #expect(unknown.error?.field == "remember")
            #expect(try await client.web(.post, "/v1/session", json: "[1]").status == .badRequest)
            let noName = try await client.web(.post, "/v1/session", json: #"{"name":"","password":"whatever1"}"#)
            #expect(noName.error?.field == "name")
            let noPassword = try await client.web(.post, "/v1/session", json: #"{"name":"collector","password":""}"#)
            #expect(noPassword.error?.field == "password")
        }
    }

    @Test func aChangeMadeWithTheCookieNeedsTheCSRFToken() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let session = try await client.signIn("collector", Self.password)
            let crates = try fixture.server.database.crates(userId: try #require(try fixture.server.database.user(named: "collector")?.id)).count

            let missing = try await client.web(.post, "/v1/crates", cookie: session.cookie, json: #"{"name":"Forged"}"#)
            #expect(missing.status == .forbidden)
            #expect(missing.error?.code == "csrf_failed")
            let wrong = try await client.web(.post, "/v1/crates", cookie: session.cookie, json: #"{"name":"Forged"}"#, csrf: session.csrf + "x")
            #expect(wrong.status == .forbidden)
            let otherSessions = try await client.signIn("collector", Self.password)
            #expect(try await client.web(.post, "/v1/crates", cookie: session.cookie, json: #"{"name":"Forged"}"#, csrf: otherSessions.csrf).status == .forbidden)
            #expect(try fixture.server.database.crates(userId: try #require(try fixture.server.database.user(named: "collector")?.id)).count == crates)

            let made = try await client.web(.post, "/v1/crates", cookie: session.cookie, json: #"{"name":"From the page"}"#, csrf: session.csrf)
            #expect(made.status == .created)
            // A player command is a change too.
            #expect(try await client.web(.post, "/v1/player/stop", cookie: session.cookie).status == .forbidden)
        }
    }

    @Test func aBearerTokenIsJudgedAloneEvenWithACookie() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let session = try await client.signIn("collector", Self.password)
            let response = try await client.web(.post, "/v1/crates", cookie: session.cookie, json: #"{"name":"By token"}"#,
                                                headers: [.authorization: "Bearer \(fixture.server.writeToken)"])
            #expect(response.status == .created)
            // A bad token is not rescued by a good cookie.
            let bad = try await client.web(.get, "/v1/me", cookie: session.cookie, headers: [.authorization: "Bearer crt_000000000000_nope"])
            #expect(bad.status == .unauthorized)
        }
    }

    @Test func signingOutEndsTheSessionAndTheCookieIsRefusedAfter() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let session = try await client.signIn("collector", Self.password)
            // Signing out is a change: without the token it is refused and the session lives on.
            #expect(try await client.web(.delete, "/v1/session", cookie: session.cookie).status == .forbidden)
            #expect(try await client.web(.get, "/v1/me", cookie: session.cookie).status == .ok)

            let out = try await client.web(.delete, "/v1/session", cookie: session.cookie, csrf: session.csrf)
            #expect(out.status == .noContent)
            #expect(out.headers[.setCookie]?.hasPrefix("crated_session=;") == true)
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)

            #expect(try await client.web(.get, "/v1/me", cookie: session.cookie).status == .unauthorized)
            #expect(try await client.web(.get, "/v1/session", cookie: session.cookie).status == .unauthorized)
            #expect(try await client.web(.post, "/v1/crates", cookie: session.cookie, json: #"{"name":"After"}"#, csrf: session.csrf).status == .unauthorized)
            // Nothing left to end: still 204.
            #expect(try await client.web(.delete, "/v1/session", cookie: session.cookie).status == .noContent)
            #expect(try fixture.server.database.activeSessionCount(userName: "collector") == 0)
        }
    }

    /// A session's use is noted on its token, as a bearer token's is: `crated token list` shows when
    /// it was last used, not "never".
    @Test func aSessionsUseIsRecordedOnItsToken() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let session = try await client.signIn("collector", Self.password)
            #expect(try await client.execute(uri: "/v1/me", method: .get, headers: [.cookie: session.cookie]) { $0.status } == .ok)
        }
        await fixture.server.database.recordTokenUses()
        let sessions = try fixture.server.database.tokens(userName: "collector").filter { $0.token.label == AppDatabase.sessionTokenLabel }
        #expect(sessions.count == 1)
        #expect(sessions.allSatisfy { $0.token.lastUsedAt != nil })
    }

    @Test func cookiesThatOpenNothing() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            for cookie in ["crated_session=", "crated_session=nonsense", "crated_session=" + String(repeating: "A", count: 43), "other=1"] {
                #expect(try await client.execute(uri: "/v1/me", method: .get, headers: [.cookie: cookie]) { $0.status } == .unauthorized, "\(cookie)")
            }
            // The cookie is found among others.
            let session = try await client.signIn("collector", Self.password)
            #expect(try await client.execute(uri: "/v1/me", method: .get, headers: [.cookie: "a=b; \(session.cookie); c=d"]) { $0.status } == .ok)
        }
    }

    @Test func failedSignInsAreSlowedPerUser() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let wrong = #"{"name":"collector","password":"wrong password"}"#
            // Five free failures, then the sixth shuts the name out for a second.
            for attempt in 1...6 {
                #expect(try await client.web(.post, "/v1/session", json: wrong).status == .unauthorized, "attempt \(attempt)")
            }
            let refused = try await client.web(.post, "/v1/session", json: #"{"name":"collector","password":"\#(Self.password)"}"#)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.error?.code == "too_many_attempts")
            #expect(refused.headers[.retryAfter] == "1")
            // Another user is not shut out by them.
            try fixture.server.database.setPassword(userName: "alice", password: "alice's password", cost: 4)
            #expect(try await client.web(.post, "/v1/session", json: #"{"name":"alice","password":"alice's password"}"#).status == .created)

            fixture.clock.advance(1.5)
            // The next failure doubles the wait.
            #expect(try await client.web(.post, "/v1/session", json: wrong).status == .unauthorized)
            let doubled = try await client.web(.post, "/v1/session", json: wrong)
            #expect(doubled.headers[.retryAfter] == "2")
            fixture.clock.advance(2.5)
            #expect(try await client.signIn("collector", Self.password).csrf.isEmpty == false)
            // A success forgives: five free failures again.
            for _ in 1...5 { #expect(try await client.web(.post, "/v1/session", json: wrong).status == .unauthorized) }
        }
    }

    /// A sign-in refused because too many wait for their passwords to be checked was never tried:
    /// it does not count against its user, who could otherwise be shut out by retrying in a flood.
    @Test func signInsRefusedForAFullQueueCostTheirUserNothing() async throws {
        let queue = PasswordCheckQueue(maximumWaiting: 0)
        let fixture = try Fixture(passwordChecks: queue)
        try await fixture.test { client in
            #expect(await queue.enter(), "another check holds the turn")
            for attempt in 1...8 {
                let refused = try await client.web(.post, "/v1/session", json: #"{"name":"collector","password":"wrong password"}"#)
                #expect(refused.status == .tooManyRequests && refused.error?.message.contains("waiting to be checked") == true, "attempt \(attempt)")
            }
            await queue.leave()
            #expect(try await client.signIn("collector", Self.password).csrf.isEmpty == false)
        }
    }

    /// Behind a reverse proxy every sign-in comes from the proxy's address. Listed in
    /// `server.trustedProxies`, the proxy's `X-Forwarded-For` names the client, so one guesser's
    /// failures shut out that guesser's address, not everyone's; from anyone else the header is
    /// not believed.
    @Test(arguments: [true, false]) func theThrottleCountsTheClientBehindATrustedProxy(trusted: Bool) async throws {
        var policy = SignInThrottle.Policy()
        policy.freeFailuresPerAddress = 3
        // Untrusted: a list that holds a proxy, not the peer.
        let fixture = try Fixture(throttle: policy, trustedProxies: trusted ? "127.0.0.1, ::1" : "192.168.1.2")
        // Users with cheap hashes: a name no one has costs a full-cost bcrypt check, slow under load.
        for name in ["a", "b", "c", "d"] {
            _ = try fixture.server.database.addUser(named: name)
            try fixture.server.database.setPassword(userName: name, password: WebSessionTests.password, cost: 4)
        }
        try await fixture.test(live: true) { client in
            func signIn(_ name: String, password: String = "wrong password", from address: String) async throws -> APIResponse {
                try await client.web(.post, "/v1/session", json: #"{"name":"\#(name)","password":"\#(password)"}"#,
                                     headers: [.xForwardedFor: "\(address), 127.0.0.1"])
            }
            // A guesser tries four names: the fourth attempt shuts the guesser's address out.
            for name in ["a", "b", "c", "d"] { #expect(try await signIn(name, from: "203.0.113.66").status == .unauthorized) }
            #expect(try await signIn("e", from: "203.0.113.66").status == .tooManyRequests)
            // The collector signs in from home through the same proxy.
            let collector = try await signIn("collector", password: WebSessionTests.password, from: "198.51.100.7")
            #expect(collector.status == (trusted ? .created : .tooManyRequests), "\(collector.status)")
        }
    }

    /// Every spelling that signs in as one user counts against that user.
    @Test func theThrottleCountsOneUserAcrossSpellings() {
        var policy = SignInThrottle.Policy()
        policy.freeFailuresPerUser = 2
        let throttle = SignInThrottle(policy: policy, now: { Date(timeIntervalSince1970: 1_800_000_000) })
        for spelling in ["Jürgen", "JÜRGEN", "Ju\u{308}rgen"] { #expect(throttle.admit(user: spelling, address: nil) == nil, "\(spelling)") }
        #expect(throttle.admit(user: " jürgen ", address: nil) == 1)
        #expect(throttle.admit(user: "Jurgen", address: nil) == nil)
    }

    /// A flood of new names or addresses fills the throttle's table: what it forgets to make room is
    /// counts below their free attempts, never a block.
    @Test func aFullThrottleKeepsItsBlocks() {
        var policy = SignInThrottle.Policy()
        policy.freeFailuresPerUser = 1
        policy.freeFailuresPerAddress = 1000
        policy.maximumEntries = 10
        let throttle = SignInThrottle(policy: policy, now: { Date(timeIntervalSince1970: 1_800_000_000) })
        #expect(throttle.admit(user: "alice", address: nil) == nil)
        #expect(throttle.admit(user: "alice", address: nil) == nil)
        #expect(throttle.admit(user: "alice", address: nil) == 1, "shut out")
        for index in 0..<50 { _ = throttle.admit(user: "guess-\(index)", address: nil) }
        #expect(throttle.admit(user: "alice", address: nil) == 1, "still shut out after the flood")
    }

    @Test func theThrottleCountsAddressesAcrossNames() {
        let clock = TestClock()
        var policy = SignInThrottle.Policy()
        policy.freeFailuresPerAddress = 3
        let throttle = SignInThrottle(policy: policy, now: { clock.now })
        for name in ["a", "b", "c"] { #expect(throttle.admit(user: name, address: "192.0.2.1") == nil) }
        // The fourth is let in, and shuts the address out for a second.
        #expect(throttle.admit(user: "d", address: "192.0.2.1") == nil)
        #expect(throttle.admit(user: "e", address: "192.0.2.1") == 1)
        #expect(throttle.admit(user: "e", address: "192.0.2.2") == nil)
        // A success forgives the name, not the address: signing in to one's own account does not
        // reset the count of guesses at others' from there.
        throttle.recordSuccess(user: "d", address: "192.0.2.1")
        #expect(throttle.admit(user: "x", address: "192.0.2.1") != nil)
        // Forgotten an hour after the last attempt.
        clock.advance(3601)
        #expect(throttle.admit(user: "f", address: "192.0.2.1") == nil)
        #expect(throttle.admit(user: "g", address: "192.0.2.1") == nil)
        // The wait stops doubling at five minutes.
        for attempt in 0..<40 {
            if attempt > 0 { clock.advance(300) }
            #expect(throttle.admit(user: "h", address: nil) == nil)
        }
        #expect(throttle.admit(user: "h", address: nil) == 300)
    }

    /// Guesses sent all at once are counted as they are let in, not once each has failed: of twenty
    /// at once, the five free ones and the one that starts the wait are checked, the rest refused.
    @Test func guessesSentAtOnceAreCountedAsTheyAreLetIn() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for attempt in 0..<20 {
                    group.addTask { try await client.web(.post, "/v1/session", json: #"{"name":"collector","password":"guess \#(attempt)"}"#).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count == 6)
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 14)
        }
    }

    @Test func passwordRules() throws {
        let server = try TestServer()
        let database = server.database
        #expect(throws: PasswordError.tooShort) { try database.setPassword(userName: "collector", password: "seven77", cost: 4) }
        #expect(throws: PasswordError.tooLong) { try database.setPassword(userName: "collector", password: String(repeating: "é", count: 37), cost: 4) }
        #expect(throws: PasswordError.controlCharacters) { try database.setPassword(userName: "collector", password: "tab\there ok", cost: 4) }
        #expect(throws: PasswordError.onlySpaces) { try database.setPassword(userName: "collector", password: "          ", cost: 4) }
        #expect(throws: UserError.notFound("nobody")) { try database.setPassword(userName: "nobody", password: "long enough", cost: 4) }
        #expect(try !database.hasPassword(userName: "collector"))
        // 72 bytes is bcrypt's whole input: allowed, and every byte counts.
        let longest = String(repeating: "x", count: 71) + "y"
        try database.setPassword(userName: "collector", password: longest, cost: 4)
        #expect(try database.hasPassword(userName: "collector"))
        #expect(try database.verifyPassword(userName: "collector", password: longest)?.name == "collector")
        #expect(try database.verifyPassword(userName: "collector", password: String(repeating: "x", count: 72)) == nil)
        // Stored as bcrypt, never as the password.
        let stored = try database.reader.read { db in try String.fetchOne(db, sql: "SELECT hash FROM user_password") }
        #expect(stored?.hasPrefix("$2") == true)
        #expect(stored?.contains(longest) == false)
    }

    @Test func aNewPasswordEndsTheUsersSessions() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let session = try await client.signIn("collector", Self.password)
            try fixture.server.database.setPassword(userName: "collector", password: "a brand new one", cost: 4)
            #expect(try await client.web(.get, "/v1/me", cookie: session.cookie).status == .unauthorized)
        }
    }

    /// A body that is not `application/json` signs no one in: a form on another site posts
    /// `text/plain` that reads as JSON without a CORS preflight (login CSRF).
    @Test func aSignInThatIsNotJSONIsRefused() async throws {
        let fixture = try Fixture()
        try await fixture.test { client in
            let body = #"{"name":"collector","password":"\#(Self.password)"}"#
            for contentType in ["text/plain", "application/x-www-form-urlencoded", nil] as [String?] {
                var headers = HTTPFields()
                if let contentType { headers[.contentType] = contentType }
                let response = try await client.execute(uri: "/v1/session", method: .post, headers: headers, body: ByteBuffer(string: body)) {
                    APIResponse(status: $0.status, headers: $0.headers, body: Data(buffer: $0.body))
                }
                #expect(response.status == .unsupportedMediaType, "\(contentType ?? "none")")
                #expect(response.headers[.setCookie] == nil)
            }
            #expect(try await client.signIn("collector", Self.password).cookie.isEmpty == false)
        }
    }

    @Test func sessionsExpireAndEndWithTheirToken() async throws {
        let server = try TestServer()
        let database = server.database
        let userId = try #require(try database.user(named: "collector")?.id)
        let old = try await database.createSession(userId: userId, lifetime: 3600, now: Date().addingTimeInterval(-3660))
        #expect(try database.authenticate(sessionSecret: old.secret) == nil)
        // Its token no longer counts as active either: an event stream it opened ends.
        let oldToken = try #require(try database.read { db in try Int64.fetchOne(db, sql: "SELECT token_id FROM web_session ORDER BY id DESC") })
        #expect(try !database.isTokenActive(id: oldToken))

        let live = try await database.createSession(userId: userId, lifetime: 3600)
        let principal = try #require(try database.authenticate(sessionSecret: live.secret))
        #expect(principal.principal.userName == "collector")
        #expect(principal.principal.scope == .write)
        #expect(try database.isTokenActive(id: principal.principal.tokenId))
        // A new session cleared the expired one's token row.
        #expect(try database.tokens(userName: "collector").filter { $0.token.label == AppDatabase.sessionTokenLabel }.count == 1)
        // `crated token revoke` on the session's token ends the session.
        _ = try database.revokeToken(try #require(database.tokens(userName: "collector").first { $0.token.label == AppDatabase.sessionTokenLabel }).token.tokenPrefix)
        #expect(try database.authenticate(sessionSecret: live.secret) == nil)
    }
}

extension TestClientProtocol {
    /// One request as the web page makes it: the session cookie, the CSRF token, a JSON body.
    func web(_ method: HTTPRequest.Method, _ uri: String, cookie: String? = nil, json: String? = nil, csrf: String? = nil,
             headers extra: HTTPFields = [:]) async throws -> APIResponse {
        var headers = extra
        if let cookie { headers[.cookie] = cookie }
        if let csrf { headers[SessionCookie.csrfHeader] = csrf }
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            APIResponse(status: response.status, headers: response.headers, body: Data(buffer: response.body))
        }
    }

    func signIn(_ name: String, _ password: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> WebSessionTests.SignedIn {
        let response = try await web(.post, "/v1/session", json: #"{"name":"\#(name)","password":"\#(password)"}"#)
        #expect(response.status == .created, "\(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        let setCookie = try #require(response.headers[.setCookie], sourceLocation: sourceLocation)
        let cookie = String(setCookie.prefix { $0 != ";" })
        return WebSessionTests.SignedIn(cookie: cookie, csrf: try response.decode(SessionDTO.self).csrfToken, setCookie: setCookie)
    }
}

/// Password checks run one at a time, a few waiting their turn; more are refused at once.
@Suite struct PasswordCheckQueueTests {
    @Test func checksTakeTurnsAndTooManyWaitingAreRefused() async throws {
        let queue = PasswordCheckQueue(maximumWaiting: 1)
        #expect(await queue.enter())
        let second = Task { await queue.enter() }
        try await waitUntil("the second check to wait") { await queue.waitingCount > 0 }
        #expect(await queue.enter() == false, "a second one waits already")
        await queue.leave()
        #expect(await second.value, "the one waiting goes next")
        await queue.leave()
        #expect(await queue.enter(), "free again")
    }
}
