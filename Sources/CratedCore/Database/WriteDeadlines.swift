import Foundation
import Synchronization

/// The busy handler of the write connection: how long a write may wait for SQLite's write lock.
///
/// SQLite's own timeout counts from the moment a write first meets the lock, so a write queued behind
/// others that each waited in turn would wait for all of them. Here each write's deadline counts from
/// when it was asked for (`AppDatabase.write`, `writeOutsideTransaction`, `writeBlocking`); a write
/// with no deadline of its own (the migrations, run through GRDB directly) gets the timeout from its
/// first wait.
final class WriteDeadlines: Sendable {
    let timeout: Duration
    private struct State {
        /// The deadline of the write now running on the write connection, if it set one.
        var current: ContinuousClock.Instant?
        /// When the lock wait in progress gives up, for writes without a deadline of their own.
        var implicit: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    init(timeout: Duration) {
        self.timeout = timeout
    }

    func deadline(askedAt instant: ContinuousClock.Instant) -> ContinuousClock.Instant {
        instant + timeout
    }

    /// Runs `body` (on the write connection, which runs one write at a time) under `deadline`.
    func waiting<T>(until deadline: ContinuousClock.Instant, _ body: () throws -> T) rethrows -> T {
        state.withLock { $0.current = deadline }
        defer { state.withLock { $0.current = nil } }
        return try body()
    }

    /// SQLite calls this each time the lock is still taken (`tries` counts from 0 for each wait).
    /// It sleeps a little and answers whether to try again.
    func shouldRetry(tries: Int) -> Bool {
        let now = ContinuousClock.now
        let deadline = state.withLock { state -> ContinuousClock.Instant in
            if tries == 0 { state.implicit = now + timeout }
            return state.current ?? state.implicit!
        }
        guard now < deadline else { return false }
        // SQLite's own steps: short at first for a lock about to be released, longer after.
        let steps: [Duration] = [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
                                 .milliseconds(15), .milliseconds(20), .milliseconds(25), .milliseconds(50)]
        let pause = min(steps[min(tries, steps.count - 1)], deadline - now)
        Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
        return true
    }
}
