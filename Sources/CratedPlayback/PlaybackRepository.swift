import CratedCore
import Foundation
import GRDB

/// A user's stored playback facts: the revision, and the deck when something is on the turntable.
struct PlaybackFacts: Equatable, Sendable {
    var revision: Int64
    var deck: Deck?

    static let neverPlayed = PlaybackFacts(revision: 0, deck: nil)
}

/// The `playback_state` row.
struct PlaybackStateRecord: CratedRecord, Equatable {
    var userId: Int64
    var revision: Int64
    var status: PlaybackStatus
    var needsFlip: Bool
    var albumId: Int64?
    var trackId: Int64?
    var trackPosition: String?
    var trackStartedAtMs: Int64?
    var positionMs: Int64?
    var sinceMs: Int64?
    var playStartedAtMs: Int64?
    var listenedMs: Int64
    var playRecorded: Bool
    var listeningId: Int64?
    var crateId: Int64?
    /// A JSON array of album ids.
    var queueAlbumIds: String
    var updatedAtMs: Int64

    static let databaseTableName = "playback_state"

    init(userId: Int64, facts: PlaybackFacts, updatedAtMs: Int64) {
        self.userId = userId
        revision = facts.revision
        self.updatedAtMs = updatedAtMs
        guard let deck = facts.deck else {
            status = .idle
            needsFlip = false
            listenedMs = 0
            playRecorded = false
            queueAlbumIds = "[]"
            return
        }
        switch deck.motion {
        case .playing(let trackStartedAtMs, let sinceMs):
            status = .playing
            needsFlip = false
            self.trackStartedAtMs = trackStartedAtMs
            self.sinceMs = sinceMs
        case .paused(let positionMs, let sinceMs):
            status = .paused
            needsFlip = false
            self.positionMs = positionMs
            self.sinceMs = sinceMs
        case .sideEnded(let sinceMs):
            status = .paused
            needsFlip = true
            self.sinceMs = sinceMs
        }
        albumId = deck.albumId
        trackId = deck.trackId
        trackPosition = deck.trackPosition
        playStartedAtMs = deck.play.startedAtMs
        listenedMs = deck.play.listenedMs
        playRecorded = deck.play.recorded
        listeningId = deck.listeningId
        crateId = deck.crateId
        queueAlbumIds = "[" + deck.queue.map(String.init).joined(separator: ",") + "]"
    }

    var facts: PlaybackFacts {
        PlaybackFacts(revision: revision, deck: deck)
    }

    /// Nil when idle (or, defensively, when a row lacks what its status needs: it then reads as idle).
    private var deck: Deck? {
        guard let albumId, let trackId, let trackPosition, let sinceMs, let playStartedAtMs, let listeningId else {
            return nil
        }
        let motion: Deck.Motion
        switch (status, needsFlip, trackStartedAtMs, positionMs) {
        case (.playing, _, let trackStartedAtMs?, _): motion = .playing(trackStartedAtMs: trackStartedAtMs, sinceMs: sinceMs)
        case (.paused, true, _, _): motion = .sideEnded(sinceMs: sinceMs)
        case (.paused, false, _, let positionMs?): motion = .paused(positionMs: positionMs, sinceMs: sinceMs)
        default: return nil
        }
        let queue = (try? JSONDecoder().decode([Int64].self, from: Data(queueAlbumIds.utf8))) ?? []
        return Deck(
            albumId: albumId, trackId: trackId, trackPosition: trackPosition, motion: motion,
            play: Deck.Play(startedAtMs: playStartedAtMs, listenedMs: listenedMs, recorded: playRecorded),
            listeningId: listeningId, crateId: crateId, queue: queue)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case userId = "user_id", revision, status, needsFlip = "needs_flip", albumId = "album_id"
        case trackId = "track_id", trackPosition = "track_position", trackStartedAtMs = "track_started_at_ms"
        case positionMs = "position_ms", sinceMs = "since_ms", playStartedAtMs = "play_started_at_ms"
        case listenedMs = "listened_ms", playRecorded = "play_recorded", listeningId = "listening_id"
        case crateId = "crate_id", queueAlbumIds = "queue_album_ids", updatedAtMs = "updated_at_ms"
    }

