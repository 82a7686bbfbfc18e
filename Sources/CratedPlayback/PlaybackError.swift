/// Why a playback command or query failed. Every case is an answer for the client, never a crash;
/// `httpStatus` is the status the API should send.
public enum PlaybackError: Error, Sendable, CustomStringConvertible {
    /// The command makes no sense in the current state.
    public enum Conflict: String, Sendable, CaseIterable {
        /// Nothing is on the turntable (pause, resume, next, previous, seek, flip or stop when idle).
        case nothingPlaying = "nothing_playing"
        /// Pause while already paused (or at the end of a side).
        case notPlaying = "not_playing"
        /// Resume while playing.
        case notPaused = "not_paused"
        /// The side has played out: only flip, previous, play or stop make sense.
        case needsFlip = "needs_flip"
        /// Flip on the last side with no album queued after it: there is no other side to play.
        case lastSide = "last_side"
    }

    /// The command is well formed but breaks a rule.
    public enum Rule: String, Sendable, CaseIterable {
        case noPlayableTracks = "no_playable_tracks"
        case noSuchSide = "no_such_side"
        case trackNotPlayable = "track_not_playable"
        case negativePosition = "negative_position"
        case seekPastEnd = "seek_past_end"
    }

    public enum Resource: String, Sendable, CaseIterable {
        case album, crate, track
    }

    /// 409: the command carried `expectedRevision` and the state has moved on since.
    case revisionConflict(expected: Int64, current: PlaybackSnapshot)
    /// 409: the command makes no sense in the current state.
    case stateConflict(Conflict, current: PlaybackSnapshot)
    /// 422: a rule is broken (seek past the end, an album with no playable tracks, ...).
    case ruleBroken(Rule, message: String)
    /// 404: no such album, crate or track in this user's collection (someone else's included).
    case notFound(Resource, id: Int64)
    /// 503: the database failed or stayed busy; the client may retry.
    case storage(String)

    public var httpStatus: Int {
        switch self {
        case .revisionConflict, .stateConflict: 409
        case .ruleBroken: 422
        case .notFound: 404
        case .storage: 503
        }
    }

    /// The machine-readable `error.code` of the API.
    public var code: String {
        switch self {
        case .revisionConflict: "revision_conflict"
        case .stateConflict(let conflict, _): conflict.rawValue
        case .ruleBroken(let rule, _): rule.rawValue
        case .notFound(let resource, _): "\(resource.rawValue)_not_found"
        case .storage: "storage_unavailable"
        }
    }

    /// The request field at fault, for the API's `error.field`.
    public var field: String? {
        switch self {
        case .revisionConflict: "expectedRevision"
        case .ruleBroken(.negativePosition, _), .ruleBroken(.seekPastEnd, _): "positionMs"
        case .ruleBroken(.noSuchSide, _): "side"
        case .ruleBroken(.trackNotPlayable, _), .notFound(.track, _): "trackId"
        case .notFound(.album, _): "albumId"
        case .notFound(.crate, _): "crateId"
        case .ruleBroken(.noPlayableTracks, _), .stateConflict, .storage: nil
        }
    }

    /// The state the client should show instead, sent with every 409.
    public var current: PlaybackSnapshot? {
        switch self {
        case .revisionConflict(_, let current), .stateConflict(_, let current): current
        case .ruleBroken, .notFound, .storage: nil
        }
    }

    public var description: String {
        switch self {
        case .revisionConflict(let expected, let current):
            "the player is at revision \(current.revision), not \(expected): it changed since you last saw it"
        case .stateConflict(let conflict, _):
            switch conflict {
            case .nothingPlaying: "nothing is playing"
            case .notPlaying: "the record is not playing"
            case .notPaused: "the record is not paused"
            case .needsFlip: "the side has ended: flip the record"
            case .lastSide: "this is the last side: there is nothing to flip to"
            }
        case .ruleBroken(_, let message): message
        case .notFound(let resource, let id): "no \(resource.rawValue) \(id) in your collection"
        case .storage(let message): "the playback state could not be stored: \(message)"
        }
    }
}

/// A command's refusal before the service attaches the current state to it.
enum Refusal: Error, Equatable {
    case conflict(PlaybackError.Conflict)
    case rule(PlaybackError.Rule, String)
}
