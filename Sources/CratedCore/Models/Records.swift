import Foundation
import GRDB

/// Stored records: plain Codable structs whose properties map to the snake_case columns of
/// `Migrations/`. API responses are separate types; these are what the database holds.
public protocol CratedRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {}

extension CratedRecord {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

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

    public static let databaseTableName = "api_token"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

public struct Artist: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var name: String
    public var discogsName: String
    public var discogsId: Int64?
    public var sortName: String

    public static let databaseTableName = "artist"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
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
}

public struct AlbumArtist: CratedRecord, Equatable {
    public var albumId: Int64
    public var position: Int
    public var artistId: Int64
    public var joinPhrase: String
    public static let databaseTableName = "album_artist"
}

public struct AlbumLabel: CratedRecord, Equatable {
    public var albumId: Int64
    public var position: Int
    public var name: String
    public var catalogNumber: String?
    public var discogsId: Int64?
    public static let databaseTableName = "album_label"
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
}

public struct AlbumGenre: CratedRecord, Equatable {
    public enum Kind: String, Codable, Sendable { case genre, style }
    public var albumId: Int64
    public var kind: Kind
    public var name: String
    public var position: Int
    public static let databaseTableName = "album_genre"
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
}

public struct Track: CratedRecord, Identifiable, Equatable {
    public enum Kind: String, Codable, Sendable { case track, heading, index, subtrack }
    public var id: Int64?
    public var albumId: Int64
    public var parentId: Int64?
    public var position: String
    public var side: String?
    public var sortOrder: Int
    public var title: String
    public var durationMs: Int?
    public var kind: Kind

    public init(id: Int64? = nil, albumId: Int64, parentId: Int64? = nil, position: String, side: String?, sortOrder: Int,
                title: String, durationMs: Int?, kind: Kind) {
        self.id = id
        self.albumId = albumId
        self.parentId = parentId
        self.position = position
        self.side = side
        self.sortOrder = sortOrder
        self.title = title
        self.durationMs = durationMs
        self.kind = kind
    }

    public static let databaseTableName = "track"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
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

    public static let databaseTableName = "collection_item"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

public struct Crate: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var userId: Int64
    public var name: String
    public var discogsFolderId: Int64?
    public var createdAt: String
    public var updatedAt: String

    public static let databaseTableName = "crate"
    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

public struct CrateItem: CratedRecord, Equatable {
    public var crateId: Int64
    public var itemId: Int64
    public var position: Int
    public var addedAt: String
    public static let databaseTableName = "crate_item"
}
