import Foundation
import GRDB

/// Stored records: plain Codable structs whose `CodingKeys` name the snake_case columns of
/// `Migrations/`, and whose `Columns` are built from them for queries.
/// GRDB decodes them by those names as they are, with no key conversion per row. API responses are
/// separate types; these are what the database holds.
public protocol CratedRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {}

public struct User: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var name: String
    public var createdAt: String

    public static let databaseTableName = "user"

    public init(id: Int64? = nil, name: String, createdAt: String = Timestamp.now()) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, createdAt = "created_at"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let name = Column(CodingKeys.name)
        public static let createdAt = Column(CodingKeys.createdAt)
    }
}

public enum TokenScope: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case read, write
}

public struct APIToken: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var userId: Int64
    public var label: String?
    public var tokenHash: Data
    public var tokenPrefix: String
    public var scope: TokenScope
    public var createdAt: String
    public var lastUsedAt: String?
    public var revokedAt: String?
    /// Issued to an app for its user's password (migration 0033): a new password revokes it, and
    /// it stops once unused for `tokens.signInIdleDays`.
    public var fromSignIn = false
    /// When it stops opening the API, if it was made to (migration 0034).
    public var expiresAt: String?

    public static let databaseTableName = "api_token"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userId = "user_id", label, tokenHash = "token_hash", tokenPrefix = "token_prefix", scope
        case createdAt = "created_at", lastUsedAt = "last_used_at", revokedAt = "revoked_at", fromSignIn = "from_sign_in"
        case expiresAt = "expires_at"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let userId = Column(CodingKeys.userId)
        public static let label = Column(CodingKeys.label)
        public static let tokenHash = Column(CodingKeys.tokenHash)
        public static let tokenPrefix = Column(CodingKeys.tokenPrefix)
        public static let scope = Column(CodingKeys.scope)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let lastUsedAt = Column(CodingKeys.lastUsedAt)
        public static let revokedAt = Column(CodingKeys.revokedAt)
        public static let fromSignIn = Column(CodingKeys.fromSignIn)
        public static let expiresAt = Column(CodingKeys.expiresAt)
    }
}

extension Artist {
    /// Discogs' placeholder credits: `Various` (194), `Unknown Artist` (355), `No Artist` (118760),
    /// by id once synced, by name as a CSV credit. A condition on `artist`.
    public static let isPlaceholderSQL = """
        (COALESCE(artist.discogs_id, 0) IN (194, 355, 118760)
         OR (artist.discogs_id IS NULL AND artist.name IN ('Various', 'Unknown Artist', 'No Artist')))
        """
}

public struct Artist: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var name: String
    public var discogsName: String
    public var discogsId: Int64?
    public var sortName: String

    public static let databaseTableName = "artist"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, name, discogsName = "discogs_name", discogsId = "discogs_id", sortName = "sort_name"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let name = Column(CodingKeys.name)
        public static let discogsName = Column(CodingKeys.discogsName)
        public static let discogsId = Column(CodingKeys.discogsId)
        public static let sortName = Column(CodingKeys.sortName)
    }
}

public struct Album: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var discogsReleaseId: Int64?
    public var discogsMasterId: Int64?
    public var title: String
    public var sortTitle: String
    public var artistCredit: String
    public var artistSortName: String
    public var year: Int?
    public var released: String?
    public var country: String?
    public var formatSummary: String?
    public var createdAt: String
    public var updatedAt: String

    public static let databaseTableName = "album"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, discogsReleaseId = "discogs_release_id", discogsMasterId = "discogs_master_id", title
        case sortTitle = "sort_title", artistCredit = "artist_credit", artistSortName = "artist_sort_name", year
        case released, country, formatSummary = "format_summary", createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let discogsReleaseId = Column(CodingKeys.discogsReleaseId)
        public static let discogsMasterId = Column(CodingKeys.discogsMasterId)
        public static let title = Column(CodingKeys.title)
        public static let sortTitle = Column(CodingKeys.sortTitle)
        public static let artistCredit = Column(CodingKeys.artistCredit)
        public static let artistSortName = Column(CodingKeys.artistSortName)
        public static let year = Column(CodingKeys.year)
        public static let released = Column(CodingKeys.released)
        public static let country = Column(CodingKeys.country)
        public static let formatSummary = Column(CodingKeys.formatSummary)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let updatedAt = Column(CodingKeys.updatedAt)
    }
}

