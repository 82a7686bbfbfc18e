import Foundation
import ServiceLifecycle

/// The time source of sync: a monotonic reading for rate windows and backoff, wall-clock time for
/// what is stored (last synced, next attempt), and sleeping. Tests pass a virtual clock whose
/// sleeps return at once, so waits of minutes cost nothing and can be asserted exactly.
public protocol SyncClock: Sendable {
    /// Time elapsed on a monotonic timeline with an arbitrary origin.
    var uptime: Duration { get }
    /// The wall-clock time.
    var date: Date { get }
    /// Sleeps for the duration; throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clock.
public struct SystemSyncClock: SyncClock {
    private let origin = ContinuousClock.now

    public init() {}

    public var uptime: Duration { ContinuousClock.now - origin }
    public var date: Date { Date() }

    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else { return try Task.checkCancellation() }
        try await Task.sleep(for: duration)
    }
}

extension SyncClock {
    /// Sleeps, unless the service group shuts down first: sync's waits (the rate limiter's, a
    /// retry's backoff, a 429's Retry-After of minutes) must not hold up a stop that a service
    /// manager will end with SIGKILL. Throws `CancellationError` when cut short, so the request ends
    /// as cancelled and its album stays as it was, due again at the next start. Outside a service
    /// group (`crated sync`), a plain sleep.
    public func sleepUnlessShuttingDown(for duration: Duration) async throws {
        try await cancelWhenGracefulShutdown { try await sleep(for: duration) }
        // Woken by the shutdown rather than at the end of the wait (a sleep may return quietly).
        if Task.isShuttingDownGracefully { throw CancellationError() }
    }
}

extension Duration {
    /// `1.0 s`, `95.3 s`: for log lines, where `Duration`'s own text has sixteen decimals.
    var logText: String {
        let tenths = (seconds * 10).rounded()
        return "\(Int(tenths) / 10).\(Int(tenths) % 10) s"
    }

    package var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