    enum Columns {
        static let userId = Column(CodingKeys.userId)
        static let revision = Column(CodingKeys.revision)
        static let status = Column(CodingKeys.status)
        static let needsFlip = Column(CodingKeys.needsFlip)
        static let albumId = Column(CodingKeys.albumId)
        static let trackId = Column(CodingKeys.trackId)
        static let trackPosition = Column(CodingKeys.trackPosition)
        static let trackStartedAtMs = Column(CodingKeys.trackStartedAtMs)
        static let positionMs = Column(CodingKeys.positionMs)
        static let sinceMs = Column(CodingKeys.sinceMs)
        static let playStartedAtMs = Column(CodingKeys.playStartedAtMs)
        static let listenedMs = Column(CodingKeys.listenedMs)
        static let playRecorded = Column(CodingKeys.playRecorded)
        static let listeningId = Column(CodingKeys.listeningId)
        static let crateId = Column(CodingKeys.crateId)
        static let queueAlbumIds = Column(CodingKeys.queueAlbumIds)
        static let updatedAtMs = Column(CodingKeys.updatedAtMs)
    }
}

/// Album title and credit, as the mini-player and history show them.
struct AlbumHeading: Equatable, Sendable {
    let id: Int64
    let title: String
    let artistCredit: String
}

/// Every query and write of the playback service: methods that run in a transaction of their own,
/// and static ones that run inside the caller's, as in CratedCore's repositories. Statements run on
/// requests are cached: preparing one anew (SQLite's parse, GRDB's authorizer) costs more than
/// running it, and the mini-player document is read on every `GET /v1/player` and event.
extension AppDatabase {
    /// The user's stored state, with the tracklist of the album on the turntable, read together.
    func playbackState(userId: Int64) throws -> (facts: PlaybackFacts, tracklist: Tracklist?) {
        try read { db in
            let facts = try PlaybackStateRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM playback_state WHERE user_id = ?"),
                                                         arguments: [userId])?.facts ?? .neverPlayed
            return (facts, try facts.deck.map { try Self.tracklist(db, albumId: $0.albumId) })
        }
    }

    /// Stores the user's state and the plays that counted, in one transaction.
    func savePlaybackState(userId: Int64, facts: PlaybackFacts, nowMs: Int64, countedPlays: [CountedPlay] = []) async throws {
        try await write { db in
            var record = PlaybackStateRecord(userId: userId, facts: facts, updatedAtMs: nowMs)
            try record.upsert(db)
            for play in countedPlays {
                try db.cachedStatement(sql: """
                    INSERT INTO play_history
                        (user_id, album_id, track_id, track_position, track_title, track_artist_credit, side, duration_ms,
                         listening_id, played_at_ms)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [userId, play.albumId, play.track.id, play.track.position, play.track.title,
                                             play.track.artistCredit, play.track.side, play.track.durationMs, play.listeningId,
                                             play.playedAtMs])
            }
        }
    }

    /// Users whose state can still change by itself (the scheduler's start-up scan).
    func activePlaybackUserIds() throws -> [Int64] {
        try read { db in
            try Int64.fetchAll(db, sql: "SELECT user_id FROM playback_state WHERE status <> 'idle' ORDER BY user_id")
        }
    }

    func tracklist(albumId: Int64) throws -> Tracklist {
        try read { db in try Self.tracklist(db, albumId: albumId) }
    }

    /// The user's plays, newest first: `limit` of them older than `cursor`.
    func playHistory(userId: Int64, before cursor: HistoryCursor?, limit: Int) throws -> HistoryPage {
        try read { db in try Self.playHistory(db, userId: userId, before: cursor, limit: limit) }
    }

    func albumPlayStats(userId: Int64, albumId: Int64) throws -> AlbumPlayStats {
        // One SELECT: consistent without a transaction.
        try unsafeRead { db in try Self.albumPlayStats(db, userId: userId, albumId: albumId) }
    }

    static func tracklist(_ db: Database, albumId: Int64) throws -> Tracklist {
        // A sub-track without a side or artists of its own takes its index track's.
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT t.id, t.position, t.title, COALESCE(t.side, parent.side) AS side, t.duration_ms,
                   COALESCE(t.artist_credit, parent.artist_credit) AS artist_credit
            FROM track t LEFT JOIN track parent ON parent.id = t.parent_id
            WHERE t.album_id = ? AND t.kind IN ('track', 'subtrack')
            ORDER BY t.sort_order, t.id
            """), arguments: [albumId])
        let tracks = rows.map { row in
            PlayableTrack(id: row["id"], position: row["position"], title: row["title"], side: row["side"],
                          durationMs: row["duration_ms"], artistCredit: row["artist_credit"])
        }
        return Tracklist(albumId: albumId, tracks: tracks)
    }

    static func ownsAlbum(_ db: Database, userId: Int64, albumId: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM collection_item WHERE user_id = ? AND album_id = ?)"),
                          arguments: [userId, albumId]) ?? false
    }

    static func albumHasTrack(_ db: Database, albumId: Int64, trackId: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM track WHERE id = ? AND album_id = ?)"),
                          arguments: [trackId, albumId]) ?? false
    }

    /// The albums of the user's crate that have playable tracks, in crate order, each once (a crate
    /// may hold several copies of one album); nil when the user has no such crate.
    static func playableCrateAlbumIds(_ db: Database, userId: Int64, crateId: Int64) throws -> [Int64]? {
        let owned = try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM crate WHERE id = ? AND user_id = ?)"),
                                      arguments: [crateId, userId]) ?? false
        guard owned else { return nil }
        let albumIds = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT item.album_id
            FROM crate_item entry JOIN collection_item item ON item.id = entry.item_id
            WHERE entry.crate_id = ? AND item.user_id = ?
              AND EXISTS (SELECT 1 FROM track WHERE album_id = item.album_id AND kind IN ('track', 'subtrack'))
            ORDER BY entry.position, entry.item_id
            """), arguments: [crateId, userId])
        var seen = Set<Int64>()
        return albumIds.filter { seen.insert($0).inserted }
    }

    static func albumHeading(_ db: Database, albumId: Int64) throws -> AlbumHeading? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT id, title, artist_credit FROM album WHERE id = ?"), arguments: [albumId])
            .map { AlbumHeading(id: $0["id"], title: $0["title"], artistCredit: $0["artist_credit"]) }
    }

    private static func playHistory(_ db: Database, userId: Int64, before cursor: HistoryCursor?, limit: Int) throws -> HistoryPage {
        let limit = max(limit, 1)
        // One row more than asked says whether there is a next page. A sync that rewrote the
        // album's tracklist gave its tracks new ids: the entry names the track now at its
        // position, so that a client can play it again (null when there is none).
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT h.id, h.played_at_ms, h.album_id, a.title AS album_title,
                   COALESCE(h.track_artist_credit, a.artist_credit) AS artist_credit,
                   COALESCE((SELECT t.id FROM track t WHERE t.id = h.track_id AND t.album_id = h.album_id),
                            (SELECT t.id FROM track t WHERE t.album_id = h.album_id AND t.position = h.track_position
                                                        AND t.kind IN ('track', 'subtrack')
                             ORDER BY t.sort_order LIMIT 1)) AS track_id,
                   h.track_title, h.track_position, h.side, h.duration_ms, \(AlbumCover.columns)
            FROM play_history h JOIN album a ON a.id = h.album_id
            \(AlbumCover.joins(album: "h.album_id"))
            WHERE h.user_id = ? AND (h.played_at_ms < ? OR (h.played_at_ms = ? AND h.id < ?))
            ORDER BY h.played_at_ms DESC, h.id DESC
            LIMIT ?
            """), arguments: [userId, cursor?.playedAtMs ?? Int64.max, cursor?.playedAtMs ?? Int64.max,
                             cursor?.id ?? Int64.max, limit + 1])
        let entries = rows.prefix(limit).map { row in
            PlayHistoryEntry(
                id: row["id"], playedAt: RFC3339.seconds(row["played_at_ms"]), albumId: row["album_id"],
                albumTitle: row["album_title"], artist: row["artist_credit"], trackId: row["track_id"],
                trackTitle: row["track_title"], trackPosition: row["track_position"], side: row["side"],
                durationMs: row["duration_ms"], cover: AlbumCover(coverColumnsOf: row))
        }
        let next = rows.count > limit ? rows[limit - 1] : nil
        return HistoryPage(
            entries: Array(entries),
            next: next.map { HistoryCursor(playedAtMs: $0["played_at_ms"], id: $0["id"]) })
    }

    private static func albumPlayStats(_ db: Database, userId: Int64, albumId: Int64) throws -> AlbumPlayStats {
        // An aggregate without GROUP BY: exactly one row.
        try db.firstRow("""
            SELECT COUNT(DISTINCT listening_id), COUNT(*), MAX(played_at_ms)
            FROM play_history WHERE user_id = ? AND album_id = ?
            """, ids: [userId, albumId]) { columns in
            AlbumPlayStats(playCount: try columns.int(0), trackPlayCount: try columns.int(1),
                           lastPlayedAt: try columns.optionalInt64(2).map(RFC3339.seconds))
        } ?? AlbumPlayStats(playCount: 0, trackPlayCount: 0, lastPlayedAt: nil)
    }
}
