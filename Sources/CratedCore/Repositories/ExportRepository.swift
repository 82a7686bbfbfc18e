import CratedJSON
import Foundation
import GRDB

/// A label of an album with its catalogue number (nil where Discogs writes `none`).
public struct ExportedLabel: Codable, Sendable, Equatable {
    public var name: String
    public var catalogNumber: String?
}

/// A custom field of a copy (`Collection <Field>` in a Discogs export).
public struct ExportedField: Codable, Sendable, Equatable {
    public var name: String
    public var value: String
}

/// One copy the user owns, with what the export shows of its album.
public struct ExportedCopy: Codable, Sendable, Equatable {
    public var id: Int64
    public var albumId: Int64
    public var discogsReleaseId: Int64?
    public var title: String
    /// The credit as crated shows it (Discogs suffixes such as `(2)` removed).
    public var artist: String
    /// The credit as Discogs writes it, suffixes and join phrases kept: what the CSV's `Artist` holds.
    public var discogsArtistCredit: String
    public var labels: [ExportedLabel]
    /// The abbreviated `Format` cell (`2xLP, Album, RE + CD, Album`).
    public var format: String
    public var year: Int?
    /// RFC 3339, UTC.
    public var dateAdded: String
    /// Tells identical copies (same album, same date added) apart: 0 for the first.
    public var copyOrdinal: Int
    public var rating: Int?
    public var mediaCondition: String?
    public var sleeveCondition: String?
    public var notes: String?
    /// By name.
    public var customFields: [ExportedField]
    public var discogsInstanceId: Int64?
    /// The crate the CSV writes as the copy's `CollectionFolder`: the one that stands for a Discogs
    /// folder, else the oldest crate holding the copy; nil when it is in none.
    public var folder: String?
    /// Every crate holding the copy, the folder's first.
    public var crateIds: [Int64]
}

/// A crate with its copies in crate order.
public struct ExportedCrate: Codable, Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var discogsFolderId: Int64?
    public var createdAt: String
    public var copyIds: [Int64]
}

/// One play that counted, as play history keeps it.
public struct ExportedPlay: Codable, Sendable, Equatable {
    public var id: Int64
    public var albumId: Int64
    public var discogsReleaseId: Int64?
    public var albumTitle: String
    public var artist: String
    public var trackPosition: String
    public var trackTitle: String
    public var side: String?
    public var durationMs: Int64?
    public var listeningId: Int64
    /// RFC 3339 to the second, and the stored epoch milliseconds.
    public var playedAt: String
    public var playedAtMs: Int64
}

/// The stored facts of the user's turntable (`playback_state`): what the mini-player is derived from.
public struct ExportedPlayer: Codable, Sendable, Equatable {
    public var revision: Int64
    public var status: String
    public var needsFlip: Bool
    public var albumId: Int64?
    public var trackPosition: String?
    public var trackStartedAtMs: Int64?
    public var positionMs: Int64?
    public var sinceMs: Int64?
    public var playStartedAtMs: Int64?
    public var listenedMs: Int64
    public var listeningId: Int64?
    public var crateId: Int64?
    public var queueAlbumIds: [Int64]
    public var updatedAtMs: Int64
}

public enum ExportError: Error, Equatable, CustomStringConvertible {
    case noSuchUser(name: String, known: [String])
    case noUsers
    case severalUsers([String])

    public var description: String {
        switch self {
        case .noSuchUser(let name, let known):
            "no user named '\(name)' in this database" + (known.isEmpty ? " (it has no users)" : " (its users: \(known.joined(separator: ", ")))")
        case .noUsers:
            "this database has no users, so no collection to export"
        case .severalUsers(let names):
            "this database has several users (\(names.joined(separator: ", "))); name one with --user"
        }
    }
}

/// One user's collection as one committed state of the database: valid only inside
/// `AppDatabase.withCollectionExport`, whose read transaction it reads in.
public struct CollectionExport {
    public let user: User
    private let db: Database

    fileprivate init(user: User, db: Database) {
        self.user = user
        self.db = db
    }

    private var userId: Int64 { user.id! }

