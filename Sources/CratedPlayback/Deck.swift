/// What is on a user's turntable when it is not idle: the stored facts. Nothing here changes by
/// itself; the position, the track a record has advanced to, the end of a side and the expiry of a
/// pause are derived from these facts and the clock by `settled(at:in:)`.
struct Deck: Equatable, Sendable {
    enum Motion: Equatable, Sendable {
        /// The current track was at 0 ms at `trackStartedAtMs` (a seek moves this instant); it has
        /// been playing without a break since `sinceMs`.
        case playing(trackStartedAtMs: Int64, sinceMs: Int64)
        /// Paused at `positionMs` since `sinceMs`.
        case paused(positionMs: Int64, sinceMs: Int64)
        /// The side ended at `sinceMs` and the record waits to be flipped (or, in a crate queue,
        /// changed for the next album). The current track is the side's last.
        case sideEnded(sinceMs: Int64)
    }

    /// The current play of the current track, for play history.
    struct Play: Equatable, Sendable {
        var startedAtMs: Int64
        /// Heard before the current playing stretch began.
        var listenedMs: Int64 = 0
        var recorded = false
    }

    var albumId: Int64
    var trackId: Int64
    var trackPosition: String
    var motion: Motion
    var play: Play
    /// The revision at which this album was put on: groups the plays of one listening.
    var listeningId: Int64
    var crateId: Int64?
    /// Albums still to come when playing a crate, in crate order.
    var queue: [Int64]

    static let pauseExpiryMs: Int64 = 30 * 60 * 1000
    /// `previous` further into a track than this restarts it instead of going back a track.
    static let restartThresholdMs: Int64 = 3000
    /// The furthest a seek goes into a track of unknown length. Beyond any record's side, and it
    /// keeps the clock arithmetic on the stored instant (now minus position) far from overflow.
    static let unknownLengthSeekLimitMs: Int64 = 24 * 60 * 60 * 1000

    /// Puts the tracklist's album on the turntable and plays it from `location`.
    static func loaded(
        _ tracklist: Tracklist, at location: Tracklist.Location, queue: [Int64], crateId: Int64?,
        listeningId: Int64, at nowMs: Int64
    ) -> Deck {
        let track = tracklist[location]
        return Deck(
            albumId: tracklist.albumId, trackId: track.id, trackPosition: track.position,
            motion: .playing(trackStartedAtMs: nowMs, sinceMs: nowMs), play: Play(startedAtMs: nowMs),
            listeningId: listeningId, crateId: crateId, queue: queue)
    }

    var isPlaying: Bool {
        if case .playing = motion { true } else { false }
    }

    var needsFlip: Bool {
        if case .sideEnded = motion { true } else { false }
    }

    func location(in tracklist: Tracklist) -> Tracklist.Location? {
        tracklist.locate(trackId: trackId, position: trackPosition)
    }

    /// Where the needle is in `track` (the current track) at `nowMs`.
    func positionMs(at nowMs: Int64, of track: PlayableTrack) -> Int64 {
        switch motion {
        case .playing(let trackStartedAtMs, _):
            let elapsed = max(0, nowMs - trackStartedAtMs)
            return track.durationMs.map { min(elapsed, $0) } ?? elapsed
        case .paused(let positionMs, _):
            return positionMs
        case .sideEnded:
            return track.durationMs ?? 0
        }
    }

    /// Whether anything can follow the side that `location` is on: another side, or a queued album.
    func hasMore(after location: Tracklist.Location, in tracklist: Tracklist) -> Bool {
        tracklist.firstLocationOfSide(after: location) != nil || !queue.isEmpty
    }
}

/// A play that lasted long enough to go into play history.
struct CountedPlay: Equatable, Sendable {
    let albumId: Int64
    let track: PlayableTrack
    let listeningId: Int64
    let playedAtMs: Int64
}

/// The outcome of bringing a deck up to the present.
struct Settlement: Equatable, Sendable {
    /// Nil when playback has ended.
    var deck: Deck?
    var countedPlays: [CountedPlay]
    /// Something clients see changed (the track, playing or not, the side's end, idle): this takes a
    /// new revision. Counting a play alone does not.
    var changed: Bool
}

