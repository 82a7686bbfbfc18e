import Synchronization

/// The open event streams, by user. A lock rather than the service's actor guards them, so that a
/// stream that terminates removes itself synchronously, without starting a task to reach the actor.
final class PlaybackSubscribers: Sendable {
    typealias Continuation = AsyncStream<PlaybackEvent>.Continuation

    private struct State {
        var streams: [Int64: [Int: Continuation]] = [:]
        var nextId = 0
    }

    private let state = Mutex(State())

    func add(_ continuation: Continuation, userId: Int64) {
        let id = state.withLock { state in
            state.nextId += 1
            state.streams[userId, default: [:]][state.nextId] = continuation
            return state.nextId
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id, userId: userId) }
    }

    /// Delivers `event` to every stream of its user only. The service publishes from its actor,
    /// one event at a time, so each stream receives the events in revision order.
    func publish(_ event: PlaybackEvent) {
        let streams = state.withLock { $0.streams[event.snapshot.userId].map { Array($0.values) } ?? [] }
        for stream in streams { stream.yield(event) }
    }

    func count(userId: Int64) -> Int {
        state.withLock { $0.streams[userId]?.count ?? 0 }
    }

    /// Ends every stream (at shutdown), so that event responses close cleanly.
    func finishAll() {
        let streams = state.withLock { state in
            defer { state.streams = [:] }
            return state.streams.values.flatMap(\.values)
        }
        for stream in streams { stream.finish() }
    }

    private func remove(_ id: Int, userId: Int64) {
        state.withLock { state in
            state.streams[userId]?[id] = nil
            if state.streams[userId]?.isEmpty == true { state.streams[userId] = nil }
        }
    }
}
