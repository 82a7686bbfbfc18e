import CratedCore
import Foundation
import GRDB

/// A database file in a directory of its own under the temporary directory, opened through
/// `AppDatabase.open(path:)` with the real migrations, and removed with the directory afterwards.
final class TemporaryDatabase: Sendable {
    let directory: URL
    let database: AppDatabase

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("crated-grid-tests-\(UUID().uuidString)")
        database = try AppDatabase.open(path: directory.appendingPathComponent("grid.sqlite").path)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Rows for tests, written with the schema's SQL as the import and sync write them.
extension Database {
    func insertUser(_ name: String) throws -> Int64 {
        try execute(sql: "INSERT INTO user (name, created_at) VALUES (?, '2024-01-01T00:00:00Z')", arguments: [name])
        return lastInsertedRowID
    }

    func insertArtist(_ name: String) throws -> Int64 {
        try execute(sql: "INSERT INTO artist (name, discogs_name, sort_name) VALUES (?, ?, ?)",
                    arguments: [name, name, DiscogsText.sortKey(name)])
        return lastInsertedRowID
    }

    /// An album crediting one artist, with its genres, styles and formats; indexed for search.
    func insertAlbum(
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

    func insertImage(albumId: Int64, position: Int = 0, kind: String = "primary", uri: String, uri150: String, width: Int?) throws {
        try execute(sql: """
            INSERT INTO album_image (album_id, position, kind, uri, uri150, width, height) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [albumId, position, kind, uri, uri150, width, width])
    }

    /// One copy; `copyOrdinal` tells copies added at the same moment apart.
    func insertCopy(userId: Int64, albumId: Int64, dateAdded: String, rating: Int? = nil, copyOrdinal: Int = 0) throws -> Int64 {
        try execute(sql: """
            INSERT INTO collection_item (user_id, album_id, date_added, copy_ordinal, rating) VALUES (?, ?, ?, ?, ?)
            """, arguments: [userId, albumId, dateAdded, copyOrdinal, rating])
        return lastInsertedRowID
    }

    func insertCrate(userId: Int64, name: String) throws -> Int64 {
        try execute(sql: "INSERT INTO crate (user_id, name, created_at, updated_at) VALUES (?, ?, 't', 't')", arguments: [userId, name])
        return lastInsertedRowID
    }

    func addToCrate(crateId: Int64, itemId: Int64) throws {
        try execute(sql: """
            INSERT INTO crate_item (crate_id, item_id, position, added_at)
            VALUES (?, ?, (SELECT COALESCE(MAX(position) + 1, 0) FROM crate_item WHERE crate_id = ?), 't')
            """, arguments: [crateId, itemId, crateId])
    }
}

/// SplitMix64: a small seeded generator, so that every property-style run can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
