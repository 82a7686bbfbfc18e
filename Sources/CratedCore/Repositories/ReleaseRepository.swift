import CratedJSON
import Foundation
import GRDB

public enum ReleaseWriteError: Error, Equatable, CustomStringConvertible {
    case albumMissing(Int64)

    public var description: String {
        switch self {
        case .albumMissing(let id): "album \(id) no longer exists"
        }
    }
}

/// What a sync pass learned about one album, for `AppDatabase.recordSyncResults`.
public struct AlbumSyncResult: Sendable {
    public enum Outcome: Sendable {
        /// The release as Discogs has it now: replaces the album's catalogue data.
        case fetched(ReleaseMetadata, etag: String?)
        /// 304 to `If-None-Match`: only the album's freshness changes.
        case notModified
        /// Discogs has no such release; asked again after `retryAfter`.
        case notFound(retryAfter: TimeInterval)
        /// The fetch failed; due again after `retryDelay(attempts)` seconds, `attempts` counting this failure.
        case failed(error: String, retryDelay: @Sendable (Int) -> TimeInterval)
    }

    public var albumId: Int64
    public var outcome: Outcome

    public init(albumId: Int64, outcome: Outcome) {
        self.albumId = albumId
        self.outcome = outcome
    }
}

extension AppDatabase {
    /// Writes a group of albums' sync results in one transaction, each album inside a savepoint of
    /// its own. Returns, in order, nil for each album written, else why it was not: an album that
    /// fails (`ReleaseWriteError.albumMissing`, or a `DatabaseError` of its own) is rolled back alone
    /// and the others still commit. Throws when the transaction as a whole fails; then none of them
    /// is written.
    ///
    /// Why a group is safe: every album is all-or-nothing inside its savepoint, and the savepoints
    /// only become durable together at COMMIT. A crash before that loses the group's writes, which
    /// leaves each of its albums exactly as it was before the pass (unsynced, due again); a crash
    /// after it leaves each one fully synced. Committing the albums of a fast pass together rather
    /// than one by one writes each shared page (indexes, the search index) once per group instead of
    /// once per album, which is most of what a commit costs.
    public func recordSyncResults(_ results: [AlbumSyncResult], at date: Date) async throws -> [(any Error)?] {
        let now = Timestamp.string(from: date)
        return try await writeOutsideTransaction { db in
            // A savepoint keeps the earlier content of every page it changes in a sub-journal,
            // which SQLite moves to a temporary file once it passes 64 KiB. One album's rows pass
            // it, and writing that file (some 60 writes per album) took a quarter of the writer's
            // time. In memory it is emptied at each release. Set outside a transaction, as SQLite
            // requires; the setting stays with the writer's connection.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            var errors: [(any Error)?] = []
            try db.inTransaction(.immediate) {
                errors = try Self.recordGroup(db, results, date: date, now: now)
                return .commit
            }
            return errors
        }
    }

    /// The group's albums inside the caller's transaction, each in a savepoint; see `recordSyncResults`.
    private static func recordGroup(_ db: Database, _ results: [AlbumSyncResult], date: Date, now: String) throws -> [(any Error)?] {
        var errors: [(any Error)?] = []
        var syncedAlbumIds: [Int64] = []
        for result in results {
            do {
                try db.inSavepoint {
                    try record(db, result, date: date, now: now)
                    return .commit
                }
                if case .fetched = result.outcome { syncedAlbumIds.append(result.albumId) }
                errors.append(nil)
            } catch {
                // Cancelled, or SQLite rolled the whole transaction back (disk full, I/O error):
                // no album of the group can commit.
                if error is CancellationError || !db.isInsideTransaction { throw error }
                errors.append(error)
            }
        }
        // Once for the whole group rather than per album: FTS5 writes a new index segment at every
        // savepoint it takes part in. Same transaction, so no album commits without its search row.
        try SearchIndex.refresh(db, albumIds: syncedAlbumIds)
        return errors
    }

    private static func record(_ db: Database, _ result: AlbumSyncResult, date: Date, now: String) throws {
        let albumId = result.albumId
        switch result.outcome {
        case .fetched(let release, let etag):
            try writeRelease(db, release, albumId: albumId, now: now, refreshingSearch: false)
            try markSynced(db, albumId: albumId, etag: etag, imagesWithheld: release.imagesWithheld, at: now)
        case .notModified:
            try markSyncNotModified(db, albumId: albumId, at: now)
        case .notFound(let retryAfter):
            try upsertSyncState(db, albumId: albumId, status: .notFound, error: "Discogs has no release with this id",
                                at: date, nextAttempt: date.addingTimeInterval(retryAfter), countsAsAttempt: false)
        case .failed(let error, let retryDelay):
            let attempts = try Int.fetchOne(db.cachedStatement(sql: "SELECT attempts FROM album_sync WHERE album_id = ?"), arguments: [albumId]) ?? 0
            try upsertSyncState(db, albumId: albumId, status: .failed, error: error,
                                at: date, nextAttempt: date.addingTimeInterval(retryDelay(attempts + 1)), countsAsAttempt: true)
        }
    }

