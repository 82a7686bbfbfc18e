import Foundation
import GRDB

/// Writes export rows into one user's collection inside the caller's transaction. Shared catalogue
/// rows (artists, albums) are reused when they exist; a copy is identified by its release, its date
/// added and its ordinal among identical rows, so importing the same file again changes nothing.
///
/// The import is the one bulk write path, so it uses cached prepared statements and remembers the
/// ids it has resolved instead of encoding a record per row.
final class CollectionImportWriter {
    enum CopyOutcome { case added, updated, unchanged }

    private let db: Database
    private let userId: Int64
    private let now: String
    private var artistIds: [String: Int64] = [:]
    private var albumIds: [Int64: (id: Int64, isNew: Bool)] = [:]
    private var crateIds: [String: Int64] = [:]
    private var nextCratePosition: [Int64: Int] = [:]

    private(set) var artistsAdded = 0
    /// Albums this import created, to index for search once the rows are in.
    private(set) var newAlbumIds: [Int64] = []
    var albumsAdded: Int { newAlbumIds.count }
    private(set) var cratesAdded = 0

    init(db: Database, userId: Int64) {
        self.db = db
        self.userId = userId
        self.now = Timestamp.now()
    }

    /// Postpones the upkeep of the album grids' summary (`collection_album`, migration 0005) to
    /// `finishGridUpkeep`, which recounts every album touched in one statement instead of a trigger
    /// per copy. Both run inside the import's transaction.
    func deferGridUpkeep() throws {
        try db.execute(sql: "INSERT INTO grid_deferral (id) VALUES (1)")
    }

    func finishGridUpkeep() throws {
        try db.execute(sql: "DELETE FROM grid_deferral")
    }

