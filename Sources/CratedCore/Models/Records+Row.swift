import Foundation
import GRDB

// Decoding records from rows by hand. GRDB's Codable decoding converts every column name from
// snake_case on every row, which made it the largest cost of an album page after SQL compilation.
// Writing goes on through Codable (`convertToSnakeCase`); only reads, which the API does on every
// request, take this path. The column names are those of `Migrations/`, and the schema's NOT NULL
// and CHECK constraints guarantee the non-optional values.

extension User {
    public init(row: Row) {
        self.init(id: row["id"], name: row["name"], createdAt: row["created_at"])
    }
}

extension APIToken {
    public init(row: Row) {
        self.init(
            id: row["id"], userId: row["user_id"], label: row["label"], tokenHash: row["token_hash"],
            tokenPrefix: row["token_prefix"], scope: row["scope"], createdAt: row["created_at"],
            lastUsedAt: row["last_used_at"], revokedAt: row["revoked_at"])
    }
}

extension Artist {
    public init(row: Row) {
        self.init(id: row["id"], name: row["name"], discogsName: row["discogs_name"], discogsId: row["discogs_id"],
                  sortName: row["sort_name"])
    }
}

extension Album {
    public init(row: Row) {
        self.init(
            id: row["id"], discogsReleaseId: row["discogs_release_id"], discogsMasterId: row["discogs_master_id"],
            title: row["title"], sortTitle: row["sort_title"], artistCredit: row["artist_credit"],
            artistSortName: row["artist_sort_name"], year: row["year"], released: row["released"],
            country: row["country"], formatSummary: row["format_summary"], createdAt: row["created_at"],
            updatedAt: row["updated_at"])
    }
}

extension AlbumArtist {
    public init(row: Row) {
        self.init(albumId: row["album_id"], position: row["position"], artistId: row["artist_id"], joinPhrase: row["join_phrase"])
    }
}

extension AlbumLabel {
    public init(row: Row) {
        self.init(albumId: row["album_id"], position: row["position"], name: row["name"],
                  catalogNumber: row["catalog_number"], discogsId: row["discogs_id"])
    }
}

extension AlbumFormat {
    public init(row: Row) {
        self.init(albumId: row["album_id"], position: row["position"], name: row["name"], quantity: row["quantity"],
                  descriptions: row["descriptions"], text: row["text"])
    }
}

extension AlbumGenre.Kind: DatabaseValueConvertible {}

extension AlbumGenre {
    public init(row: Row) {
        self.init(albumId: row["album_id"], kind: row["kind"], name: row["name"], position: row["position"])
    }
}

extension AlbumImage {
    public init(row: Row) {
        self.init(albumId: row["album_id"], position: row["position"], kind: row["kind"], uri: row["uri"],
                  uri150: row["uri150"], width: row["width"], height: row["height"])
    }
}

extension Track.Kind: DatabaseValueConvertible {}

extension Track {
    public init(row: Row) {
        self.init(id: row["id"], albumId: row["album_id"], parentId: row["parent_id"], position: row["position"],
                  side: row["side"], sortOrder: row["sort_order"], title: row["title"], durationMs: row["duration_ms"],
                  kind: row["kind"])
    }
}

extension CollectionItem {
    public init(row: Row) {
        self.init(
            id: row["id"], userId: row["user_id"], albumId: row["album_id"], dateAdded: row["date_added"],
            copyOrdinal: row["copy_ordinal"], rating: row["rating"], mediaCondition: row["media_condition"],
            sleeveCondition: row["sleeve_condition"], notes: row["notes"], customFields: row["custom_fields"],
            discogsInstanceId: row["discogs_instance_id"])
    }
}

extension Crate {
    public init(row: Row) {
        self.init(id: row["id"], userId: row["user_id"], name: row["name"], discogsFolderId: row["discogs_folder_id"],
                  createdAt: row["created_at"], updatedAt: row["updated_at"])
    }
}

extension CrateItem {
    public init(row: Row) {
        self.init(crateId: row["crate_id"], itemId: row["item_id"], position: row["position"], addedAt: row["added_at"])
    }
}
