import CratedSync
import Foundation
import Synchronization

/// A clock whose sleeps return at once, moving its time forward by what was asked: minutes of
/// rate limiting and backoff cost nothing, and every wait can be asserted exactly.
public final class VirtualClock: SyncClock {
    private struct State {
        var uptime: Duration = .zero
        var sleeps: [Duration] = []
    }
    private let state = Mutex(State())
    public let start: Date

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.start = start
    }

    public var uptime: Duration { state.withLock { $0.uptime } }
    public var date: Date { start.addingTimeInterval(uptime.seconds) }
    /// Every sleep asked for, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(duration)
            if duration > .zero { state.uptime += duration }
        }
        await Task.yield()
    }

    /// Moves time on without anyone sleeping (days passing between two passes).
    public func advance(by duration: Duration) {
        state.withLock { $0.uptime += duration }
    }
}
