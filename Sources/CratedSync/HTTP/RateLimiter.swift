import CratedCore
import Foundation
import HTTPTypes
import Synchronization

/// Paces the requests to one host: at most `limit` in any moving `window` (Discogs counts a moving
/// 60-second window per source address), slower still when the host reports that little of its
/// own budget remains, and not at all while a `429`'s wait runs.
///
/// It is an actor so that every caller in the process shares one count: a background pass, a pass
/// started over HTTP and a command all draw from the same budget.
public actor RateLimiter {
    public nonisolated let host: String
    public nonisolated let limit: Int
    public nonisolated let window: Duration
    /// The host counts a request when it arrives, this limiter when it lets it go: with latencies
    /// that vary, two requests a window apart here can arrive less than a window apart there. Counting
    /// over `window` plus this margin (a thirtieth of it: 2 s of a minute) leaves room for that, at
    /// 97% of the limit in steady use.
    public nonisolated let margin: Duration
    private let clock: any SyncClock
    /// Uptimes of the requests let through within the last window, oldest first.
    private var granted: [Duration] = []
    /// No request goes before this uptime (a `Retry-After`, or spacing from the host's count).
    private var notBefore: Duration = .zero
    private var hostRemaining: Int?
    /// Whether the host may have failed everyone since it last gave what was asked: set by a pause,
    /// and at first, since what an earlier process recorded is not known here.
    private var mayHaveFailedSinceLastAnswer = true

    public init(host: String, limit: Int, window: Duration = .seconds(60), clock: any SyncClock = SystemSyncClock()) {
        precondition(limit > 0, "a rate limit lets at least one request through")
        self.host = host
        self.limit = limit
        self.window = window
        self.margin = window / 30
        self.clock = clock
    }

    /// A wait longer than a caller would take (`acquire(waitingAtMost:)`); `wait` is how long it is.
    public struct WaitTooLong: Error, Equatable {
        public var wait: Duration
    }

    /// Waits until a request may go, and counts it. Returns the uptime at which it was let through.
    /// Throws `CancellationError` when cancelled, or when a graceful shutdown ends the wait, and
    /// `WaitTooLong` when the wait (checked again each time it would start) passes `longest`: a
    /// pause the host asked for while a caller waited reaches it too.
    @discardableResult
    public func acquire(waitingAtMost longest: Duration? = nil) async throws -> Duration {
        while true {
            try Task.checkCancellation()
            let now = clock.uptime
            forgetExpired(now: now)
            var earliest = notBefore
            if granted.count >= limit {
                earliest = max(earliest, granted[granted.count - limit] + window + margin)
            }
            if now >= earliest {
                granted.append(now)
                return now
            }
            if let longest, earliest - now > longest { throw WaitTooLong(wait: earliest - now) }
            // Other callers may run meanwhile (actor reentrancy), so the check starts over.
            try await clock.sleepUnlessShuttingDown(for: earliest - now)
        }
    }

    /// Reads the host's own count from a response. When the host says fewer requests remain than
    /// this limiter would still allow (other clients share the address, or an earlier process used
    /// them), the remaining ones are spread over a window instead of spent at once.
    public func recordResponse(headers: HTTPFields) {
        guard let reported = headers[.discogsRateLimitRemaining].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else { return }
        let remaining = max(0, reported)
        hostRemaining = remaining
        let now = clock.uptime
        forgetExpired(now: now)
        if remaining < limit - granted.count {
            notBefore = max(notBefore, now + window / (remaining + 1))
        }
    }

    /// How long the host's own wait (a 429's `Retry-After`) still holds every caller back.
    public func remainingPause() -> Duration {
        max(.zero, notBefore - clock.uptime)
    }

    /// Holds every caller back for `duration` (a 429 or 503 from the host, or the host not reached).
    public func pause(for duration: Duration) {
        notBefore = max(notBefore, clock.uptime + duration)
        mayHaveFailedSinceLastAnswer = true
    }

    /// Records that the host gave what was asked. True the first time after a pause (and the first
    /// time in this process): the host has recovered, and what waits after its failure may go.
    public func recordAnswer() -> Bool {
        defer { mayHaveFailedSinceLastAnswer = false }
        return mayHaveFailedSinceLastAnswer
    }

    public func status() -> RateLimitStatus {
        let now = clock.uptime
        forgetExpired(now: now)
        let wait = notBefore - now
        return RateLimitStatus(
            host: host,
            limit: limit,
            windowSeconds: Int(window.seconds.rounded()),
            usedInWindow: granted.count,
            remainingInWindow: max(0, limit - granted.count),
            hostRemaining: hostRemaining,
            pausedUntil: wait > .zero ? Timestamp.string(from: clock.date.addingTimeInterval(wait.seconds)) : nil)
    }

    private func forgetExpired(now: Duration) {
        let expired = granted.prefix { $0 + window + margin <= now }.count
        if expired > 0 { granted.removeFirst(expired) }
    }
}

/// A rate limiter's headroom, for `GET /v1/sync`.
public struct RateLimitStatus: Codable, Sendable, Equatable {
    public var host: String
    public var limit: Int
    public var windowSeconds: Int
    public var usedInWindow: Int
    public var remainingInWindow: Int
    /// What the host last reported remaining (`X-Discogs-Ratelimit-Remaining`), if it did.
    public var hostRemaining: Int?
    /// Set while requests are held back (after a 429, or spacing from the host's count): RFC 3339.
    public var pausedUntil: String?
}

/// One rate limiter per host, for everything in the process that calls it. The first caller's
/// limit for a host wins; later callers share that limiter.
public final class RateLimiterRegistry: Sendable {
    /// The process-wide registry that the daemon and commands use; tests make their own.
    public static let shared = RateLimiterRegistry()

    private let limiters = Mutex<[String: RateLimiter]>([:])

    public init() {}

    public func limiter(forHost host: String, limit: Int, window: Duration = .seconds(60), clock: any SyncClock = SystemSyncClock()) -> RateLimiter {
        limiters.withLock { limiters in
            if let existing = limiters[host] { return existing }
            let limiter = RateLimiter(host: host, limit: limit, window: window, clock: clock)
            limiters[host] = limiter
            return limiter
        }
    }

    public var all: [RateLimiter] {
        limiters.withLock { Array($0.values) }
    }
}
