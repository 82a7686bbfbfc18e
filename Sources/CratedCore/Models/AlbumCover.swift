import GRDB

/// The one answer to "which image is this album's cover", for every list, page and the mini-player:
/// the primary image, else the first by position, passing over images that have no URL at all (the
/// Discogs API sends empty URLs without a token). Each screen shows crated's own copy of it at the
/// size it draws (`artwork(pixels:)`).
public struct AlbumCover: Sendable, Equatable {
    /// The full image; empty when only the thumbnail is known.
    public var uri: String
    /// Discogs' thumbnail, 150 pixels wide; empty when the image has none.
    public var uri150: String
    public var width: Int?
    public var height: Int?
    /// crated's copy of the image (Migrations/0011_artwork.sql gives every image with a URL one); nil
    /// while its host has no usable image (0023).
    public var source: ArtworkSource?

    /// An image can be a cover only with a URL.
    public static let hasURL = "(uri <> '' OR uri150 <> '')"
    /// An album's images in cover order: the first that `hasURL` is the cover.
    public static let order = "kind <> 'primary', position"

    /// Nil for an image without a URL: it is no cover.
    public init?(uri: String, uri150: String, width: Int?, height: Int?, source: ArtworkSource? = nil) {
        guard !uri.isEmpty || !uri150.isEmpty else { return nil }
        (self.uri, self.uri150, self.width, self.height, self.source) = (uri, uri150, width, height, source)
    }

    /// The URL crated fetches the cover from: the full image, else the thumbnail.
    public var sourceURL: String { uri.isEmpty ? uri150 : uri }

    /// `album_image i LEFT JOIN artwork ar`: the image's own copy, by the source URL rule above.
    public static let imageWithArtwork = "album_image i LEFT JOIN artwork ar ON ar.source_url = CASE WHEN i.uri <> '' THEN i.uri ELSE i.uri150 END"
    /// The columns a cover is read from, in `init(columns:)`'s order, of `imageWithArtwork`.
    public static let selection = "i.uri, i.uri150, i.width, i.height, \(shownKey("ar")), ar.width, ar.height, ar.color"

    /// The artwork's key, null when the cover is unusable: an image its host has none of is no cover.
    static func shownKey(_ artwork: String) -> String { "CASE WHEN \(artwork).unusable THEN NULL ELSE \(artwork).key END" }

    /// The joins that bring the cover of the album whose id is `album` (such as `a.id`) into a query
    /// of albums, for `columns` to read. One subquery finds the cover: a subquery per column ran
    /// the cover's search eight times a row (a crate list of eleven crates, 88 of them).
    public static func joins(album: String) -> String {
        """
        LEFT JOIN album_image cover_image ON cover_image.album_id = \(album) AND cover_image.position = (
            SELECT i.position FROM album_image i WHERE i.album_id = \(album) AND \(qualifiedHasURL) ORDER BY \(qualifiedOrder) LIMIT 1)
        LEFT JOIN artwork cover_artwork
            ON cover_artwork.source_url = CASE WHEN cover_image.uri <> '' THEN cover_image.uri ELSE cover_image.uri150 END
        """
    }

    /// The cover's columns (`cover_uri`, ... `cover_artwork_color`) in a query with `joins(album:)`;
    /// null without a cover.
    public static let columns = """
        cover_image.uri AS cover_uri, cover_image.uri150 AS cover_uri150, cover_image.width AS cover_width, \
        cover_image.height AS cover_height, \(shownKey("cover_artwork")) AS cover_artwork_key, cover_artwork.width AS cover_artwork_width, \
        cover_artwork.height AS cover_artwork_height, cover_artwork.color AS cover_artwork_color
        """

    public static let qualifiedHasURL = "(i.uri <> '' OR i.uri150 <> '')"
    public static let qualifiedOrder = "i.kind <> 'primary', i.position"

    /// The cover of a row read with `columns` and `joins(album:)`.
    public init?(coverColumnsOf row: Row) {
        guard let uri: String = row["cover_uri"], let uri150: String = row["cover_uri150"] else { return nil }
        self.init(uri: uri, uri150: uri150, width: row["cover_width"], height: row["cover_height"],
                  source: (row["cover_artwork_key"] as String?).map {
                      ArtworkSource(key: $0, width: row["cover_artwork_width"], height: row["cover_artwork_height"], color: row["cover_artwork_color"])
                  })
    }

    /// The cover of a statement's row whose columns are `selection`, from `offset` on.
    public init?(columns: StatementColumns, from offset: Int32) throws {
        self.init(uri: try columns.string(offset), uri150: try columns.string(offset + 1),
                  width: try columns.optionalInt(offset + 2), height: try columns.optionalInt(offset + 3),
                  source: try columns.optionalString(offset + 4).map {
                      ArtworkSource(key: $0, width: try columns.optionalInt(offset + 5), height: try columns.optionalInt(offset + 6),
                                    color: try columns.optionalString(offset + 7))
                  })
    }

    /// The album's cover, read inside the caller's transaction; nil when it has none. The statement
    /// is cached: every album page and mini-player document reads it, and preparing it anew (SQLite's
    /// parse and GRDB's authorizer) took an eighth of an album page's CPU time.
    public static func of(albumId: Int64, _ db: Database) throws -> AlbumCover? {
        try db.firstRow("""
            SELECT \(selection) FROM \(imageWithArtwork) WHERE i.album_id = ? AND \(qualifiedHasURL) ORDER BY \(qualifiedOrder) LIMIT 1
            """, ids: [albumId]) { columns in try AlbumCover(columns: columns, from: 0) } ?? nil
    }

    /// crated's variant of the cover for `pixels` of width on screen; nil when crated has no copy of
    /// the image to show.
    public func artwork(pixels: Double) -> ArtworkReference? {
        guard let source else { return nil }
        // The fetched image's own size when known, else what Discogs said of it (its thumbnail is
        // 150 pixels wide).
        let original: (width: Int, height: Int)?
        if let width = source.width, let height = source.height {
            original = (width, height)
        } else if !uri.isEmpty, let width, let height {
            original = (width, height)
        } else {
            original = uri.isEmpty ? (150, 150) : nil
        }
        return ArtworkReference(key: source.key, original: original, color: source.color, pixels: pixels)
    }
}
