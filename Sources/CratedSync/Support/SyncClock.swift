import Foundation

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

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