    /// The names of every custom field the user's copies hold, in the order they first appear.
    public func customFieldNames() throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT field.key FROM collection_item, json_each(collection_item.custom_fields) AS field
            WHERE collection_item.user_id = ? AND collection_item.custom_fields <> '{}'
            GROUP BY field.key ORDER BY MIN(collection_item.id), field.key
            """, arguments: [userId])
    }

    /// Every copy's id, oldest first.
    public func copyIds() throws -> [Int64] {
        try Int64.fetchAll(db, sql: "SELECT id FROM collection_item WHERE user_id = ? ORDER BY id", arguments: [userId])
    }

    /// Every copy's id, oldest first, except that the copies of each folder (see `ExportedCopy.folder`)
    /// take the places of that folder's copies in crate order. An import appends a folder's copies to
    /// its crate in file order, so a file written in this order gives the crates back in their order.
    public func copyIdsKeepingFolderOrder() throws -> [Int64] {
        let rows = try Row.fetchAll(db, sql: "SELECT id, (\(Self.folderSQL)) AS folder FROM collection_item WHERE user_id = ? ORDER BY id",
                                    arguments: [userId])
        var ids: [Int64] = rows.map { $0["id"] }
        var placesByFolder: [Int64: [Int]] = [:]
        for (place, row) in rows.enumerated() {
            if let folder: Int64 = row["folder"] { placesByFolder[folder, default: []].append(place) }
        }
        for (folder, places) in placesByFolder {
            let members = Set(places.map { ids[$0] })
            let inCrateOrder = try Int64.fetchAll(db, sql: "SELECT item_id FROM crate_item WHERE crate_id = ? ORDER BY position, item_id",
                                                  arguments: [folder]).filter { members.contains($0) }
            for (place, id) in zip(places, inCrateOrder) { ids[place] = id }
        }
        return ids
    }

    /// The crate a copy's row names as its folder: a folder's crate (`crate.is_folder`) first, else the oldest.
    private static let folderSQL = """
        SELECT crate.id FROM crate_item JOIN crate ON crate.id = crate_item.crate_id
        WHERE crate_item.item_id = collection_item.id
        ORDER BY crate.is_folder DESC, crate.id LIMIT 1
        """

    /// One of the user's copies, or nil when `id` is not one.
    public func copy(id: Int64) throws -> ExportedCopy? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT collection_item.*, album.discogs_release_id, album.title, album.artist_credit, album.year, album.format_summary
            FROM collection_item JOIN album ON album.id = collection_item.album_id
            WHERE collection_item.id = ? AND collection_item.user_id = ?
            """), arguments: [id, userId]) else { return nil }
        let albumId: Int64 = row["album_id"]
        let crates = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT crate.id, crate.name FROM crate_item JOIN crate ON crate.id = crate_item.crate_id
            WHERE crate_item.item_id = ? ORDER BY crate.is_folder DESC, crate.id
            """), arguments: [id])
        let customFieldsText: String = row["custom_fields"]
        let customFields = (FlatJSON.stringObject(customFieldsText) ?? [:])
            .map { ExportedField(name: $0.key, value: $0.value) }
            .sorted { $0.name < $1.name }
        return ExportedCopy(
            id: id, albumId: albumId, discogsReleaseId: row["discogs_release_id"],
            title: row["title"], artist: row["artist_credit"],
            discogsArtistCredit: try discogsCredit(albumId: albumId) ?? row["artist_credit"],
            labels: try labels(albumId: albumId),
            format: try (row["format_summary"] as String?) ?? formatSummary(albumId: albumId),
            year: row["year"], dateAdded: row["date_added"], copyOrdinal: row["copy_ordinal"], rating: row["rating"],
            mediaCondition: row["media_condition"], sleeveCondition: row["sleeve_condition"], notes: row["notes"],
            customFields: customFields, discogsInstanceId: row["discogs_instance_id"],
            folder: crates.first?["name"], crateIds: crates.map { $0["id"] })
    }

    /// The album's credit as Discogs writes it: each artist's Discogs name (suffix kept) and the join
    /// phrase after it. A CSV credit is one artist whose Discogs name is the whole cell.
    private func discogsCredit(albumId: Int64) throws -> String? {
        let parts = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT artist.discogs_name, album_artist.join_phrase FROM album_artist JOIN artist ON artist.id = album_artist.artist_id
            WHERE album_artist.album_id = ? ORDER BY album_artist.position
            """), arguments: [albumId])
        if parts.isEmpty { return nil }
        return parts.map { ($0["discogs_name"] as String) + ($0["join_phrase"] as String) }.joined()
            .trimmingCharacters(in: .whitespaces)
    }

    private func labels(albumId: Int64) throws -> [ExportedLabel] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT name, catalog_number FROM album_label WHERE album_id = ? ORDER BY position"),
                         arguments: [albumId])
            .map { ExportedLabel(name: $0["name"], catalogNumber: $0["catalog_number"]) }
    }

    /// For an album that came without an export's `Format` cell: one in its style from the formats.
    private func formatSummary(albumId: Int64) throws -> String {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT name, quantity, descriptions FROM album_format WHERE album_id = ? ORDER BY position"),
                         arguments: [albumId])
            .map { row in
                let quantity: Int = row["quantity"]
                let descriptions = FlatJSON.stringArray(row["descriptions"]) ?? []
                return ([(quantity > 1 ? "\(quantity)x" : "") + (row["name"] as String)] + descriptions).joined(separator: ", ")
            }
            .joined(separator: " + ")
    }

    /// The user's crates by name, each with its copies in crate order.
    public func crates() throws -> [ExportedCrate] {
        try Row.fetchAll(db, sql: "SELECT id, name, discogs_folder_id, created_at FROM crate WHERE user_id = ? ORDER BY name COLLATE NOCASE, id",
                         arguments: [userId])
            .map { row in
                let id: Int64 = row["id"]
                let copyIds = try Int64.fetchAll(db, sql: "SELECT item_id FROM crate_item WHERE crate_id = ? ORDER BY position, item_id",
                                                 arguments: [id])
                return ExportedCrate(id: id, name: row["name"], discogsFolderId: row["discogs_folder_id"],
                                     createdAt: row["created_at"], copyIds: copyIds)
            }
    }

    /// Play history, oldest first, one play at a time.
    public func forEachPlay(_ body: (ExportedPlay) throws -> Void) throws {
        let plays = try Row.fetchCursor(db, sql: """
            SELECT play_history.*, album.discogs_release_id, album.title AS album_title, album.artist_credit
            FROM play_history JOIN album ON album.id = play_history.album_id
            WHERE play_history.user_id = ? ORDER BY play_history.played_at_ms, play_history.id
            """, arguments: [userId])
        while let row = try plays.next() {
            let playedAtMs: Int64 = row["played_at_ms"]
            try body(ExportedPlay(
                id: row["id"], albumId: row["album_id"], discogsReleaseId: row["discogs_release_id"],
                albumTitle: row["album_title"], artist: (row["track_artist_credit"] as String?) ?? row["artist_credit"],
                trackPosition: row["track_position"], trackTitle: row["track_title"], side: row["side"],
                durationMs: row["duration_ms"], listeningId: row["listening_id"],
                playedAt: Timestamp.string(fromEpochSeconds: playedAtMs >= 0 ? playedAtMs / 1000 : (playedAtMs - 999) / 1000),
                playedAtMs: playedAtMs))
        }
    }

    /// The turntable's stored state, or nil for a user who has never played anything.
    public func player() throws -> ExportedPlayer? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM playback_state WHERE user_id = ?", arguments: [userId]) else { return nil }
        return ExportedPlayer(
            revision: row["revision"], status: row["status"], needsFlip: row["needs_flip"],
            albumId: row["album_id"], trackPosition: row["track_position"], trackStartedAtMs: row["track_started_at_ms"],
            positionMs: row["position_ms"], sinceMs: row["since_ms"], playStartedAtMs: row["play_started_at_ms"],
            listenedMs: row["listened_ms"], listeningId: row["listening_id"], crateId: row["crate_id"],
            queueAlbumIds: (try? JSONDecoder().decode([Int64].self, from: Data((row["queue_album_ids"] as String).utf8))) ?? [],
            updatedAtMs: row["updated_at_ms"])
    }
}

extension AppDatabase {
    /// Runs `body` with the collection of the user named, or of the only user when `userName` is nil
    /// (as `import` and `sync` choose), in one read transaction: an export is one committed state of
    /// the database, whatever writes meanwhile.
    public func withCollectionExport<T>(userName: String?, _ body: (CollectionExport) throws -> T) throws -> T {
        try read { db in
            let known = try String.fetchAll(db, sql: "SELECT name FROM user ORDER BY id")
            let user: User
            if let userName {
                guard let named = try User.fetch(db, named: userName) else { throw ExportError.noSuchUser(name: userName, known: known) }
                user = named
            } else {
                guard known.count == 1, let only = try User.fetchOne(db) else {
                    throw known.isEmpty ? ExportError.noUsers : ExportError.severalUsers(known)
                }
                user = only
            }
            return try body(CollectionExport(user: user, db: db))
        }
    }
}
