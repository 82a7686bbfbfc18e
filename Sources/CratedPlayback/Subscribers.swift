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

    /// Adds a stream of `userId`. When the user already has `limit` streams, the oldest ends: a
    /// device whose network changed may hold streams its server has not yet seen die, and the newest
    /// is the one someone is looking at.
    func add(_ continuation: Continuation, userId: Int64, limit: Int) {
        let (id, oldest): (Int, Continuation?) = state.withLock { state in
            var oldest: Continuation?
            if let streams = state.streams[userId], streams.count >= limit, let first = streams.keys.min() {
                oldest = state.streams[userId]?.removeValue(forKey: first)
            }
            state.nextId += 1
            state.streams[userId, default: [:]][state.nextId] = continuation
            return (state.nextId, oldest)
        }
        continuation.onTermination = { [weak self] _ in self?.remove(id, userId: userId) }
        oldest?.finish()
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
