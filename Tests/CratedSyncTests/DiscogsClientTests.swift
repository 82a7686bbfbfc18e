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

    @Test func aRetryAfterBeyondThePolicyFailsAtOnce() async throws {
        try await SyncHarness.run { h in
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(.status(429, retryAfter: "3600"), on: "/releases/1")

            await #expect(throws: DiscogsError.rateLimited(retryAfter: .seconds(3600))) {
                try await h.client(retry: RetryPolicy(maxRetryAfter: .seconds(600))).release(id: 1)
            }
            #expect(h.fake.requests.count == 1)
            #expect(h.clock.sleeps.isEmpty)
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

/// The per-host rate limiter.
@Suite struct RateLimiterTests {
    @Test func concurrentCallersNeverExceedTheLimitInAnyWindow() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(host: "test", limit: 5, window: .seconds(60), clock: clock)
        let grants = try await withThrowingTaskGroup(of: [Duration].self) { group in
            for _ in 0..<6 {
                group.addTask {
                    var mine: [Duration] = []
                    for _ in 0..<6 { mine.append(try await limiter.acquire()) }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted()
        }
        #expect(grants.count == 36)
        for start in grants {
            let inWindow = grants.filter { $0 >= start && $0 < start + .seconds(60) }.count
            #expect(inWindow <= 5, "\(inWindow) requests in the window starting at \(start)")
        }
        // 36 requests at 5 a minute: the last one cannot go before minute 7.
        #expect(grants.last! >= .seconds(7 * 60))
    }

    @Test func aLowHostCountSpacesRequestsOut() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(host: "test", limit: 60, window: .seconds(60), clock: clock)
        try await limiter.acquire()
        // The host has 2 left of its budget while this limiter would still allow 59.
        await limiter.recordResponse(headers: [.discogsRateLimitRemaining: "2"])
        try await limiter.acquire()
        #expect(clock.sleeps == [.seconds(20)])
        #expect(await limiter.status().hostRemaining == 2)

        // A count that is not below what the limiter allows changes nothing.
        await limiter.recordResponse(headers: [.discogsRateLimitRemaining: "58"])
        try await limiter.acquire()
        #expect(clock.sleeps.count == 1)
    }

    @Test func aPauseHoldsEveryCaller() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(host: "test", limit: 100, clock: clock)
        await limiter.pause(for: .seconds(12))
        let status = await limiter.status()
        #expect(status.pausedUntil == Timestamp.string(from: clock.date.addingTimeInterval(12)))
        let first = try await limiter.acquire()
        let second = try await limiter.acquire()
        #expect(first == .seconds(12) && second == .seconds(12))
    }

    @Test func theRegistryGivesEveryCallerOfAHostTheSameLimiter() {
        let registry = RateLimiterRegistry()
        let a = registry.limiter(forHost: "https://api.discogs.com", limit: 60)
        let b = registry.limiter(forHost: "https://api.discogs.com", limit: 25)
        let other = registry.limiter(forHost: "http://127.0.0.1:1", limit: 25)
        #expect(a === b)
        #expect(b.limit == 60)
        #expect(a !== other)
    }

    @Test func syncThroughTheRealTransportStaysWithinTheRate() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = Array(100...122)
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            // Registered first, so the client shares it: 5 requests in any 10 seconds.
            _ = h.rateLimiters.limiter(forHost: "http://127.0.0.1:\(h.fake.port)", limit: 5, window: .seconds(10), clock: h.clock)

            let report = try await h.runner().runPass()

            #expect(report.synced == ids.count)
            let arrivals = h.fake.requests.map(\.at)
            #expect(arrivals.count == ids.count)
            for start in arrivals {
                let inWindow = arrivals.filter { $0 >= start && $0 < start + .seconds(10) }.count
                #expect(inWindow <= 5, "\(inWindow) requests within 10 s of \(start)")
            }
            #expect(arrivals.last! >= .seconds(40), "23 requests at 5 per 10 s take at least 40 s")
        }
    }

    @Test func severalFetchesInFlightStillStayWithinTheRate() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = Array(130...142)
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            // Real time: under the virtual clock, waiters sleeping side by side each move time on,
            // so when a request reaches the server says little about when it was let through.
            let window = Duration.seconds(1)
            _ = h.rateLimiters.limiter(forHost: "http://127.0.0.1:\(h.fake.port)", limit: 4, window: window, clock: SystemSyncClock())
            let transport = SendTimes(CurlHTTPTransport())
            let client = try DiscogsClient(
                settings: DiscogsClientSettings(baseURL: h.fake.baseURL, token: "", userAgent: "crated/test", requestsPerMinute: 4),
                transport: transport, rateLimiters: h.rateLimiters, clock: SystemSyncClock(), logger: h.logs.logger())

            let report = try await h.runner(client: client, settings: ReleaseSyncSettings(concurrency: 6, maxGroupSize: 8)).runPass()

            #expect(report.synced == ids.count)
            let sent = transport.times
            #expect(sent.count == ids.count)
            // A send follows its grant within microseconds; the margin keeps that from counting.
            for start in sent {
                let inWindow = sent.filter { $0 >= start && $0 < start + window - .milliseconds(50) }.count
                #expect(inWindow <= 4, "\(inWindow) requests within a second of \(start)")
            }
            #expect(sent.last! - sent.first! >= .seconds(3), "13 requests at 4 a second take at least 3 s")
        }
    }
}

/// A transport that notes when each request is sent.
private final class SendTimes: HTTPTransport {
    private let inner: any HTTPTransport
    private let sent = Mutex<[ContinuousClock.Instant]>([])
    init(_ inner: any HTTPTransport) { self.inner = inner }
    var times: [ContinuousClock.Instant] { sent.withLock { $0 } }

    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> HTTPTransportResponse {
        sent.withLock { $0.append(.now) }
        return try await inner.send(request, body: body)
    }
}
