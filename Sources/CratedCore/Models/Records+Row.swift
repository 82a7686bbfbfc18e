import Foundation
import GRDB

// Decoding records from rows by hand. GRDB's Codable decoding converts every column name from
// snake_case on every row, which made it the largest cost of an album page after SQL compilation.
// Writing goes on through Codable (`convertToSnakeCase`); only reads, which the API does on every
// request, take this path. The column names are those of `Migrations/`; a value of the wrong type
// throws, as Codable decoding did, rather than stopping the daemon.

extension User {
    public init(row: Row) throws {
        try self.init(
            id: row.decode(forColumn: "id"),
            name: row.decode(forColumn: "name"),
            createdAt: row.decode(forColumn: "created_at"))
    }
}

extension APIToken {
    public init(row: Row) throws {
        try self.init(
            id: row.decode(forColumn: "id"),
            userId: row.decode(forColumn: "user_id"),
            label: row.decode(forColumn: "label"),
            tokenHash: row.decode(forColumn: "token_hash"),
            tokenPrefix: row.decode(forColumn: "token_prefix"),
            scope: row.decode(forColumn: "scope"),
            createdAt: row.decode(forColumn: "created_at"),
            lastUsedAt: row.decode(forColumn: "last_used_at"),
            revokedAt: row.decode(forColumn: "revoked_at"))
    }
}

extension Artist {
    public init(row: Row) throws {
        try self.init(
            id: row.decode(forColumn: "id"),
            name: row.decode(forColumn: "name"),
            discogsName: row.decode(forColumn: "discogs_name"),
            discogsId: row.decode(forColumn: "discogs_id"),
            sortName: row.decode(forColumn: "sort_name"))
    }
}

extension Album {
    public init(row: Row) throws {
        try self.init(
            id: row.decode(forColumn: "id"),
            discogsReleaseId: row.decode(forColumn: "discogs_release_id"),
            discogsMasterId: row.decode(forColumn: "discogs_master_id"),
            title: row.decode(forColumn: "title"),
            sortTitle: row.decode(forColumn: "sort_title"),
            artistCredit: row.decode(forColumn: "artist_credit"),
            artistSortName: row.decode(forColumn: "artist_sort_name"),
            year: row.decode(forColumn: "year"),
            released: row.decode(forColumn: "released"),
            country: row.decode(forColumn: "country"),
            formatSummary: row.decode(forColumn: "format_summary"),
            createdAt: row.decode(forColumn: "created_at"),
            updatedAt: row.decode(forColumn: "updated_at"))
    }
}

extension AlbumArtist {
    public init(row: Row) throws {
        try self.init(
            albumId: row.decode(forColumn: "album_id"),
            position: row.decode(forColumn: "position"),
            artistId: row.decode(forColumn: "artist_id"),
            joinPhrase: row.decode(forColumn: "join_phrase"))
    }
}

extension AlbumLabel {
    public init(row: Row) throws {
        try self.init(
            albumId: row.decode(forColumn: "album_id"),
            position: row.decode(forColumn: "position"),
            name: row.decode(forColumn: "name"),
            catalogNumber: row.decode(forColumn: "catalog_number"),
            discogsId: row.decode(forColumn: "discogs_id"))
    }
}

extension AlbumFormat {
    public init(row: Row) throws {
        try self.init(
            albumId: row.decode(forColumn: "album_id"),
            position: row.decode(forColumn: "position"),
            name: row.decode(forColumn: "name"),
            quantity: row.decode(forColumn: "quantity"),
            descriptions: row.decode(forColumn: "descriptions"),
            text: row.decode(forColumn: "text"))
    }
}

extension AlbumGenre.Kind: DatabaseValueConvertible {}

extension AlbumGenre {
    public init(row: Row) throws {
        try self.init(
            albumId: row.decode(forColumn: "album_id"),
            kind: row.decode(forColumn: "kind"),
            name: row.decode(forColumn: "name"),
            position: row.decode(forColumn: "position"))
    }
}

extension AlbumImage {
    public init(row: Row) throws {
        try self.init(
            albumId: row.decode(forColumn: "album_id"),
            position: row.decode(forColumn: "position"),
            kind: row.decode(forColumn: "kind"),
            uri: row.decode(forColumn: "uri"),
            uri150: row.decode(forColumn: "uri150"),
            width: row.decode(forColumn: "width"),
            height: row.decode(forColumn: "height"))
    }
}

extension Track.Kind: DatabaseValueConvertible {}

extension Track {
    public init(row: Row) throws {
        try self.init(
            id: row.decode(forColumn: "id"),
            albumId: row.decode(forColumn: "album_id"),
            parentId: row.decode(forColumn: "parent_id"),
            position: row.decode(forColumn: "position"),
            side: row.decode(forColumn: "side"),
            sortOrder: row.decode(forColumn: "sort_order"),
            title: row.decode(forColumn: "title"),
            durationMs: row.decode(forColumn: "duration_ms"),
            kind: row.decode(forColumn: "kind"))
    }
}

