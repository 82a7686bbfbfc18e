import CratedCore
import GRDB

/// The catalogue rows of one album as text, for comparing.
public struct CatalogueRows: Equatable, Sendable {
    public var album: String
    public var artists: [String]
    public var labels: [String]
    public var formats: [String]
    public var genres: [String]
    public var images: [String]
    public var tracks: [String]
    /// `role|name|credited name|Discogs id|tracks|on a track`, in position order.
    public var credits: [String]
}

public func catalogueRows(_ database: AppDatabase, albumId: Int64) async throws -> CatalogueRows {
    try await database.reader.read { db in
        func strings(_ sql: String) throws -> [String] { try String.fetchAll(db, sql: sql, arguments: [albumId]) }
        return CatalogueRows(
            album: try String.fetchOne(db, sql: """
                SELECT title || '|' || artist_credit || '|' || COALESCE(year, '') || '|' || COALESCE(released, '') || '|' ||
                       COALESCE(country, '') || '|' || COALESCE(discogs_master_id, '') || '|' || updated_at FROM album WHERE id = ?
                """, arguments: [albumId]) ?? "",
            artists: try strings("SELECT artist_id || '|' || join_phrase FROM album_artist WHERE album_id = ? ORDER BY position"),
            labels: try strings("SELECT name || '|' || COALESCE(catalog_number, '') || '|' || COALESCE(discogs_id, '') FROM album_label WHERE album_id = ? ORDER BY position"),
            formats: try strings("SELECT name || '|' || quantity || '|' || descriptions || '|' || COALESCE(text, '') FROM album_format WHERE album_id = ? ORDER BY position"),
            genres: try strings("SELECT kind || ':' || name FROM album_genre WHERE album_id = ? ORDER BY kind, position"),
            images: try strings("SELECT kind || '|' || uri || '|' || uri150 || '|' || COALESCE(width, '') || 'x' || COALESCE(height, '') FROM album_image WHERE album_id = ? ORDER BY position"),
            tracks: try strings("SELECT id || '|' || position || '|' || COALESCE(side, '') || '|' || title || '|' || COALESCE(duration_ms, '') || '|' || kind FROM track WHERE album_id = ? ORDER BY sort_order"),
            credits: try strings("""
                SELECT role || '|' || name || '|' || COALESCE(credited_name, '') || '|' || COALESCE(discogs_id, '') || '|' ||
                       COALESCE(tracks, '') || '|' || (track_id IS NOT NULL) FROM album_credit WHERE album_id = ? ORDER BY position
                """))
    }
}

/// Every album's catalogue rows, keyed by release id (or one release's).
public func catalogueSnapshot(_ database: AppDatabase, release: Int64? = nil) async throws -> [Int64: CatalogueRows] {
    var result: [Int64: CatalogueRows] = [:]
    let albums = try await database.reader.read { db in
        try Row.fetchAll(db, sql: "SELECT id, discogs_release_id FROM album").map { ($0["id"] as Int64, $0["discogs_release_id"] as Int64) }
    }
    for (id, releaseId) in albums where release == nil || release == releaseId {
        result[releaseId] = try await catalogueRows(database, albumId: id)
    }
    return result
}