public struct AlbumArtist: CratedRecord, Equatable {
    public var albumId: Int64
    public var position: Int
    public var artistId: Int64
    public var joinPhrase: String
    public static let databaseTableName = "album_artist"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case albumId = "album_id", position, artistId = "artist_id", joinPhrase = "join_phrase"
    }

    public enum Columns {
        public static let albumId = Column(CodingKeys.albumId)
        public static let position = Column(CodingKeys.position)
        public static let artistId = Column(CodingKeys.artistId)
        public static let joinPhrase = Column(CodingKeys.joinPhrase)
    }
}

public struct AlbumLabel: CratedRecord, Equatable {
    public var albumId: Int64
    public var position: Int
    public var name: String
    public var catalogNumber: String?
    public var discogsId: Int64?
    public static let databaseTableName = "album_label"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case albumId = "album_id", position, name, catalogNumber = "catalog_number", discogsId = "discogs_id"
    }

    public enum Columns {
        public static let albumId = Column(CodingKeys.albumId)
        public static let position = Column(CodingKeys.position)
        public static let name = Column(CodingKeys.name)
        public static let catalogNumber = Column(CodingKeys.catalogNumber)
        public static let discogsId = Column(CodingKeys.discogsId)
    }
}

public struct AlbumFormat: CratedRecord, Equatable {
    public var albumId: Int64
    public var position: Int
    public var name: String
    public var quantity: Int
    /// A JSON array of strings, as stored.
    public var descriptions: String
    public var text: String?
    public static let databaseTableName = "album_format"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case albumId = "album_id", position, name, quantity, descriptions, text
    }

    public enum Columns {
        public static let albumId = Column(CodingKeys.albumId)
        public static let position = Column(CodingKeys.position)
        public static let name = Column(CodingKeys.name)
        public static let quantity = Column(CodingKeys.quantity)
        public static let descriptions = Column(CodingKeys.descriptions)
        public static let text = Column(CodingKeys.text)
    }
}

public struct AlbumGenre: CratedRecord, Equatable {
    public enum Kind: String, Codable, Sendable, DatabaseValueConvertible { case genre, style }
    public var albumId: Int64
    public var kind: Kind
    public var name: String
    public var position: Int
    public static let databaseTableName = "album_genre"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case albumId = "album_id", kind, name, position
    }

    public enum Columns {
        public static let albumId = Column(CodingKeys.albumId)
        public static let kind = Column(CodingKeys.kind)
        public static let name = Column(CodingKeys.name)
        public static let position = Column(CodingKeys.position)
    }
}

public struct AlbumImage: CratedRecord, Equatable {
    public var albumId: Int64
    public var position: Int
    public var kind: String
    public var uri: String
    public var uri150: String
    public var width: Int?
    public var height: Int?
    public static let databaseTableName = "album_image"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case albumId = "album_id", position, kind, uri, uri150, width, height
    }

    public enum Columns {
        public static let albumId = Column(CodingKeys.albumId)
        public static let position = Column(CodingKeys.position)
        public static let kind = Column(CodingKeys.kind)
        public static let uri = Column(CodingKeys.uri)
        public static let uri150 = Column(CodingKeys.uri150)
        public static let width = Column(CodingKeys.width)
        public static let height = Column(CodingKeys.height)
    }
}

public struct Track: CratedRecord, Identifiable, Equatable {
    public enum Kind: String, Codable, Sendable, DatabaseValueConvertible { case track, heading, index, subtrack }
    public var id: Int64?
    public var albumId: Int64
    public var parentId: Int64?
    public var position: String
    public var side: String?
    public var sortOrder: Int
    public var title: String
    public var durationMs: Int?
    public var kind: Kind
    /// The artists Discogs credits this track to, as shown; nil when they are the album's.
    public var artistCredit: String?

    public init(id: Int64? = nil, albumId: Int64, parentId: Int64? = nil, position: String, side: String?, sortOrder: Int,
                title: String, durationMs: Int?, kind: Kind, artistCredit: String? = nil) {
        self.id = id
        self.albumId = albumId
        self.parentId = parentId
        self.position = position
        self.side = side
        self.sortOrder = sortOrder
        self.title = title
        self.durationMs = durationMs
        self.kind = kind
        self.artistCredit = artistCredit
    }

