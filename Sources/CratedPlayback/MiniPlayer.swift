import CratedCore

public enum PlaybackStatus: String, Codable, Sendable {
    case idle, playing, paused
}

/// The mini-player document: everything the client's persistent mini-player shows, at `serverTime`.
/// A client that shows a playing track advances `positionMs` itself from the moment it received the
/// document; the server sends a new document whenever anything else changes.
///
/// At the end of a side `state` is `paused` and `needsFlip` is true: the track is the side's last,
/// at its end, and `upNext` says which side (or, in a crate queue, which album) comes next.
/// Absent values are sent as `null`, never omitted.
public struct MiniPlayer: Codable, Sendable, Equatable {
    public struct Track: Codable, Sendable, Equatable {
        public var id: Int64
        public var title: String
        /// As printed on the record: `B2`.
        public var position: String
    }

    public struct Album: Codable, Sendable, Equatable {
        public var id: Int64
        public var title: String
    }

    public var hasActiveTrack: Bool
    public var state: PlaybackStatus
    public var isPlaying: Bool
    public var needsFlip: Bool
    public var track: Track?
    /// The track's artists as credited when they are not the album's (a compilation), else the album's.
    public var artist: String?
    public var album: Album?
    /// The album image sized for a 48 pt thumbnail at the client's scale.
    public var artwork: ArtworkReference?
    public var side: String?
    /// 1-based index of the track among the side's playable tracks.
    public var trackIndex: Int?
    public var trackCount: Int?
    public var positionMs: Int64?
    /// Nil when the track's length is unknown (it then plays until a command moves on).
    public var durationMs: Int64?
    public var upNext: UpNext?
    /// The crate being played as a queue of albums.
    public var crateId: Int64?
    /// RFC 3339 in whole seconds, the one date form of the API (a generated client's default date
    /// decoder reads it): the second `serverTimeMs` falls in.
    public var serverTime: String
    /// Epoch milliseconds: the instant `positionMs` was computed for, for the player's clock.
    public var serverTimeMs: Int64
    public var revision: Int64

    enum CodingKeys: String, CodingKey {
        case hasActiveTrack, state, isPlaying, needsFlip, track, artist, album, artwork, side, trackIndex,
             trackCount, positionMs, durationMs, upNext, crateId, serverTime, serverTimeMs, revision
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(hasActiveTrack, forKey: .hasActiveTrack)
        try container.encode(state, forKey: .state)
        try container.encode(isPlaying, forKey: .isPlaying)
        try container.encode(needsFlip, forKey: .needsFlip)
        try container.encode(track, forKey: .track)
        try container.encode(artist, forKey: .artist)
        try container.encode(album, forKey: .album)
        try container.encode(artwork, forKey: .artwork)
        try container.encode(side, forKey: .side)
        try container.encode(trackIndex, forKey: .trackIndex)
        try container.encode(trackCount, forKey: .trackCount)
        try container.encode(positionMs, forKey: .positionMs)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(upNext, forKey: .upNext)
        try container.encode(crateId, forKey: .crateId)
        try container.encode(serverTime, forKey: .serverTime)
        try container.encode(serverTimeMs, forKey: .serverTimeMs)
        try container.encode(revision, forKey: .revision)
    }
}

/// What plays after the current track: the next track on this side, the first track of the next
/// side (after a flip), or the first track of the next album of a crate queue.
public struct UpNext: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case track, side, album
    }

    public var kind: Kind
    public var albumId: Int64
    public var albumTitle: String
    public var side: String?
    public var trackId: Int64
    public var trackTitle: String
    public var trackPosition: String

    enum CodingKeys: String, CodingKey {
        case kind, albumId, albumTitle, side, trackId, trackTitle, trackPosition
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(albumId, forKey: .albumId)
        try container.encode(albumTitle, forKey: .albumTitle)
        try container.encode(side, forKey: .side)
        try container.encode(trackId, forKey: .trackId)
        try container.encode(trackTitle, forKey: .trackTitle)
        try container.encode(trackPosition, forKey: .trackPosition)
    }
}

/// One image variant: a URL and its size in pixels (nil when unknown).
extension ArtworkReference {
    /// The mini-player's thumbnail: crated's variant of the cover for 48 points at `scale`.
    static func thumbnail(of cover: AlbumCover, scale: Double) -> ArtworkReference? {
        cover.artwork(pixels: ArtworkSize.Drawn.thumbnail * min(max(scale, 1), 3))
    }
}

/// The player's state at one revision, with the album's cover, so that each device renders its own
/// mini-player document (`miniPlayer(scale:)`) without another database read.
public struct PlaybackSnapshot: Sendable, Equatable {
    public let userId: Int64
    /// The document with `artwork` left nil.
    let document: MiniPlayer
    let cover: AlbumCover?

    public var revision: Int64 { document.revision }
    public var status: PlaybackStatus { document.state }

    /// The mini-player document for a screen of `scale` (1-3; out-of-range values are clamped,
    /// though the API should answer 400 to them).
    public func miniPlayer(scale: Double) -> MiniPlayer {
        var document = document
        document.artwork = cover.flatMap { ArtworkReference.thumbnail(of: $0, scale: scale) }
        return document
    }
}

/// One change of a user's player, for Server-Sent Events: `id` is the revision.
public struct PlaybackEvent: Sendable, Equatable {
    public let snapshot: PlaybackSnapshot

    public var revision: Int64 { snapshot.revision }
}
