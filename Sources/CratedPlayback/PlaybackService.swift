import CratedCore
import GRDB
import Logging
import Synchronization

/// What a `play` command puts on the turntable.
public enum PlayTarget: Sendable, Equatable {
    public enum Start: Sendable, Equatable {
        /// The first playable track of the first side.
        case beginning
        /// The first playable track of a side (`B`; case-insensitive).
        case side(String)
        case track(id: Int64)
    }

    case album(id: Int64, from: Start = .beginning)
    /// The crate's albums as a queue, in crate order; albums without playable tracks are left out.
    case crate(id: Int64)
}

public enum PlaybackCommand: Sendable, Equatable {
    case play(PlayTarget)
    case pause
    case resume
    /// The next track on the side; from the side's last track, the end of the side.
    case next
    /// Restarts the track when more than 3 s in, else the previous track on the side.
    case previous
    /// Within the current track; past its end is refused.
    case seek(positionMs: Int64)
    /// The next side from its first track; on the last side, the next album of a crate queue, else refused.
    case flip
    case stop
}

/// Every user's turntable: one playback state per user, shared by all of their devices.
///
/// The stored state is a set of facts (what is on, when the current track was at 0 ms, where it was
/// paused); everything that happens by itself (the next track, the end of a side, the end of a pause,
/// a play counting for history) is derived from those facts and the clock whenever a state is read
/// or commanded, and written back, so it survives restarts. `run()` does the same at the moment each
/// change is due, so that event streams hear about it without anyone asking.
///
/// Each command or settlement reads, writes and publishes under `exclusively`, which holds across
/// the suspension of its write: commands never interleave, every subscriber receives the events in
/// revision order, and a write waiting for SQLite's lock holds no thread.
public actor PlaybackService {
    /// Events a slow stream may fall behind by before its oldest undelivered ones are dropped. Each
    /// event is the whole state, so a stream that drops some still ends on the right one.
    public static let eventBufferSize = 256
    /// Open event streams a user may have; a new one past it ends their oldest. A household's
    /// phones, tablets and browser tabs fit; a client that leaks streams cannot take the server's
    /// connections.
    public static let streamsPerUser = 16
    /// How long the scheduler waits before settling again a state whose settlement failed.
    static let retryAfterFailureMs: Int64 = 5000

    private let database: AppDatabase
    private let clock: any PlaybackClock
    private let logger: Logger
    private let subscribers = PlaybackSubscribers()
    private let wakeup = WakeSignal()
    /// When each user's state next changes by itself. Written on the actor; under a lock of its own
    /// so that album pages can tell, without waiting for the actor, that nothing is due.
    private let agenda = Mutex(Agenda())
    /// Whether a command or settlement is under way, and those waiting for it, in the order they came.
    private var isExclusiveTaken = false
    private var exclusiveWaiters: [CheckedContinuation<Void, Never>] = []

    public init(database: AppDatabase, clock: any PlaybackClock = SystemPlaybackClock(),
                logger: Logger = Logger(label: "crated.playback")) {
        self.database = database
        self.clock = clock
        self.logger = logger
    }

    /// A user's settled state and the tracklist of the album on their turntable.
    private struct Current {
        var facts: PlaybackFacts
        var tracklist: Tracklist?

        /// The state at `nowMs`: the deck moved on by itself (tracks ended, a pause expired), with the
        /// plays it counted on the way, which the deck now records. A change clients see takes
        /// `revision`; counting a play alone keeps the state's own.
        func settled(at nowMs: Int64, revision: Int64) -> (current: Current, countedPlays: [CountedPlay], changed: Bool) {
            guard let deck = facts.deck else { return (self, [], false) }
            let settlement = deck.settled(at: nowMs, in: tracklist)
            let current = Current(facts: PlaybackFacts(revision: settlement.changed ? revision : facts.revision, deck: settlement.deck),
                                  tracklist: settlement.deck == nil ? nil : tracklist)
            return (current, settlement.countedPlays, settlement.changed)
        }
    }

    // MARK: - Reading

    /// The user's state now (for `GET /v1/player`).
    /// A read: it waits for commands only when the state has a change due to write first.
    public func current(userId: Int64) async throws(PlaybackError) -> PlaybackSnapshot {
        try await guarded {
            let nowMs = clock.nowMs
            if agenda.withLock({ $0.isDue(userId, at: nowMs) }) {
                return try await exclusively { try await snapshot(of: settle(userId: userId, at: nowMs), userId: userId, at: nowMs) }
            }
            let (facts, tracklist) = try database.playbackState(userId: userId)
            return try snapshot(of: Current(facts: facts, tracklist: tracklist), userId: userId, at: nowMs)
        }
    }

    /// The user's plays, newest first: `limit` (1-200) of them older than `cursor`.
    public func history(userId: Int64, before cursor: HistoryCursor? = nil, limit: Int = 50) async throws(PlaybackError) -> HistoryPage {
        // A play that has counted by now is in the history even if no one has asked for the state.
        try await settleIfDue(userId: userId)
        return try await guarded {
            try database.playHistory(userId: userId, before: cursor, limit: min(max(limit, 1), 200))
        }
    }

    /// How often and when the user last played an album, for album detail.
    ///
    /// Album pages ask on every request, so this runs off the actor: it settles the user's state (on
    /// the actor) only when a change is due (a play may have counted), or when the stored state has
    /// not been settled since start.
    public nonisolated func albumPlayStats(userId: Int64, albumId: Int64) async throws(PlaybackError) -> AlbumPlayStats {
        if agenda.withLock({ $0.isDue(userId, at: clock.nowMs) }) {
            try await settleIfDue(userId: userId)
        }
        return try await guarded {
            try database.albumPlayStats(userId: userId, albumId: albumId)
        }
    }

    private func settleIfDue(userId: Int64) async throws(PlaybackError) {
        guard agenda.withLock({ $0.isDue(userId, at: clock.nowMs) }) else { return }
        try await guarded {
            try await exclusively {
                let nowMs = clock.nowMs
                if agenda.withLock({ $0.isDue(userId, at: nowMs) }) { _ = try await settle(userId: userId, at: nowMs) }
            }
        }
    }

    // MARK: - Events

    /// Every change of the user's state from now on, in revision order (`PlaybackEvent.revision` is
    /// the SSE event id). The stream opens with the current state unless `lastEventId` is the current
    /// revision: a client that reconnects after missing events gets the state that replaces them.
    /// Ending the stream (the client goes away) unsubscribes it; `run()` ends all streams when it returns.
    public func events(userId: Int64, lastEventId: Int64? = nil) async throws(PlaybackError) -> AsyncStream<PlaybackEvent> {
        try await guarded {
            // No event can be published between reading the state and subscribing: events are
            // published only under `exclusively`.
            try await exclusively {
                let nowMs = clock.nowMs
                let current = try await snapshot(of: settle(userId: userId, at: nowMs), userId: userId, at: nowMs)
                let (stream, continuation) = AsyncStream.makeStream(
                    of: PlaybackEvent.self, bufferingPolicy: .bufferingNewest(Self.eventBufferSize))
                subscribers.add(continuation, userId: userId, limit: Self.streamsPerUser)
                if lastEventId != current.revision { continuation.yield(PlaybackEvent(snapshot: current)) }
                return stream
            }
        }
    }

    /// Open event streams of a user.
    public nonisolated func subscriberCount(userId: Int64) -> Int {
        subscribers.count(userId: userId)
    }

    // MARK: - Commands

    /// Applies a command and returns the new state. With `expectedRevision`, the command is refused
    /// (409 with the current state) unless the state is still at that revision.
    @discardableResult
    public func perform(_ command: PlaybackCommand, userId: Int64, expectedRevision: Int64? = nil) async throws(PlaybackError) -> PlaybackSnapshot {
        try await guarded { try await exclusively {
            let nowMs = clock.nowMs
            let current = try await settle(userId: userId, at: nowMs)
            if let expectedRevision, expectedRevision != current.facts.revision {
                throw PlaybackError.revisionConflict(
                    expected: expectedRevision, current: try snapshot(of: current, userId: userId, at: nowMs))
            }
            let applied: Current
            do {
                applied = try apply(command, to: current, userId: userId, at: nowMs)
            } catch let refusal as Refusal {
                switch refusal {
                case .conflict(let conflict):
                    throw PlaybackError.stateConflict(conflict, current: try snapshot(of: current, userId: userId, at: nowMs))
                case .rule(let rule, let message):
                    throw PlaybackError.ruleBroken(rule, message: message)
                }
            }
            // A command that leaves the deck where it changes by itself (a seek to a track's very
            // end) answers with what follows, at its own revision rather than a second one at once.
            let (next, countedPlays, _) = applied.settled(at: nowMs, revision: applied.facts.revision)
            try await database.savePlaybackState(userId: userId, facts: next.facts, nowMs: nowMs, countedPlays: countedPlays)
            schedule(userId: userId, next)
            let snapshot = try snapshot(of: next, userId: userId, at: nowMs)
            subscribers.publish(PlaybackEvent(snapshot: snapshot))
            logger.debug("playback command", metadata: [
                "user": "\(userId)", "command": "\(command)", "revision": "\(snapshot.revision)",
            ])
            return snapshot
        } }
    }

    /// Deletes one of the user's crates with `delete`, between commands. When it is the crate being
    /// played, the player drops it (its queue plays on) at a new revision, published: the
    /// mini-player names its crate, and the database would clear the reference without one.
    /// `delete`'s own errors pass through as they are.
    public func deleteCrate(_ crateId: Int64, userId: Int64, using delete: @Sendable () async throws -> Void) async throws {
        try await exclusively {
            let nowMs = clock.nowMs
            let before = try await guarded { try await settle(userId: userId, at: nowMs) }
            try await delete()
            guard var deck = before.facts.deck, deck.crateId == crateId else { return }
            deck.crateId = nil
            let next = Current(facts: PlaybackFacts(revision: before.facts.revision + 1, deck: deck), tracklist: before.tracklist)
            try await guarded {
                try await database.savePlaybackState(userId: userId, facts: next.facts, nowMs: nowMs)
                subscribers.publish(PlaybackEvent(snapshot: try snapshot(of: next, userId: userId, at: nowMs)))
            }
        }
    }

    /// The state after `command`, at the next revision; throws `Refusal` or `PlaybackError`.
    private func apply(_ command: PlaybackCommand, to current: Current, userId: Int64, at nowMs: Int64) throws -> Current {
        let revision = current.facts.revision + 1
        func onTurntable() throws -> (Deck, Tracklist) {
            guard let deck = current.facts.deck, let tracklist = current.tracklist else {
                throw Refusal.conflict(.nothingPlaying)
            }
            return (deck, tracklist)
        }
        func sameAlbum(_ deck: Deck?, _ tracklist: Tracklist) -> Current {
            Current(facts: PlaybackFacts(revision: revision, deck: deck), tracklist: deck == nil ? nil : tracklist)
        }
        switch command {
        case .play(let target):
            return try loaded(target, userId: userId, revision: revision, at: nowMs)
        case .pause:
            let (deck, tracklist) = try onTurntable()
            return sameAlbum(try deck.paused(at: nowMs, in: tracklist), tracklist)
        case .resume:
            let (deck, tracklist) = try onTurntable()
            return sameAlbum(try deck.resumed(at: nowMs), tracklist)
        case .next:
            let (deck, tracklist) = try onTurntable()
            return sameAlbum(try deck.skippedForward(at: nowMs, in: tracklist), tracklist)
        case .previous:
            let (deck, tracklist) = try onTurntable()
            return sameAlbum(try deck.skippedBack(at: nowMs, in: tracklist), tracklist)
        case .seek(let positionMs):
            let (deck, tracklist) = try onTurntable()
            return sameAlbum(try deck.sought(to: positionMs, at: nowMs, in: tracklist), tracklist)
        case .flip:
            let (deck, tracklist) = try onTurntable()
            if let flipped = try deck.flipped(at: nowMs, in: tracklist) { return sameAlbum(flipped, tracklist) }
            // The last side: put on the next album of the crate queue that can still be played.
            var queue = deck.queue
            while !queue.isEmpty {
                let albumId = queue.removeFirst()
                let next = try database.tracklist(albumId: albumId)
                guard let start = next.firstLocation else { continue }
                let loaded = Deck.loaded(next, at: start, queue: queue, crateId: deck.crateId,
                                         listeningId: revision, at: nowMs)
                return Current(facts: PlaybackFacts(revision: revision, deck: loaded), tracklist: next)
            }
            throw Refusal.conflict(.lastSide)
        case .stop:
            _ = try onTurntable()
            return Current(facts: PlaybackFacts(revision: revision, deck: nil), tracklist: nil)
        }
    }

    /// `play`: checks that the album or crate is the user's and can be played, and puts it on.
    private func loaded(_ target: PlayTarget, userId: Int64, revision: Int64, at nowMs: Int64) throws -> Current {
        try database.read { db in
            let albumId: Int64
            let start: PlayTarget.Start
            var queue: [Int64] = []
            var crateId: Int64?
            switch target {
            case .album(let id, let from):
                guard try AppDatabase.ownsAlbum(db, userId: userId, albumId: id) else {
                    throw PlaybackError.notFound(.album, id: id)
                }
                albumId = id
                start = from
            case .crate(let id):
                guard let albumIds = try AppDatabase.playableCrateAlbumIds(db, userId: userId, crateId: id) else {
                    throw PlaybackError.notFound(.crate, id: id)
                }
                guard let first = albumIds.first else {
                    throw PlaybackError.ruleBroken(.noPlayableTracks, message: "no album in crate \(id) has playable tracks")
                }
                albumId = first
                start = .beginning
                queue = Array(albumIds.dropFirst())
                crateId = id
            }
            let tracklist = try AppDatabase.tracklist(db, albumId: albumId)
            guard let first = tracklist.firstLocation else {
                throw PlaybackError.ruleBroken(
                    .noPlayableTracks, message: "album \(albumId) has no playable tracks (its tracklist may not be synced yet)")
            }
            let location: Tracklist.Location
            switch start {
            case .beginning:
                location = first
            case .side(let name):
                guard let sideStart = tracklist.firstLocation(ofSide: name) else {
                    let sides = tracklist.sides.compactMap(\.name)
                    let known = sides.isEmpty ? "its tracks are numbered, not on lettered sides" : "sides: \(sides.joined(separator: ", "))"
                    throw PlaybackError.ruleBroken(
                        .noSuchSide, message: "album \(albumId) has no side '\(name)' with playable tracks (\(known))")
                }
                location = sideStart
            case .track(let trackId):
                if let trackLocation = tracklist.locate(trackId: trackId) {
                    location = trackLocation
                } else if try AppDatabase.albumHasTrack(db, albumId: albumId, trackId: trackId) {
                    throw PlaybackError.ruleBroken(
                        .trackNotPlayable, message: "track \(trackId) is a heading or an index, not a playable track")
                } else {
                    throw PlaybackError.notFound(.track, id: trackId)
                }
            }
            let deck = Deck.loaded(tracklist, at: location, queue: queue, crateId: crateId, listeningId: revision, at: nowMs)
            return Current(facts: PlaybackFacts(revision: revision, deck: deck), tracklist: tracklist)
        }
    }

    // MARK: - Settling

    /// Brings the user's stored state up to `nowMs`: writes back derived transitions (a new revision,
    /// published to the user's streams) and plays that counted (without a new revision).
    /// Call it only under `exclusively`.
    private func settle(userId: Int64, at nowMs: Int64) async throws -> Current {
        let (stored, tracklist) = try database.playbackState(userId: userId)
        guard stored.deck != nil else {
            let current = Current(facts: stored, tracklist: nil)
            schedule(userId: userId, current)
            return current
        }
        let (settled, countedPlays, changed) = Current(facts: stored, tracklist: tracklist).settled(at: nowMs, revision: stored.revision + 1)
        if settled.facts != stored || !countedPlays.isEmpty {
            try await database.savePlaybackState(userId: userId, facts: settled.facts, nowMs: nowMs, countedPlays: countedPlays)
        }
        schedule(userId: userId, settled)
        if changed, subscribers.count(userId: userId) > 0 {
            subscribers.publish(PlaybackEvent(snapshot: try snapshot(of: settled, userId: userId, at: nowMs)))
        }
        return settled
    }

    /// Notes when the user's state next changes by itself, and wakes the loop if that moved.
    private func schedule(userId: Int64, _ current: Current) {
        let nextChangeMs = current.facts.deck.flatMap { deck in current.tracklist.flatMap { deck.nextChangeMs(in: $0) } }
        if agenda.withLock({ $0.note(userId, nextChangeMs: nextChangeMs) }) { wakeup.signal() }
    }

    // MARK: - The scheduling loop

    /// Settles each state at the moment it changes by itself (a track ends, a side ends, a pause
    /// expires, a play counts), so that event streams hear of it then. Run it once, for the life of
    /// the daemon (wrapped as a swift-service-lifecycle Service, with `cancelWhenGracefulShutdown`);
    /// it returns when its task is cancelled, after ending every open event stream.
    public func run() async {
        await catchUpAfterStart()
        while !Task.isCancelled {
            await sleep(until: agenda.withLock { $0.earliest })
            await settleDueStates()
        }
        subscribers.finishAll()
    }

    /// Settles every state that was active when the daemon stopped.
    private func catchUpAfterStart() async {
        let userIds: [Int64]
        do {
            userIds = try database.activePlaybackUserIds()
        } catch {
            logger.error("cannot list active playback states", metadata: ["error": "\(error)"])
            return
        }
        for userId in userIds { await settleFromLoop(userId: userId, at: clock.nowMs) }
    }

    private func settleDueStates() async {
        let nowMs = clock.nowMs
        for userId in agenda.withLock({ $0.due(at: nowMs) }) {
            await settleFromLoop(userId: userId, at: nowMs)
        }
    }

    private func settleFromLoop(userId: Int64, at nowMs: Int64) async {
        do {
            _ = try await exclusively { try await settle(userId: userId, at: nowMs) }
        } catch {
            logger.error("cannot settle playback state", metadata: ["user": "\(userId)", "error": "\(error)"])
            _ = agenda.withLock { $0.note(userId, nextChangeMs: nowMs + Self.retryAfterFailureMs) }
        }
    }

    /// Returns at `deadlineMs` (never when nil), when `schedule` moved a deadline, or on cancellation.
    private func sleep(until deadlineMs: Int64?) async {
        let clock = clock
        let wakeup = wakeup
        await withTaskGroup(of: Void.self) { group in
            if let deadlineMs { group.addTask { try? await clock.sleep(untilMs: deadlineMs) } }
            group.addTask { await wakeup.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Runs `body` when no other command or settlement is under way, however long either suspends.
    private func exclusively<T>(_ body: () async throws -> T) async rethrows -> T {
        if isExclusiveTaken {
            // Woken by the one before, which hands its turn over without releasing it.
            await withCheckedContinuation { exclusiveWaiters.append($0) }
        } else {
            isExclusiveTaken = true
        }
        defer {
            if exclusiveWaiters.isEmpty { isExclusiveTaken = false } else { exclusiveWaiters.removeFirst().resume() }
        }
        return try await body()
    }

    // MARK: - Documents

    private func snapshot(of current: Current, userId: Int64, at nowMs: Int64) throws -> PlaybackSnapshot {
        let idle = MiniPlayer(
            hasActiveTrack: false, state: .idle, isPlaying: false, needsFlip: false, track: nil, artist: nil,
            album: nil, artwork: nil, side: nil, trackIndex: nil, trackCount: nil, positionMs: nil, durationMs: nil,
            upNext: nil, crateId: nil, serverTime: RFC3339.seconds(nowMs), serverTimeMs: nowMs,
            revision: current.facts.revision)
        guard let deck = current.facts.deck, let tracklist = current.tracklist,
              let location = deck.location(in: tracklist)
        else { return PlaybackSnapshot(userId: userId, document: idle, cover: nil) }
        return try database.read { db in
            let heading = try AppDatabase.albumHeading(db, albumId: deck.albumId)
            let track = tracklist[location]
            let side = tracklist.sides[location.side]
            var document = idle
            document.hasActiveTrack = true
            document.state = deck.isPlaying ? .playing : .paused
            document.isPlaying = deck.isPlaying
            document.needsFlip = deck.needsFlip
            document.track = MiniPlayer.Track(id: track.id, title: track.title, position: track.position)
            document.artist = track.artistCredit ?? heading?.artistCredit
            document.album = heading.map { MiniPlayer.Album(id: $0.id, title: $0.title) }
            document.side = side.name
            document.trackIndex = location.track + 1
            document.trackCount = side.tracks.count
            document.positionMs = deck.positionMs(at: nowMs, of: track)
            document.durationMs = track.durationMs
            document.upNext = try upNext(db, deck: deck, tracklist: tracklist, after: location, heading: heading)
            document.crateId = deck.crateId
            return PlaybackSnapshot(
                userId: userId, document: document,
                cover: try AlbumCover.of(albumId: deck.albumId, db))
        }
    }

    private func upNext(
        _ db: Database, deck: Deck, tracklist: Tracklist, after location: Tracklist.Location, heading: AlbumHeading?
    ) throws -> UpNext? {
        func upNext(_ kind: UpNext.Kind, _ track: PlayableTrack, on album: AlbumHeading?) -> UpNext? {
            album.map {
                UpNext(kind: kind, albumId: $0.id, albumTitle: $0.title, side: track.side, trackId: track.id,
                       trackTitle: track.title, trackPosition: track.position)
            }
        }
        if let next = tracklist.location(after: location) {
            return upNext(.track, tracklist[next], on: heading)
        }
        if let nextSide = tracklist.firstLocationOfSide(after: location) {
            return upNext(.side, tracklist[nextSide], on: heading)
        }
        for albumId in deck.queue {
            let queued = try AppDatabase.tracklist(db, albumId: albumId)
            if let first = queued.firstLocation {
                return upNext(.album, queued[first], on: try AppDatabase.albumHeading(db, albumId: albumId))
            }
        }
        return nil
    }

    /// Runs `body`, passing `PlaybackError`s through and turning anything else (a database failure)
    /// into `.storage`.
    private func guarded<T>(_ body: () async throws -> T) async throws(PlaybackError) -> T {
        do {
            return try await body()
        } catch let error as PlaybackError {
            throw error
        } catch {
            logger.error("playback storage failure", metadata: ["error": "\(error)"])
            throw .storage(String(describing: error))
        }
    }
}

/// When each settled user's state next changes by itself.
private struct Agenda {
    /// Users settled at least once since start, with the moment their state next changes (nil: it
    /// cannot change by itself).
    private var nextChange: [Int64: Int64?] = [:]

    /// Whether the user's state must be settled before it is read: never settled since start, or a
    /// change is due.
    func isDue(_ userId: Int64, at nowMs: Int64) -> Bool {
        guard let entry = nextChange[userId] else { return true }
        return entry.map { $0 <= nowMs } ?? false
    }

    /// Records the user's next change; true when the earliest moment to wake for may have moved.
    mutating func note(_ userId: Int64, nextChangeMs: Int64?) -> Bool {
        let previous = nextChange.updateValue(nextChangeMs, forKey: userId)
        return (previous ?? nil) != nextChangeMs
    }

    var earliest: Int64? { nextChange.values.compactMap { $0 }.min() }

    func due(at nowMs: Int64) -> [Int64] {
        nextChange.compactMap { userId, dueMs in dueMs.map { $0 <= nowMs } == true ? userId : nil }
    }
}
