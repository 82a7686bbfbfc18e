@testable import CratedSync
import CratedTestSupport
import CratedCore
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// The Discogs client over real HTTP: headers, retries, backoff and the rate limiter. Waits run on
/// a virtual clock, so every one of them is asserted exactly and costs no time.
@Suite struct DiscogsClientTests {
    @Test func sendsUserAgentAndTheTokenOnlyInTheAuthorizationHeader() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(42, json: syntheticRelease(id: 42))
            let withToken = try h.client(token: "s3cret-token")
            _ = try await withToken.release(id: 42)
            let authorised = try #require(h.fake.requests.last)
            #expect(authorised.headers["authorization"] == "Discogs token=s3cret-token")
            #expect(authorised.headers["user-agent"] == "crated/test +https://example.invalid/crated")
            #expect(authorised.target == "/releases/42")

            let anonymous = try DiscogsClient(
                settings: DiscogsClientSettings(baseURL: h.fake.baseURL + "/", token: "", userAgent: "crated/test", requestsPerMinute: 25),
                transport: CurlHTTPTransport(), rateLimiters: RateLimiterRegistry(), clock: h.clock)
            _ = try await anonymous.release(id: 42)
            #expect(h.fake.requests.last?.headers["authorization"] == nil)
            #expect(h.fake.requests.last?.target == "/releases/42")
        }
    }

    @Test func theTokenNeverAppearsInLogsOrErrors() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([5, 6, 7])
            h.fake.serveRelease(5, json: syntheticRelease(id: 5))
            h.fake.inject(.status(500), .status(500), .status(500), .status(500), on: "/releases/6")
            h.fake.inject(.malformedJSON, on: "/releases/7")
            let runner = try h.runner(client: h.client(token: "s3cret-token"))

            let report = try await runner.runPass()

            #expect(report.synced == 1 && report.failed == 2)
            #expect(!h.logs.all.isEmpty)
            #expect(h.logs.all.allSatisfy { !$0.contains("s3cret") })
            #expect(report.failures.allSatisfy { !$0.error.contains("s3cret") })
            let stored = try await h.database.reader.read { db in try AlbumSyncState.fetchAll(db) }
            #expect(stored.allSatisfy { !($0.lastError ?? "").contains("s3cret") })
        }
    }

    @Test func a429WithRetryAfterWaitsExactlyThatLongThenSucceeds() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(.status(429, retryAfter: "7"), on: "/releases/1")
            let client = try h.client()

            guard case .updated(let release, _) = try await client.release(id: 1) else {
                Issue.record("expected the release")
                return
            }
            #expect(release.title == "Release 1")
            #expect(h.fake.requests.count == 2)
            #expect(h.clock.sleeps == [.seconds(7)])
            #expect(h.fake.requests[1].at - h.fake.requests[0].at == .seconds(7))
        }
    }

    @Test func a429WithoutRetryAfterBacksOffExponentiallyWithJitter() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(.status(429), .status(429), .status(429), on: "/releases/1")
            // Jitter 0.5 scales each wait by 0.75: 2 s, 4 s, 8 s become 1.5 s, 3 s, 6 s.
            let client = try h.client(retry: RetryPolicy(maxAttempts: 5, initialBackoff: .seconds(2)), jitter: { 0.5 })

            _ = try await client.release(id: 1)

            #expect(h.fake.requests.count == 4)
            #expect(h.clock.sleeps == [.milliseconds(1500), .seconds(3), .seconds(6)])
        }
    }

    /// A 429 on a request's last attempt still pauses the host: the next request waits it out.
    @Test func a429OnTheLastAttemptPausesTheHostForTheNextRequest() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(2, json: syntheticRelease(id: 2))
            h.fake.inject(.status(429, retryAfter: "5"), .status(429, retryAfter: "5"), on: "/releases/1")
            let client = try h.client(retry: RetryPolicy(maxAttempts: 2))

            await #expect(throws: DiscogsError.self) { try await client.release(id: 1) }
            _ = try await client.release(id: 2)

            #expect(h.fake.requests.map(\.target) == ["/releases/1", "/releases/1", "/releases/2"])
            #expect(h.fake.requests[2].at - h.fake.requests[1].at == .seconds(5))
        }
    }

    @Test func backoffStaysWithinItsJitterBoundsAndCap() {
        let policy = RetryPolicy(maxAttempts: 10, initialBackoff: .seconds(2), maxBackoff: .seconds(60))
        for attempt in 1...8 {
            let full = min(Duration.seconds(2) * (1 << (attempt - 1)), .seconds(60))
            for jitter in [0.0, 0.3, 0.999] {
                let wait = policy.backoff(afterAttempt: attempt, jitter: jitter)
                #expect(wait >= full / 2 && wait < full, "attempt \(attempt), jitter \(jitter): \(wait)")
            }
        }
    }

    @Test func a503WithAnHTTPDateRetryAfterWaitsUntilThatDate() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            h.fake.inject(.status(503, retryAfter: formatter.string(from: h.clock.date.addingTimeInterval(30))), on: "/releases/1")

            _ = try await h.client().release(id: 1)

            #expect(h.clock.sleeps == [.seconds(30)])
        }
    }

    /// A `Retry-After` no host means (a proxy's broken header) is taken as a day at most: a wait of
    /// `Int.max` seconds overflowed the pass's log line and the album's next attempt time.
    @Test func anAbsurdRetryAfterIsADayAtMost() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([3])
            h.fake.serveRelease(3, json: syntheticRelease(id: 3))
            h.fake.inject(.status(429, retryAfter: "9223372036854775807"), on: "/releases/3")

            let report = try await h.runner().runPass()

            #expect(report.failed == 1)
            #expect(report.failures.first?.error == "rate limited by Discogs (asked to wait 86400 s)")
            #expect(try h.syncState(release: 3)?.nextAttemptAt == Timestamp.string(from: h.clock.date.addingTimeInterval(86_400)))
        }
        let farDate = RetryAfter.wait("Fri, 31 Dec 9999 23:59:59 GMT", now: Date(timeIntervalSince1970: 0))
        #expect(farDate == RetryAfter.longest)
    }

    /// A Discogs user name of dots asks for that user, escaped, not for the path the dots would
    /// remove (`/users/../collection/folders` is `/collection/folders` once libcurl has read it).
    @Test func aUserNameOfDotsStaysInItsSegment() async throws {
        try await SyncHarness.run { h in
            let client = try h.client()
            for name in ["..", "."] {
                await #expect(throws: DiscogsError.notFound) { _ = try await client.collection(user: name) }
            }
            #expect(h.fake.requests.map(\.path) == ["/users/%2E%2E/collection/folders", "/users/%2E/collection/folders"])
        }
    }

    @Test func aRetryAfterBeyondThePolicyFailsAtOnce() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(.status(429, retryAfter: "3600"), on: "/releases/1")

            let client = try h.client(retry: RetryPolicy(maxRetryAfter: .seconds(600)))
            await #expect(throws: DiscogsError.rateLimited(retryAfter: .seconds(3600))) { try await client.release(id: 1) }
            #expect(h.fake.requests.count == 1)
            #expect(h.clock.sleeps.isEmpty)

            // Not waited out, but kept: every request to the host waits for it, so the next one fails
            // without being sent, and `GET /v1/sync` shows the pause.
            h.fake.serveRelease(2, json: syntheticRelease(id: 2))
            await #expect(throws: DiscogsError.hostPaused(.seconds(3600))) { try await client.release(id: 2) }
            #expect(h.fake.requests.count == 1)
            #expect(h.clock.sleeps.isEmpty)
            let status = await client.limiter.status()
            #expect(status.pausedUntil == Timestamp.string(from: h.clock.date.addingTimeInterval(3600)))
        }
    }

    /// A 503 that asks for an hour is an outage, not a rate limit, and is said as one.
    @Test func a503WithALongRetryAfterSaysTheHostIsUnavailable() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(.status(503, retryAfter: "3600"), on: "/releases/1")

            let client = try h.client(retry: RetryPolicy(maxRetryAfter: .seconds(600)))
            let error = await #expect(throws: DiscogsError.self) { try await client.release(id: 1) }
            #expect(error == .unavailable(retryAfter: .seconds(3600)))
            #expect(error?.description == "HTTP 503: Discogs is unavailable (asked to wait 3600 s)")
            #expect(error?.isHostProblem == true)
            #expect(error?.hostWait == .seconds(3600))
            let status = await client.limiter.status()
            #expect(status.pausedUntil == Timestamp.string(from: h.clock.date.addingTimeInterval(3600)))
        }
    }

    /// A pause that comes while a request waits its turn reaches it too: it fails rather than wait
    /// the hour out.
    @Test func aLongPauseFailsARequestAlreadyWaiting() async throws {
        try await SyncHarness.run { h in
            let limiter = RateLimiter(host: "http://example.invalid", limit: 1, clock: h.clock)
            try await limiter.acquire()
            await limiter.pause(for: .seconds(3600))
            await #expect(throws: RateLimiter.WaitTooLong(wait: .seconds(3600))) { try await limiter.acquire(waitingAtMost: .seconds(600)) }
            // Within the bound, it waits as before.
            let shortLimiter = RateLimiter(host: "http://example.invalid", limit: 1, clock: h.clock)
            await shortLimiter.pause(for: .seconds(30))
            try await shortLimiter.acquire(waitingAtMost: .seconds(600))
            #expect(h.clock.sleeps == [.seconds(30)])
        }
    }

    @Test func a500ThenSuccessIsRetried() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(.status(500), on: "/releases/1")

            guard case .updated = try await h.client().release(id: 1) else {
                Issue.record("expected the release after one retry")
                return
            }
            #expect(h.fake.requests.count == 2)
            #expect(h.clock.sleeps == [.milliseconds(1500)])
        }
    }

    @Test func retriesAreBounded() async throws {
        try await SyncHarness.run { h in
            h.fake.injectOnEveryRequest(.status(502))

            await #expect(throws: DiscogsError.httpStatus(502)) {
                try await h.client(retry: RetryPolicy(maxAttempts: 3)).release(id: 1)
            }
            #expect(h.fake.requests.count == 3)
            #expect(h.clock.sleeps.count == 2)
        }
    }

    @Test func networkErrorsAreRetriedThenReported() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(.truncated, .truncated, on: "/releases/1")

            guard case .updated = try await h.client().release(id: 1) else {
                Issue.record("expected the release on the third attempt")
                return
            }
            #expect(h.fake.requests.count == 3)

            h.fake.injectOnEveryRequest(.truncated)
            do {
                _ = try await h.client(retry: RetryPolicy(maxAttempts: 2)).release(id: 1)
                Issue.record("expected a failure")
            } catch DiscogsError.transport(.connectionLost) {
            }
        }
    }

    @Test func aBodyThatIsNotJSONSaysWhatItIs() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            let client = try h.client()
            for (fault, reason) in [(FakeDiscogs.Fault.emptyBody, "an empty body, not JSON"), (.malformedJSON, "not valid JSON")] {
                h.fake.inject(fault, on: "/releases/1")
                await #expect(throws: DiscogsError.malformedResponse(reason)) { try await client.release(id: 1) }
            }
            // An HTML page is the host's problem, not the release's: a proxy would answer every request so.
            h.fake.inject(.htmlPage, on: "/releases/1")
            let error = await #expect(throws: DiscogsError.notTheAPI) { try await client.release(id: 1) }
            #expect(error?.isHostProblem == true)
            #expect(error?.description == "an HTML page, not JSON: is a proxy or an outage page answering for the host?")
        }
    }

    @Test func notFoundAndNotModifiedAreAnswersNotErrors() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            let client = try h.client()
            #expect(try await client.release(id: 404) == .notFound)
            guard case .updated(_, let etag?) = try await client.release(id: 1) else {
                Issue.record("expected a release with an ETag")
                return
            }
            #expect(try await client.release(id: 1, etag: etag) == .notModified)
            #expect(h.fake.requests.last?.headers["if-none-match"] == etag)
        }
    }
}
