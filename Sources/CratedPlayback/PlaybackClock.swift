import Foundation
import Synchronization

/// Where the playback service gets the time from. Positions, track changes and expiry are all
/// computed from `nowMs`, so a test can drive a whole side of a record by moving a manual clock.
public protocol PlaybackClock: Sendable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    var nowMs: Int64 { get }
    /// Returns once `nowMs >= deadlineMs`; throws `CancellationError` when the task is cancelled.
    func sleep(untilMs deadlineMs: Int64) async throws
}

/// The wall clock.
public struct SystemPlaybackClock: PlaybackClock {
    public init() {}

    public var nowMs: Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    public func sleep(untilMs deadlineMs: Int64) async throws {
        // Loops because a sleep may end a little early, or the wall clock may have been set back.
        while nowMs < deadlineMs {
            try await Task.sleep(for: .milliseconds(deadlineMs - nowMs))
        }
    }
}

/// A clock that moves only when told to, for tests. Sleepers wake when `advance` or `set` passes
/// their deadline.
public final class ManualPlaybackClock: PlaybackClock {
    private struct Sleeper {
        let deadlineMs: Int64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var nowMs: Int64
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeperId = 0
    }

    private let state: Mutex<State>

    public init(nowMs: Int64 = 1_750_000_000_000) {
        state = Mutex(State(nowMs: nowMs))
    }

    public var nowMs: Int64 { state.withLock { $0.nowMs } }

    public func advance(byMs milliseconds: Int64) {
        set(nowMs: nowMs + milliseconds)
    }

    public func set(nowMs: Int64) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.nowMs = nowMs
            let dueIds = state.sleepers.filter { $0.value.deadlineMs <= nowMs }.map(\.key)
            return dueIds.compactMap { state.sleepers.removeValue(forKey: $0)?.continuation }
        }
        for continuation in due { continuation.resume() }
    }

    public func sleep(untilMs deadlineMs: Int64) async throws {
        let id = state.withLock { state in
            state.nextSleeperId += 1
            return state.nextSleeperId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    // The cancellation handler may have run before this registration: check again.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if deadlineMs <= state.nowMs { return .success(()) }
                    state.sleepers[id] = Sleeper(deadlineMs: deadlineMs, continuation: continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