    /// The artist that a CSV credit names. A credit cannot be split safely (commas and `&` occur inside
    /// names: `Earth, Wind & Fire`), so the whole credit is one artist until sync brings the real ones.
    func artistId(credit: String) throws -> Int64 {
        if let id = artistIds[credit] { return id }
        let found = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM artist WHERE discogs_name = ? ORDER BY discogs_id IS NULL LIMIT 1"),
            arguments: [credit])
        let id: Int64
        if let found {
            id = found
        } else {
            let name = DiscogsText.displayName(credit)
            try db.cachedStatement(sql: "INSERT INTO artist (name, discogs_name, sort_name) VALUES (?, ?, ?)")
                .execute(arguments: [name, credit, DiscogsText.sortKey(name)])
            id = db.lastInsertedRowID
            artistsAdded += 1
        }
        artistIds[credit] = id
        return id
    }

    /// The album for the row's release; created from the row when the catalogue lacks it.
    /// An album that exists is left as it is: sync's data is richer than the export's.
    func album(for row: DiscogsExportRow) throws -> (id: Int64, isNew: Bool) {
        if let known = albumIds[row.releaseId] { return known }
        if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM album WHERE discogs_release_id = ?"), arguments: [row.releaseId]) {
            albumIds[row.releaseId] = (id, false)
            return (id, false)
        }
        let artistId = try artistId(credit: row.artistCredit)
        let credit = DiscogsText.displayName(row.artistCredit)
        try db.cachedStatement(sql: """
            INSERT INTO album (discogs_release_id, title, sort_title, artist_credit, artist_sort_name, year, released,
                               format_summary, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                row.releaseId, row.title, DiscogsText.sortKey(row.title), credit, DiscogsText.sortKey(credit),
                row.year, row.year.map(String.init), row.format.isEmpty ? nil : row.format, now, now,
            ])
        let albumId = db.lastInsertedRowID
        try db.cachedStatement(sql: "INSERT INTO album_artist (album_id, position, artist_id, join_phrase) VALUES (?, 0, ?, '')")
            .execute(arguments: [albumId, artistId])
        for (position, label) in DiscogsText.labels(label: row.label, catalogNumbers: row.catalogNumbers).enumerated() {
            try db.cachedStatement(sql: "INSERT INTO album_label (album_id, position, name, catalog_number) VALUES (?, ?, ?, ?)")
                .execute(arguments: [albumId, position, label.name, label.catalogNumber])
        }
        for (position, format) in DiscogsText.formats(row.format).enumerated() {
            try db.cachedStatement(sql: "INSERT INTO album_format (album_id, position, name, quantity, descriptions) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [albumId, position, format.name, format.quantity, JSONText.array(format.descriptions)])
        }
        newAlbumIds.append(albumId)
        albumIds[row.releaseId] = (albumId, true)
        return (albumId, true)
    }

    /// Adds the copy, updates it when the export's fields changed, or leaves it. Returns its id.
    func upsertCopy(_ row: DiscogsExportRow, albumId: Int64, albumIsNew: Bool, ordinal: Int) throws -> (id: Int64, outcome: CopyOutcome) {
        let dateAdded = Timestamp.string(fromEpochSeconds: row.dateAdded)
        let customFields = JSONText.object(row.customFields)
        let values: [DatabaseValueConvertible?] = [row.rating, row.mediaCondition, row.sleeveCondition, row.notes, customFields]
        if !albumIsNew, let existing = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT id, rating, media_condition, sleeve_condition, notes, custom_fields FROM collection_item
            WHERE user_id = ? AND album_id = ? AND date_added = ? AND copy_ordinal = ?
            """), arguments: [userId, albumId, dateAdded, ordinal]) {
            let id: Int64 = existing["id"]
            let stored: [DatabaseValue] = (1...5).map { existing[$0] }
            if stored == values.map({ $0?.databaseValue ?? .null }) { return (id, .unchanged) }
            try db.cachedStatement(sql: """
                UPDATE collection_item SET rating = ?, media_condition = ?, sleeve_condition = ?, notes = ?, custom_fields = ?
                WHERE id = ?
                """).execute(arguments: StatementArguments(values + [id]))
            return (id, .updated)
        }
        try db.cachedStatement(sql: """
            INSERT INTO collection_item (user_id, album_id, date_added, copy_ordinal, rating, media_condition,
                                         sleeve_condition, notes, custom_fields)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: StatementArguments([userId, albumId, dateAdded, ordinal] + values))
        return (db.lastInsertedRowID, .added)
    }

    /// Puts the copy in the crate named after its Discogs folder (created on first use), at the end.
    func addToCrate(named name: String, itemId: Int64) throws {
        let crateId = try crateId(named: name)
        let position = nextCratePosition[crateId]!
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO crate_item (crate_id, item_id, position, added_at) VALUES (?, ?, ?, ?)")
            .execute(arguments: [crateId, itemId, position, now])
        if db.changesCount > 0 { nextCratePosition[crateId] = position + 1 }
    }

    private func crateId(named name: String) throws -> Int64 {
        if let id = crateIds[name] { return id }
        let id: Int64
        if let found = try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM crate WHERE user_id = ? AND name = ?"), arguments: [userId, name]) {
            id = found
        } else {
            try db.cachedStatement(sql: "INSERT INTO crate (user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?)")
                .execute(arguments: [userId, name, now, now])
            id = db.lastInsertedRowID
            cratesAdded += 1
        }
        crateIds[name] = id
        nextCratePosition[id] = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COALESCE(MAX(position) + 1, 0) FROM crate_item WHERE crate_id = ?"), arguments: [id]) ?? 0
        return id
    }
}

/// Compact JSON text for the JSON columns, built without an encoder per row.
enum JSONText {
    static func array(_ values: [String]) -> String {
        "[" + values.map(quoted).joined(separator: ",") + "]"
    }

    /// Keys sorted, so the same fields always give the same text (re-import compares it).
    static func object(_ pairs: [(name: String, value: String)]) -> String {
        if pairs.isEmpty { return "{}" }
        return "{" + pairs.sorted { $0.name < $1.name }.map { quoted($0.name) + ":" + quoted($0.value) }.joined(separator: ",") + "}"
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20: out += String(format: "\\u%04x", s.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
