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
        /// How long the write now running has slept waiting for the lock.
        var waited: Duration = .zero
    }
    private let state = Mutex(State())

    init(timeout: Duration) {
        self.timeout = timeout
    }

    func deadline(askedAt instant: ContinuousClock.Instant) -> ContinuousClock.Instant {
        instant + timeout
    }

    /// Runs `body` (on the write connection, which runs one write at a time) under `deadline`.
    /// The time it slept waiting for SQLite's lock goes to `metrics`.
    func waiting<T>(until deadline: ContinuousClock.Instant, metrics: DatabaseInstruments, _ body: () throws -> T) rethrows -> T {
        state.withLock { state in
            state.current = deadline
            state.waited = .zero
        }
        defer {
            let waited = state.withLock { state in
                state.current = nil
                return state.waited
            }
            if waited > .zero {
                metrics.lockWaits.increment()
                metrics.lockWaitSeconds.increment(by: waited)
            }
        }
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
        state.withLock { $0.waited += pause }
        Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
        return true
    }
}