    public static let databaseTableName = "track"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, albumId = "album_id", parentId = "parent_id", position, side, sortOrder = "sort_order", title
        case durationMs = "duration_ms", kind, artistCredit = "artist_credit"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let albumId = Column(CodingKeys.albumId)
        public static let parentId = Column(CodingKeys.parentId)
        public static let position = Column(CodingKeys.position)
        public static let side = Column(CodingKeys.side)
        public static let sortOrder = Column(CodingKeys.sortOrder)
        public static let title = Column(CodingKeys.title)
        public static let durationMs = Column(CodingKeys.durationMs)
        public static let kind = Column(CodingKeys.kind)
        public static let artistCredit = Column(CodingKeys.artistCredit)
    }
}

/// One physical copy that a user owns.
public struct CollectionItem: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var userId: Int64
    public var albumId: Int64
    public var dateAdded: String
    public var copyOrdinal: Int
    public var rating: Int?
    public var mediaCondition: String?
    public var sleeveCondition: String?
    public var notes: String?
    /// A JSON object of custom field name to value, as stored.
    public var customFields: String
    public var discogsInstanceId: Int64?
    /// The fields as Discogs last gave them (`DiscogsCopyFields`), while the user's edits in crated
    /// make them differ from the copy's own; nil otherwise.
    public var discogsFields: String?

    public static let databaseTableName = "collection_item"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userId = "user_id", albumId = "album_id", dateAdded = "date_added"
        case copyOrdinal = "copy_ordinal", rating, mediaCondition = "media_condition"
        case sleeveCondition = "sleeve_condition", notes, customFields = "custom_fields"
        case discogsInstanceId = "discogs_instance_id", discogsFields = "discogs_fields"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let userId = Column(CodingKeys.userId)
        public static let albumId = Column(CodingKeys.albumId)
        public static let dateAdded = Column(CodingKeys.dateAdded)
        public static let copyOrdinal = Column(CodingKeys.copyOrdinal)
        public static let rating = Column(CodingKeys.rating)
        public static let mediaCondition = Column(CodingKeys.mediaCondition)
        public static let sleeveCondition = Column(CodingKeys.sleeveCondition)
        public static let notes = Column(CodingKeys.notes)
        public static let customFields = Column(CodingKeys.customFields)
        public static let discogsInstanceId = Column(CodingKeys.discogsInstanceId)
        public static let discogsFields = Column(CodingKeys.discogsFields)
    }
}

public struct Crate: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var userId: Int64
    public var name: String
    public var discogsFolderId: Int64?
    /// Whether the crate stands for a Discogs folder (migration 0014).
    public var isFolder = false
    public var createdAt: String
    public var updatedAt: String

    public static let databaseTableName = "crate"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, userId = "user_id", name, discogsFolderId = "discogs_folder_id", isFolder = "is_folder"
        case createdAt = "created_at", updatedAt = "updated_at"
    }

    public enum Columns {
        public static let id = Column(CodingKeys.id)
        public static let userId = Column(CodingKeys.userId)
        public static let name = Column(CodingKeys.name)
        public static let discogsFolderId = Column(CodingKeys.discogsFolderId)
        public static let isFolder = Column(CodingKeys.isFolder)
        public static let createdAt = Column(CodingKeys.createdAt)
        public static let updatedAt = Column(CodingKeys.updatedAt)
    }
}

extension Array where Element == Crate {
    /// By name as a collector reads it, case and accents aside (`Électro` among the E's, `ambient`
    /// before `Dub`), numbers by value (`Box 2` before `Box 10`), then by id.
    public func sortedByName() -> [Crate] {
        map { (key: DiscogsText.numbersByValue(DiscogsText.fold($0.name)), crate: $0) }
            .sorted { ($0.key, $0.crate.name, $0.crate.id ?? 0) < ($1.key, $1.crate.name, $1.crate.id ?? 0) }
            .map(\.crate)
    }
}

public struct CrateItem: CratedRecord, Equatable {
    public var crateId: Int64
    public var itemId: Int64
    public var position: Int
    public var addedAt: String
    public static let databaseTableName = "crate_item"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case crateId = "crate_id", itemId = "item_id", position, addedAt = "added_at"
    }

    public enum Columns {
        public static let crateId = Column(CodingKeys.crateId)
        public static let itemId = Column(CodingKeys.itemId)
        public static let position = Column(CodingKeys.position)
        public static let addedAt = Column(CodingKeys.addedAt)
    }
}
