import GRDB

/// The one answer to "which image is this album's cover", for every list, page and the mini-player:
/// the primary image, else the first by position, passing over images that have no URL at all (the
/// Discogs API sends empty URLs without a token). Of the cover, each screen takes the variant its
/// size needs (`variant(atLeast:)`).
public struct AlbumCover: Sendable, Equatable {
    /// The full image; empty when only the thumbnail is known.
    public var uri: String
    /// Discogs' thumbnail, 150 pixels wide; empty when the image has none.
    public var uri150: String
    public var width: Int?
    public var height: Int?

    /// An image can be a cover only with a URL.
    public static let hasURL = "(uri <> '' OR uri150 <> '')"
    /// An album's images in cover order: the first that `hasURL` is the cover.
    public static let order = "kind <> 'primary', position"

    /// Nil for an image without a URL: it is no cover.
    public init?(uri: String, uri150: String, width: Int?, height: Int?) {
        guard !uri.isEmpty || !uri150.isEmpty else { return nil }
        (self.uri, self.uri150, self.width, self.height) = (uri, uri150, width, height)
    }

    /// The cover's columns in a query of albums, `cover_uri`, `cover_uri150`, `cover_width` and
    /// `cover_height`, for the album whose id is `album` (such as `a.id`); null without a cover.
    public static func columns(album: String) -> String {
        ["uri", "uri150", "width", "height"].map { column in
            "(SELECT \(column) FROM album_image WHERE album_id = \(album) AND \(hasURL) ORDER BY \(order) LIMIT 1) AS cover_\(column)"
        }.joined(separator: ", ")
    }

    /// The cover of a row read with `columns(album:)`.
    public init?(coverColumnsOf row: Row) {
        guard let uri: String = row["cover_uri"], let uri150: String = row["cover_uri150"] else { return nil }
        self.init(uri: uri, uri150: uri150, width: row["cover_width"], height: row["cover_height"])
    }

    /// The album's cover, read inside the caller's transaction; nil when it has none.
    public static func of(albumId: Int64, _ db: Database) throws -> AlbumCover? {
        try Row.fetchOne(db, sql: """
            SELECT uri, uri150, width, height FROM album_image WHERE album_id = ? AND \(hasURL) ORDER BY \(order) LIMIT 1
            """, arguments: [albumId]).flatMap { row in
            AlbumCover(uri: row["uri"], uri150: row["uri150"], width: row["width"], height: row["height"])
        }
    }

    /// A URL of the cover at one size, in pixels (nil when unknown).
    public struct Variant: Sendable, Equatable {
        public var url: String
        public var width: Int?
        public var height: Int?
    }

    /// The thumbnail (when the image has one), then the full image (when it has one).
    public var variants: [Variant] {
        var variants: [Variant] = []
        if !uri150.isEmpty { variants.append(Variant(url: uri150, width: 150, height: 150)) }
        if !uri.isEmpty { variants.append(Variant(url: uri, width: width, height: height)) }
        return variants
    }

    /// The narrowest variant at least `pixels` wide, else the widest. A full image of unknown width
    /// counts as wider than any known one (Discogs' full images are large); on a tie the thumbnail wins.
    public func variant(atLeast pixels: Double) -> Variant {
        let variants = variants
        guard variants.count == 2 else { return variants[0] }
        let (thumbnail, full) = (variants[0], variants[1])
        let (narrower, wider) = (full.width ?? .max) < 150 ? (full, thumbnail) : (thumbnail, full)
        return Double(narrower.width ?? .max) >= pixels ? narrower : wider
    }
}