extension CollectionItem {
    public init(row: Row) throws {
        try self.init(
            id: row.decode(forColumn: "id"),
            userId: row.decode(forColumn: "user_id"),
            albumId: row.decode(forColumn: "album_id"),
            dateAdded: row.decode(forColumn: "date_added"),
            copyOrdinal: row.decode(forColumn: "copy_ordinal"),
            rating: row.decode(forColumn: "rating"),
            mediaCondition: row.decode(forColumn: "media_condition"),
            sleeveCondition: row.decode(forColumn: "sleeve_condition"),
            notes: row.decode(forColumn: "notes"),
            customFields: row.decode(forColumn: "custom_fields"),
            discogsInstanceId: row.decode(forColumn: "discogs_instance_id"))
    }
}

extension Crate {
    public init(row: Row) throws {
        try self.init(
            id: row.decode(forColumn: "id"),
            userId: row.decode(forColumn: "user_id"),
            name: row.decode(forColumn: "name"),
            discogsFolderId: row.decode(forColumn: "discogs_folder_id"),
            createdAt: row.decode(forColumn: "created_at"),
            updatedAt: row.decode(forColumn: "updated_at"))
    }
}

extension CrateItem {
    public init(row: Row) throws {
        try self.init(
            crateId: row.decode(forColumn: "crate_id"),
            itemId: row.decode(forColumn: "item_id"),
            position: row.decode(forColumn: "position"),
            addedAt: row.decode(forColumn: "added_at"))
    }
}

// The album page's records read by column index (`StatementColumns`), each from the columns its
// `selection` names, in that order. The page runs on every album request, and reading rows by
// index through SQLite's C API is what keeps it cheap (see StatementColumns.swift).

extension Album {
    static let selection = """
        id, discogs_release_id, discogs_master_id, title, sort_title, artist_credit, artist_sort_name, year,
        released, country, format_summary, created_at, updated_at
        """

    init(_ columns: StatementColumns) throws {
        try self.init(
            id: columns.int64(0), discogsReleaseId: columns.optionalInt64(1), discogsMasterId: columns.optionalInt64(2),
            title: columns.string(3), sortTitle: columns.string(4), artistCredit: columns.string(5),
            artistSortName: columns.string(6), year: columns.optionalInt(7), released: columns.optionalString(8),
            country: columns.optionalString(9), formatSummary: columns.optionalString(10),
            createdAt: columns.string(11), updatedAt: columns.string(12))
    }
}

extension AlbumLabel {
    static let selection = "album_id, position, name, catalog_number, discogs_id"

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), position: columns.int(1), name: columns.string(2),
                      catalogNumber: columns.optionalString(3), discogsId: columns.optionalInt64(4))
    }
}

extension AlbumFormat {
    static let selection = "album_id, position, name, quantity, descriptions, text"

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), position: columns.int(1), name: columns.string(2),
                      quantity: columns.int(3), descriptions: columns.string(4), text: columns.optionalString(5))
    }
}

extension AlbumGenre {
    static let selection = "album_id, kind, name, position"

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), kind: columns.value(1), name: columns.string(2), position: columns.int(3))
    }
}

extension AlbumImage {
    static let selection = "album_id, position, kind, uri, uri150, width, height"

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), position: columns.int(1), kind: columns.string(2), uri: columns.string(3),
                      uri150: columns.string(4), width: columns.optionalInt(5), height: columns.optionalInt(6))
    }
}

extension Track {
    static let selection = "id, album_id, parent_id, position, side, sort_order, title, duration_ms, kind"

    init(_ columns: StatementColumns) throws {
        try self.init(
            id: columns.int64(0), albumId: columns.int64(1), parentId: columns.optionalInt64(2), position: columns.string(3),
            side: columns.optionalString(4), sortOrder: columns.int(5), title: columns.string(6),
            durationMs: columns.optionalInt(7), kind: columns.value(8))
    }
}

extension CollectionItem {
    static let selection = """
        id, user_id, album_id, date_added, copy_ordinal, rating, media_condition, sleeve_condition, notes,
        custom_fields, discogs_instance_id
        """

    init(_ columns: StatementColumns) throws {
        try self.init(
            id: columns.int64(0), userId: columns.int64(1), albumId: columns.int64(2), dateAdded: columns.string(3),
            copyOrdinal: columns.int(4), rating: columns.optionalInt(5), mediaCondition: columns.optionalString(6),
            sleeveCondition: columns.optionalString(7), notes: columns.optionalString(8),
            customFields: columns.string(9), discogsInstanceId: columns.optionalInt64(10))
    }
}