    /// Overwrites the album row and all of its catalogue rows (artists, labels, formats, genres,
    /// images, credits, tracks with their own artists and credits) and, unless the caller does it for several albums at once, refreshes its
    /// search row, inside the caller's transaction.
    static func writeRelease(_ db: Database, _ release: ReleaseMetadata, albumId: Int64, now: String, refreshingSearch: Bool = true) throws {
        // Sync writes thousands of albums in a pass: every statement is a cached one.
        func run(_ sql: String, _ arguments: StatementArguments) throws {
            try db.cachedStatement(sql: sql).execute(arguments: arguments)
        }
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM album WHERE id = ?"), arguments: [albumId]) != nil else {
            throw ReleaseWriteError.albumMissing(albumId)
        }
        let previousArtistIds = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT artist_id FROM album_artist WHERE album_id = ?1
            UNION SELECT credit.artist_id FROM track_artist credit JOIN track ON track.id = credit.track_id WHERE track.album_id = ?1
            """), arguments: [albumId])
        let artistIds = try release.artists.map { try resolveArtist(db, $0) }

        let credit = release.artistCredit
        let title = release.title.trimmingCharacters(in: .whitespaces)
        try run("""
            UPDATE album SET
                discogs_master_id = ?,
                title = CASE WHEN ? = '' THEN title ELSE ? END,
                sort_title = CASE WHEN ? = '' THEN sort_title ELSE ? END,
                artist_credit = CASE WHEN ? = '' THEN artist_credit ELSE ? END,
                artist_sort_name = CASE WHEN ? = '' THEN artist_sort_name ELSE ? END,
                year = ?, released = ?, country = ?,
                format_summary = COALESCE(format_summary, ?),
                updated_at = ?
            WHERE id = ?
            """, [
                release.masterId,
                title, title, title, DiscogsText.sortKey(title),
                credit, credit, credit, DiscogsText.sortKey(credit),
                release.year, release.released, release.country,
                formatSummary(release.formats), now, albumId,
            ])

        // Images Discogs withheld (asked without a token) leave those a token brought before as they are.
        let keepsStoredImages = try release.imagesWithheld
            && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM album_image WHERE album_id = ?)", arguments: [albumId]) == true
        let replacedTables = ["album_artist", "album_label", "album_format", "album_genre", "album_credit", "track"]
            + (keepsStoredImages ? [] : ["album_image"])
        for table in replacedTables {
            try run("DELETE FROM \(table) WHERE album_id = ?", [albumId])
        }
        for (position, (artist, artistId)) in zip(release.artists, artistIds).enumerated() {
            try run("INSERT INTO album_artist (album_id, position, artist_id, join_phrase) VALUES (?, ?, ?, ?)",
                    [albumId, position, artistId, artist.joinPhrase])
        }
        for (position, label) in release.labels.enumerated() {
            try run("INSERT INTO album_label (album_id, position, name, catalog_number, discogs_id) VALUES (?, ?, ?, ?, ?)",
                    [albumId, position, label.name, label.catalogNumber, label.discogsId])
        }
        for (position, format) in release.formats.enumerated() {
            try run("INSERT INTO album_format (album_id, position, name, quantity, descriptions, text) VALUES (?, ?, ?, ?, ?, ?)",
                    [albumId, position, format.name, format.quantity, JSONText.array(format.descriptions), format.text])
        }
        // Discogs occasionally lists a genre twice; the key is (album, kind, name).
        for (kind, names) in [("genre", release.genres), ("style", release.styles)] {
            for (position, name) in names.enumerated() {
                try run("INSERT OR IGNORE INTO album_genre (album_id, kind, name, position) VALUES (?, ?, ?, ?)",
                        [albumId, kind, name, position])
            }
        }
        for (position, image) in release.images.enumerated() where !keepsStoredImages {
            try run("INSERT INTO album_image (album_id, position, kind, uri, uri150, width, height) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [albumId, position, image.kind.rawValue, image.uri, image.uri150, image.width, image.height])
        }
        var creditPosition = 0
        func insert(_ credits: [ReleaseMetadata.Credit], trackId: Int64?) throws {
            for credit in credits {
                try run("""
                    INSERT INTO album_credit (album_id, position, track_id, name, discogs_name, credited_name, discogs_id, role, tracks)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [albumId, creditPosition, trackId, credit.name, credit.discogsName, credit.creditedName, credit.discogsId,
                          credit.role, credit.tracks])
                creditPosition += 1
            }
        }
        try insert(release.credits, trackId: nil)
        var sortOrder = 0
        func insert(_ track: ReleaseMetadata.Track, parentId: Int64?) throws -> Int64 {
            try run("""
                INSERT INTO track (album_id, parent_id, position, side, sort_order, title, duration_ms, kind, artist_credit)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [albumId, parentId, track.position, track.side, sortOrder, track.title, track.durationMs, track.kind.rawValue,
                      track.artistCredit])
            sortOrder += 1
            let trackId = db.lastInsertedRowID
            for (position, artist) in track.artists.enumerated() {
                try run("INSERT INTO track_artist (track_id, position, artist_id, join_phrase) VALUES (?, ?, ?, ?)",
                        [trackId, position, try resolveArtist(db, artist), artist.joinPhrase])
            }
            try insert(track.credits, trackId: trackId)
            return trackId
        }
        for track in release.tracks {
            let trackId = try insert(track, parentId: nil)
            for subTrack in track.subTracks { _ = try insert(subTrack, parentId: trackId) }
        }

        // A CSV credit is one whole-credit artist until sync brings the real ones; once no album or
        // track names it, it would only clutter artist pages. Its id leads on to the release's first
        // artist (`artist_successor`), as do the ids that led to it: an app may have kept them.
        let replaced = Set(previousArtistIds).subtracting(artistIds)
        for artistId in replaced {
            let unnamed = try Bool.fetchOne(db.cachedStatement(sql: """
                SELECT 1 FROM artist WHERE id = ? AND discogs_id IS NULL
                AND NOT EXISTS (SELECT 1 FROM album_artist WHERE artist_id = artist.id)
                AND NOT EXISTS (SELECT 1 FROM track_artist WHERE artist_id = artist.id)
                """), arguments: [artistId]) ?? false
            guard unnamed else { continue }
            if let successor = artistIds.first {
                try run("UPDATE artist_successor SET successor_id = ?2 WHERE successor_id = ?1", [artistId, successor])
                try run("INSERT OR REPLACE INTO artist_successor (artist_id, successor_id) VALUES (?, ?)", [artistId, successor])
            }
            try run("DELETE FROM artist WHERE id = ?", [artistId])
        }
        if refreshingSearch { try SearchIndex.refresh(db, albumIds: [albumId]) }
    }

    /// The artist row for a credited artist: found by Discogs id, else the artist a CSV import
    /// created under the same Discogs name (which then gains its id), else a new row.
    static func resolveArtist(_ db: Database, _ artist: ReleaseMetadata.Artist) throws -> Int64 {
        let sortName = DiscogsText.sortKey(artist.name)
        if let discogsId = artist.discogsId {
            if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM artist WHERE discogs_id = ?"), arguments: [discogsId])
                ?? Int64.fetchOne(db.cachedStatement(sql: unidentifiedArtistSQL), arguments: [artist.discogsName]) {
                try db.cachedStatement(sql: """
                    UPDATE artist SET name = ?, discogs_name = ?, discogs_id = ?, sort_name = ?
                    WHERE id = ? AND (name, discogs_name, discogs_id, sort_name) IS NOT (?, ?, ?, ?)
                    """).execute(arguments: [artist.name, artist.discogsName, discogsId, sortName, id,
                                             artist.name, artist.discogsName, discogsId, sortName])
                return id
            }
        } else if let id = try Int64.fetchOne(db.cachedStatement(sql: unidentifiedArtistSQL), arguments: [artist.discogsName]) {
            return id
        }
        try db.cachedStatement(sql: "INSERT INTO artist (name, discogs_name, discogs_id, sort_name) VALUES (?, ?, ?, ?)")
            .execute(arguments: [artist.name, artist.discogsName, artist.discogsId, sortName])
        return db.lastInsertedRowID
    }

    private static let unidentifiedArtistSQL = "SELECT id FROM artist WHERE discogs_name = ? AND discogs_id IS NULL"

    /// A summary in the export's style (`2xVinyl, LP, Album + CD`), for albums that came without one.
    static func formatSummary(_ formats: [ReleaseMetadata.Format]) -> String? {
        guard !formats.isEmpty else { return nil }
        return formats.map { format in
            ([(format.quantity > 1 ? "\(format.quantity)x" : "") + format.name] + format.descriptions).joined(separator: ", ")
        }.joined(separator: " + ")
    }

    // MARK: - Reading what sync wrote (for tests and album pages)

    public func tracks(ofAlbum albumId: Int64) throws -> [Track] {
        try read { db in
            try Track.filter(Column("album_id") == albumId).order(Column("sort_order")).fetchAll(db)
        }
    }

    public func album(discogsReleaseId: Int64) throws -> Album? {
        try read { db in try Album.filter(Column("discogs_release_id") == discogsReleaseId).fetchOne(db) }
    }

    /// The album's artists in credit order, each with its join phrase.
    public func artists(ofAlbum albumId: Int64) throws -> [(artist: Artist, joinPhrase: String)] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT artist.*, album_artist.join_phrase AS join_phrase FROM album_artist
                JOIN artist ON artist.id = album_artist.artist_id
                WHERE album_artist.album_id = ? ORDER BY album_artist.position
                """, arguments: [albumId])
            return try rows.map { (try Artist(row: $0), $0["join_phrase"]) }
        }
    }
}
