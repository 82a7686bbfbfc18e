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

extension AppDatabase {
    /// Replaces an album's catalogue data with a release from Discogs and marks it synced, in one
    /// transaction: a crash leaves the album as it was or fully synced, never in between.
    public func applyRelease(_ release: ReleaseMetadata, toAlbum albumId: Int64, etag: String?, at date: Date) async throws {
        let now = Timestamp.string(from: date)
        try await writer.write { db in
            try Self.writeRelease(db, release, albumId: albumId, now: now)
            try Self.markSynced(db, albumId: albumId, etag: etag, at: now)
        }
    }

    /// Overwrites the album row and all of its catalogue rows (artists, labels, formats, genres,
    /// images, tracks) and refreshes its search row, inside the caller's transaction.
    static func writeRelease(_ db: Database, _ release: ReleaseMetadata, albumId: Int64, now: String) throws {
        // Sync writes one album per transaction, thousands in a pass: every statement is a cached one.
        func run(_ sql: String, _ arguments: StatementArguments) throws {
            try db.cachedStatement(sql: sql).execute(arguments: arguments)
        }
        guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM album WHERE id = ?"), arguments: [albumId]) != nil else {
            throw ReleaseWriteError.albumMissing(albumId)
        }
        let previousArtistIds = try Int64.fetchAll(db.cachedStatement(sql: "SELECT artist_id FROM album_artist WHERE album_id = ?"), arguments: [albumId])
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

        for table in ["album_artist", "album_label", "album_format", "album_genre", "album_image", "track"] {
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
        for (position, image) in release.images.enumerated() {
            try run("INSERT INTO album_image (album_id, position, kind, uri, uri150, width, height) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [albumId, position, image.kind.rawValue, image.uri, image.uri150, image.width, image.height])
        }
        var sortOrder = 0
        func insert(_ track: ReleaseMetadata.Track, parentId: Int64?) throws -> Int64 {
            try run("""
                INSERT INTO track (album_id, parent_id, position, side, sort_order, title, duration_ms, kind)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """, [albumId, parentId, track.position, track.side, sortOrder, track.title, track.durationMs, track.kind.rawValue])
            sortOrder += 1
            return db.lastInsertedRowID
        }
        for track in release.tracks {
            let trackId = try insert(track, parentId: nil)
            for subTrack in track.subTracks { _ = try insert(subTrack, parentId: trackId) }
        }

        // A CSV credit is one whole-credit artist until sync brings the real ones; once no album
        // names it, it would only clutter artist pages.
        let replaced = Set(previousArtistIds).subtracting(artistIds)
        for artistId in replaced {
            try run("""
                DELETE FROM artist WHERE id = ? AND discogs_id IS NULL
                AND NOT EXISTS (SELECT 1 FROM album_artist WHERE artist_id = artist.id)
                """, [artistId])
        }
        try SearchIndex.refresh(db, albumIds: [albumId])
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
        try reader.read { db in
            try Track.filter(Column("album_id") == albumId).order(Column("sort_order")).fetchAll(db)
        }
    }

    public func album(discogsReleaseId: Int64) throws -> Album? {
        try reader.read { db in try Album.filter(Column("discogs_release_id") == discogsReleaseId).fetchOne(db) }
    }

    /// The album's artists in credit order, each with its join phrase.
    public func artists(ofAlbum albumId: Int64) throws -> [(artist: Artist, joinPhrase: String)] {
        try reader.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT artist.*, album_artist.join_phrase AS join_phrase FROM album_artist
                JOIN artist ON artist.id = album_artist.artist_id
                WHERE album_artist.album_id = ? ORDER BY album_artist.position
                """, arguments: [albumId])
            return try rows.map { (try Artist(row: $0), $0["join_phrase"]) }
        }
    }
}