// MARK: - What happens by itself

extension Deck {
    /// Replays the time since the facts were written: tracks with known lengths follow one another
    /// down the side, at the side's end the record waits to be flipped (or playback ends when nothing
    /// follows), a pause or a waiting record expires after 30 minutes, and plays that reached their
    /// threshold are counted, each once, with the instant they began.
    func settled(at nowMs: Int64, in tracklist: Tracklist?) -> Settlement {
        var deck = self
        var countedPlays: [CountedPlay] = []
        var changed = false
        while true {
            // The album lost its tracks, or a sync rewrote them without this one: nothing to play.
            guard let tracklist, let location = deck.location(in: tracklist) else {
                return Settlement(deck: nil, countedPlays: countedPlays, changed: true)
            }
            let track = tracklist[location]
            deck.trackId = track.id
            switch deck.motion {
            case .playing(let trackStartedAtMs, let sinceMs):
                let endMs = track.durationMs.map { trackStartedAtMs + $0 }
                if let play = deck.countPlay(of: track, heardUntilMs: min(nowMs, endMs ?? nowMs), sinceMs: sinceMs) {
                    countedPlays.append(play)
                }
                guard let endMs, endMs <= nowMs else {
                    return Settlement(deck: deck, countedPlays: countedPlays, changed: changed)
                }
                changed = true
                if let next = tracklist.location(after: location) {
                    deck.cue(tracklist[next], motion: .playing(trackStartedAtMs: endMs, sinceMs: endMs), at: endMs)
                } else if deck.hasMore(after: location, in: tracklist) {
                    deck.motion = .sideEnded(sinceMs: endMs)
                } else {
                    return Settlement(deck: nil, countedPlays: countedPlays, changed: true)
                }
            case .paused(_, let sinceMs), .sideEnded(let sinceMs):
                let expired = sinceMs + Self.pauseExpiryMs <= nowMs
                return Settlement(deck: expired ? nil : deck, countedPlays: countedPlays, changed: changed || expired)
            }
        }
    }

    /// When a settled deck next changes by itself (its track ends, its play counts, its pause
    /// expires); nil when nothing will happen without a command.
    func nextChangeMs(in tracklist: Tracklist) -> Int64? {
        guard let location = location(in: tracklist) else { return nil }
        let track = tracklist[location]
        switch motion {
        case .playing(let trackStartedAtMs, let sinceMs):
            let endMs = track.durationMs.map { trackStartedAtMs + $0 }
            let countsAtMs = play.recorded ? nil : sinceMs + track.countsAfterMs - play.listenedMs
            return [endMs, countsAtMs].compactMap { $0 }.min()
        case .paused(_, let sinceMs), .sideEnded(let sinceMs):
            return sinceMs + Self.pauseExpiryMs
        }
    }

    /// Counts the current play once it has been heard long enough, up to `heardUntilMs`.
    private mutating func countPlay(of track: PlayableTrack, heardUntilMs: Int64, sinceMs: Int64) -> CountedPlay? {
        guard !play.recorded, play.listenedMs + (heardUntilMs - sinceMs) >= track.countsAfterMs else { return nil }
        play.recorded = true
        return CountedPlay(albumId: albumId, track: track, listeningId: listeningId, playedAtMs: play.startedAtMs)
    }

    /// Puts the needle on `track`: a new play begins.
    private mutating func cue(_ track: PlayableTrack, motion: Motion, at nowMs: Int64) {
        trackId = track.id
        trackPosition = track.position
        self.motion = motion
        play = Play(startedAtMs: nowMs)
    }
}

// MARK: - Commands

extension Deck {
    func paused(at nowMs: Int64, in tracklist: Tracklist) throws(Refusal) -> Deck {
        guard case .playing(_, let sinceMs) = motion, let location = location(in: tracklist) else {
            throw .conflict(.notPlaying)
        }
        var deck = self
        deck.play.listenedMs += nowMs - sinceMs
        deck.motion = .paused(positionMs: positionMs(at: nowMs, of: tracklist[location]), sinceMs: nowMs)
        return deck
    }

