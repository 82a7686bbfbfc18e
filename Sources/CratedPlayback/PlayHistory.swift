import CratedCore

/// One play that counted (a track heard for half its length or 4 minutes, whichever came first).
public struct PlayHistoryEntry: Codable, Sendable, Equatable {
    public var id: Int64
    /// RFC 3339: when the play began.
    public var playedAt: String
    public var albumId: Int64
    public var albumTitle: String
    /// The track's artists as credited when they were not the album's, else the album's.
    public var artist: String
    /// The track as it was when played; the id may no longer exist after a sync rewrote the tracks.
    public var trackId: Int64?
    public var trackTitle: String
    public var trackPosition: String
    public var side: String?
    public var durationMs: Int64?
    /// The album's cover at list-row size for the screen that asked (`sized(scale:)`); null without one.
    public var artwork: ArtworkReference?
    /// The album's cover, which `artwork` is sized from; not sent.
    var cover: AlbumCover?

    enum CodingKeys: String, CodingKey {
        case id, playedAt, albumId, albumTitle, artist, trackId, trackTitle, trackPosition, side, durationMs, artwork
    }

    /// The entry with `artwork` for a list row at `scale` (1-3).
    public func sized(scale: Double) -> PlayHistoryEntry {
        var entry = self
        entry.artwork = cover?.artwork(pixels: ArtworkSize.Drawn.listItem * scale)
        return entry
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(playedAt, forKey: .playedAt)
        try container.encode(albumId, forKey: .albumId)
        try container.encode(albumTitle, forKey: .albumTitle)
        try container.encode(artist, forKey: .artist)
        try container.encode(trackId, forKey: .trackId)
        try container.encode(trackTitle, forKey: .trackTitle)
        try container.encode(trackPosition, forKey: .trackPosition)
        try container.encode(side, forKey: .side)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(artwork, forKey: .artwork)
    }
}

/// A place in a user's history, newest first: the page after a cursor holds the plays older than it.
/// Its text form (`1750000123456_42`) is what the API sends as `next` and accepts back.
public struct HistoryCursor: Sendable, Hashable, LosslessStringConvertible {
    let playedAtMs: Int64
    let id: Int64

    init(playedAtMs: Int64, id: Int64) {
        self.playedAtMs = playedAtMs
        self.id = id
    }

    /// Nil for text that is not a cursor: the API should answer 400.
    public init?(_ description: String) {
        let parts = description.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let playedAtMs = Int64(parts[0]), let id = Int64(parts[1]) else { return nil }
        self.init(playedAtMs: playedAtMs, id: id)
    }

    public var description: String { "\(playedAtMs)_\(id)" }
}

public struct HistoryPage: Sendable, Equatable {
    public var entries: [PlayHistoryEntry]
    /// Nil on the last page.
    public var next: HistoryCursor?
}

/// For album detail: how often and when the user last played the album.
public struct AlbumPlayStats: Codable, Sendable, Equatable {
    /// Listenings that counted at least one track: putting the record on and playing it through
    /// counts once, however many tracks it has.
    public var playCount: Int
    /// Tracks of the album that counted, over all listenings.
    public var trackPlayCount: Int
    /// RFC 3339; nil when never played.
    public var lastPlayedAt: String?

    enum CodingKeys: String, CodingKey {
        case playCount, trackPlayCount, lastPlayedAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(playCount, forKey: .playCount)
        try container.encode(trackPlayCount, forKey: .trackPlayCount)
        try container.encode(lastPlayedAt, forKey: .lastPlayedAt)
    }
}

/// RFC 3339 in UTC, from epoch milliseconds.
enum RFC3339 {
    static func seconds(_ epochMs: Int64) -> String {
        Timestamp.string(fromEpochSeconds: floorDivide(epochMs, 1000))
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    }
}
