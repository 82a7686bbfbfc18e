import CratedCore
import GRDB

/// Rows for tests, written with the schema's SQL as the import and sync write them.
extension Database {
    public func insertUser(_ name: String) throws -> Int64 {
        try execute(sql: "INSERT INTO user (name, created_at) VALUES (?, '2024-01-01T00:00:00Z')", arguments: [name])
        return lastInsertedRowID
    }

    public func insertArtist(_ name: String) throws -> Int64 {
        try execute(sql: "INSERT INTO artist (name, discogs_name, sort_name) VALUES (?, ?, ?)",
                    arguments: [name, name, DiscogsText.sortKey(name)])
        return lastInsertedRowID
    }

    /// An album crediting one artist, with its genres, styles and formats; indexed for search.
    public func insertAlbum(
        title: String, artistId: Int64, year: Int? = nil,
        genres: [String] = [], styles: [String] = [], formats: [String] = []
    ) throws -> Int64 {
        let credit = try String.fetchOne(self, sql: "SELECT name FROM artist WHERE id = ?", arguments: [artistId])!
        try execute(sql: """
            INSERT INTO album (title, sort_title, artist_credit, artist_sort_name, year, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')
            """, arguments: [title, DiscogsText.sortKey(title), credit, DiscogsText.sortKey(credit), year])
        let albumId = lastInsertedRowID
        try execute(sql: "INSERT INTO album_artist (album_id, position, artist_id) VALUES (?, 0, ?)", arguments: [albumId, artistId])
        for (position, genre) in genres.enumerated() {
            try execute(sql: "INSERT INTO album_genre (album_id, kind, name, position) VALUES (?, 'genre', ?, ?)", arguments: [albumId, genre, position])
        }
        for (position, style) in styles.enumerated() {
            try execute(sql: "INSERT INTO album_genre (album_id, kind, name, position) VALUES (?, 'style', ?, ?)", arguments: [albumId, style, position])
        }
        for (position, format) in formats.enumerated() {
            try execute(sql: "INSERT INTO album_format (album_id, position, name) VALUES (?, ?, ?)", arguments: [albumId, position, format])
        }
        try SearchIndex.refresh(self, albumIds: [albumId])
        return albumId
    }

    /// A track as sync writes it: `side` and `sortOrder` as the tracklist gives them.
    @discardableResult
    public func insertTrack(
        albumId: Int64, position: String, side: String?, sortOrder: Int, title: String, durationMs: Int?, kind: String = "track",
        artistCredit: String? = nil
    ) throws -> Int64 {
        try execute(sql: """
            INSERT INTO track (album_id, position, side, sort_order, title, duration_ms, kind, artist_credit) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [albumId, position, side, sortOrder, title, durationMs, kind, artistCredit])
        return lastInsertedRowID
    }

    public func insertImage(albumId: Int64, position: Int = 0, kind: String = "primary", uri: String, uri150: String, width: Int?) throws {
        try execute(sql: """
            INSERT INTO album_image (album_id, position, kind, uri, uri150, width, height) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [albumId, position, kind, uri, uri150, width, width])
    }

    /// The key of crated's copy of the image at `sourceURL` (Migrations/0011_artwork.sql).
    public func artworkKey(of sourceURL: String) throws -> String {
        guard let key = try String.fetchOne(self, sql: "SELECT key FROM artwork WHERE source_url = ?", arguments: [sourceURL]) else {
            throw DatabaseError(message: "no artwork for \(sourceURL)")
        }
        return key
    }

    /// One copy; `copyOrdinal` tells copies added at the same moment apart.
    public func insertCopy(userId: Int64, albumId: Int64, dateAdded: String, rating: Int? = nil, copyOrdinal: Int = 0) throws -> Int64 {
        try execute(sql: """
            INSERT INTO collection_item (user_id, album_id, date_added, copy_ordinal, rating) VALUES (?, ?, ?, ?, ?)
            """, arguments: [userId, albumId, dateAdded, copyOrdinal, rating])
        return lastInsertedRowID
    }

    public func insertCrate(userId: Int64, name: String) throws -> Int64 {
        try execute(sql: "INSERT INTO crate (user_id, name, created_at, updated_at) VALUES (?, ?, 't', 't')", arguments: [userId, name])
        return lastInsertedRowID
    }

    public func addToCrate(crateId: Int64, itemId: Int64) throws {
        try execute(sql: """
            INSERT INTO crate_item (crate_id, item_id, position, added_at)
            VALUES (?, ?, (SELECT COALESCE(MAX(position) + 1, 0) FROM crate_item WHERE crate_id = ?), 't')
            """, arguments: [crateId, itemId, crateId])
    }
}