    func resumed(at nowMs: Int64) throws(Refusal) -> Deck {
        switch motion {
        case .playing: throw .conflict(.notPaused)
        case .sideEnded: throw .conflict(.needsFlip)
        case .paused(let positionMs, _):
            var deck = self
            deck.motion = .playing(trackStartedAtMs: nowMs - positionMs, sinceMs: nowMs)
            // A track cued while paused begins its play when it is first heard.
            if deck.play.listenedMs == 0 { deck.play.startedAtMs = nowMs }
            return deck
        }
    }

    /// `next`: the next track on the side, keeping playing or paused. From the side's last track the
    /// record waits to be flipped, or playback ends (nil) when nothing follows.
    func skippedForward(at nowMs: Int64, in tracklist: Tracklist) throws(Refusal) -> Deck? {
        if needsFlip { throw .conflict(.needsFlip) }
        guard let location = location(in: tracklist) else { throw .conflict(.nothingPlaying) }
        var deck = self
        if let next = tracklist.location(after: location) {
            deck.cue(tracklist[next], motion: isPlaying ? .playing(trackStartedAtMs: nowMs, sinceMs: nowMs)
                                                        : .paused(positionMs: 0, sinceMs: nowMs), at: nowMs)
            return deck
        }
        guard hasMore(after: location, in: tracklist) else { return nil }
        deck.motion = .sideEnded(sinceMs: nowMs)
        return deck
    }

    /// `previous`: restarts the current track when more than 3 s in, else goes to the previous
    /// track on the side (restarting the first). Playing stays playing; paused, or a record waiting
    /// at the side's end, is paused at 0.
    func skippedBack(at nowMs: Int64, in tracklist: Tracklist) throws(Refusal) -> Deck {
        guard let location = location(in: tracklist) else { throw .conflict(.nothingPlaying) }
        let restart = positionMs(at: nowMs, of: tracklist[location]) > Self.restartThresholdMs
        let target = restart ? location : (tracklist.location(before: location) ?? location)
        var deck = self
        deck.cue(tracklist[target], motion: isPlaying ? .playing(trackStartedAtMs: nowMs, sinceMs: nowMs)
                                                      : .paused(positionMs: 0, sinceMs: nowMs), at: nowMs)
        return deck
    }

    /// `seek`: moves the needle within the current track. The play goes on (time heard still counts).
    func sought(to positionMs: Int64, at nowMs: Int64, in tracklist: Tracklist) throws(Refusal) -> Deck {
        if needsFlip { throw .conflict(.needsFlip) }
        guard let location = location(in: tracklist) else { throw .conflict(.nothingPlaying) }
        let track = tracklist[location]
        guard positionMs >= 0 else {
            throw .rule(.negativePosition, "positionMs must be 0 or more, not \(positionMs)")
        }
        if let durationMs = track.durationMs, positionMs > durationMs {
            throw .rule(.seekPastEnd, "\(positionMs) ms is past the end of \(track.position) (\(durationMs) ms long)")
        }
        if track.durationMs == nil, positionMs > Self.unknownLengthSeekLimitMs {
            throw .rule(.seekPastEnd, "\(positionMs) ms is past the \(Self.unknownLengthSeekLimitMs) ms (24 hours) a seek goes into \(track.position), whose length is unknown")
        }
        var deck = self
        switch motion {
        case .playing(_, let sinceMs):
            deck.play.listenedMs += nowMs - sinceMs
            deck.motion = .playing(trackStartedAtMs: nowMs - positionMs, sinceMs: nowMs)
        case .paused, .sideEnded:
            deck.motion = .paused(positionMs: positionMs, sinceMs: nowMs)
        }
        return deck
    }

    /// `flip`: plays the next side of this album from its first track; nil on the last side (the
    /// service then puts on the next album of a crate queue, or refuses).
    func flipped(at nowMs: Int64, in tracklist: Tracklist) throws(Refusal) -> Deck? {
        guard let location = location(in: tracklist) else { throw .conflict(.nothingPlaying) }
        guard let nextSide = tracklist.firstLocationOfSide(after: location) else { return nil }
        var deck = self
        deck.cue(tracklist[nextSide], motion: .playing(trackStartedAtMs: nowMs, sinceMs: nowMs), at: nowMs)
        return deck
    }
}
