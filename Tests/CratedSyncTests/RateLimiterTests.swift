@testable import CratedSync
import CratedTestSupport
import CratedCore
import Foundation
import HTTPTypes
import Synchronization
import Testing

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

    /// Against a host that counts a moving minute when requests arrive, with latencies from 0 to
    /// 1.5 s, a pass of three times the limit draws no 429, at 95% of the limit or more.
    @Test func aHostCountingArrivalsNeverSeesMoreThanTheLimit() async throws {
        let clock = VirtualClock()
        let limiter = RateLimiter(host: "test", limit: 240, window: .seconds(60), clock: clock)
        var grants: [Duration] = []
        for _ in 0..<720 { grants.append(try await limiter.acquire()) }
        // A slow request, then a fast one: the worst pairs for a count at arrival.
        let arrivals = grants.enumerated().map { $0.element + ($0.offset % 2 == 0 ? .milliseconds(1500) : .zero) }.sorted()
        var first = 0
        var most = 0
        for (last, arrival) in arrivals.enumerated() {
            while arrivals[first] + .seconds(60) <= arrival { first += 1 }
            most = max(most, last - first + 1)
        }
        #expect(most <= 240)
        // After the first window's 240, the next 480 at 4 a second less the margin.
        let steady = 480 / (grants[719] - grants[239]).seconds
        #expect(steady >= 0.95 * 4, "\(steady) requests a second")
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
