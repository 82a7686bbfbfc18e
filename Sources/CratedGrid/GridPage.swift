import CratedJSON
import CratedCore
import Foundation

/// One page of an album grid, as the API sends it.
public struct GridPage: Codable, Sendable, Equatable {
    public var layout: GridLayout
    public var items: [GridItem]
    /// The absolute position of the first item; where it would be when the page is empty.
    public var start: Int
    /// Albums in the whole grid.
    public var total: Int
    /// The cursor of the page after this one; nil on the last page.
    public var next: String?
    /// The cursor of the page before this one; nil on the first page.
    public var previous: String?
    /// The jump bar, when asked for and the sort has one.
    public var sections: [GridSection]?
    /// A strong ETag (quoted, ready for the header) over everything above: the API answers 304 when a
    /// request's `If-None-Match` holds it.
    public var etag: String

    /// - Parameter cursorIdentities: what the cursors address, for the ETag in place of the tokens,
    ///   which also carry a placement hint that changes with every listing generation (another
    ///   user's edit among them) without changing what they address. Nil: the tokens themselves.
    init(layout: GridLayout, items: [GridItem], start: Int, total: Int, next: String?, previous: String?, sections: [GridSection]?,
         cursorIdentities: (next: String?, previous: String?)? = nil) {
        self.layout = layout
        self.items = items
        self.start = start
        self.total = total
        self.next = next
        self.previous = previous
        self.sections = sections
        self.etag = ""
        self.etag = Self.etag(of: self, cursors: cursorIdentities ?? (next, previous))
    }

    /// Whether `ifNoneMatch` (the request header, possibly a list, `*` or percent-encoded) matches this page.
    public func matches(ifNoneMatch header: String) -> Bool {
        ETagMatch.matches(ifNoneMatch: header, etag: etag)
    }

    /// Hashes every field the page's JSON carries, so any change of content changes the tag (of the
    /// cursors, what they address). Fed field by field rather than by encoding the page: encoding it a
    /// second time cost as much as the query.
    private static func etag(of page: GridPage, cursors: (next: String?, previous: String?)) -> String {
        var hash = StableHash()
        let layout = page.layout
        hash.combine(layout.environment.rawValue)
        hash.combine(layout.spacing)
        hash.combine(layout.padding)
        hash.combine(layout.itemWidth)
        hash.combine(layout.columns)
        hash.combine(layout.rows)
        hash.combine(layout.pageSize)
        hash.combine(page.start)
        hash.combine(page.total)
        hash.combine(page.items.count)
        hash.combine(cursors.next) { $0.combine($1) }
        hash.combine(cursors.previous) { $0.combine($1) }
        for item in page.items {
            hash.combine(item.position)
            hash.combine(item.albumId)
            // The JSON of every field the cell shows, hashed once.
            hash.combine(Int64(bitPattern: item.cell.digest))
            hash.combine(item.artwork) { hash, artwork in
                hash.combine(artwork.url)
                hash.combine(artwork.width)
                hash.combine(artwork.height)
                hash.combine(artwork.color) { $0.combine($1) }
            }
        }
        hash.combine(page.sections) { hash, sections in
            for section in sections {
                hash.combine(section.letter)
                hash.combine(section.position)
            }
        }
        return "\"g4-\(hash.hex)\""
    }
}

/// One cell: an album the user owns, however many copies.
public struct GridItem: Sendable, Equatable {
    /// Absolute position in the grid, from 0.
    public var position: Int
    public var albumId: Int64
    /// What the cell shows of the album, with its JSON.
    let cell: GridCell
    /// crated's copy of the cover sized for the cell; nil when the album has no image.
    public var artwork: ArtworkReference?

    public var title: String { cell.title }
    /// The artist credit as shown.
    public var artist: String { cell.artist }
    public var year: Int? { cell.year }
    /// How many copies of the album the user owns.
    public var copyCount: Int { cell.copyCount }
    /// The best rating among the user's copies, 1 to 5; nil when none is rated.
    public var rating: Int? { cell.rating }
    /// When the user's latest copy was added (RFC 3339).
    public var dateAdded: String { cell.dateAdded }

    init(position: Int, albumId: Int64, cell: GridCell, artwork: ArtworkReference?) {
        self.position = position
        self.albumId = albumId
        self.cell = cell
        self.artwork = artwork
    }

    public init(position: Int, albumId: Int64, title: String, artist: String, year: Int?, copyCount: Int, rating: Int?,
                dateAdded: String, artwork: ArtworkReference?) {
        // Sort keys from the fields shown, not the catalogue's folded ones: an item made by hand or
        // decoded is never paged from.
        let cell = GridCell(title: title, artist: artist, year: year, copyCount: copyCount, rating: rating, dateAdded: dateAdded, cover: nil,
                            sortKeys: GridCell.SortKeys(artist: artist, title: title, year: Int64(year ?? GridKey.unknownYear), rating: Int64(rating ?? 0)))
        self.init(position: position, albumId: albumId, cell: cell, artwork: artwork)
    }
}

/// Fields in the order above, nil ones left out: what synthesized Codable would do with stored fields.
extension GridItem: Codable {
    private enum CodingKeys: String, CodingKey {
        case position, albumId, title, artist, year, copyCount, rating, dateAdded, artwork
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(position: try container.decode(Int.self, forKey: .position), albumId: try container.decode(Int64.self, forKey: .albumId),
                  title: try container.decode(String.self, forKey: .title), artist: try container.decode(String.self, forKey: .artist),
                  year: try container.decodeIfPresent(Int.self, forKey: .year), copyCount: try container.decode(Int.self, forKey: .copyCount),
                  rating: try container.decodeIfPresent(Int.self, forKey: .rating), dateAdded: try container.decode(String.self, forKey: .dateAdded),
                  artwork: try container.decodeIfPresent(ArtworkReference.self, forKey: .artwork))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
        try container.encode(albumId, forKey: .albumId)
        try container.encode(title, forKey: .title)
        try container.encode(artist, forKey: .artist)
        try container.encodeIfPresent(year, forKey: .year)
        try container.encode(copyCount, forKey: .copyCount)
        try container.encodeIfPresent(rating, forKey: .rating)
        try container.encode(dateAdded, forKey: .dateAdded)
        try container.encode(artwork, forKey: .artwork)
    }
}

/// The image variant chosen for a cell: the smallest at least `itemWidth * scale` pixels wide, else
/// the largest there is.
/// A jump-bar entry: its label and the absolute position of the first album under it.
public struct GridSection: Codable, Sendable, Equatable {
    /// By artist or title the key's first letter (`#` for digits, symbols and other scripts), by year
    /// the decade (`1970s`), by date added the year (`2024`), by rating the stars (`5`); `?` for
    /// albums of unknown year, or unrated.
    public var letter: String
    public var position: Int
}

// Grid pages are the API's largest answers on its busiest route; see `JSONWritable`.

extension GridPage: JSONWritable {
    /// Some 200 bytes a cell, a little more with artwork.
    public var expectedJSONSize: Int { 1024 + 256 * items.count }

    public func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("layout", layout)
            $0.field("items", items)
            $0.field("start", start)
            $0.field("total", total)
            $0.field("next", next)
            $0.field("previous", previous)
            $0.field("sections", sections)
            $0.field("etag", etag)
        }
    }
}

extension GridItem: JSONWritable {
    public func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("position", position)
            $0.field("albumId", albumId)
            $0.appendFields(cell.json)
            $0.nullableField("artwork", artwork)
        }
    }
}

extension GridSection: JSONWritable {
    public func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("letter", letter)
            $0.field("position", position)
        }
    }
}

extension GridLayout: JSONWritable {
    public func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("environment", environment.rawValue)
            $0.field("columns", columns)
            $0.field("spacing", spacing)
            $0.field("padding", padding)
            $0.field("itemWidth", itemWidth)
            $0.field("rows", rows)
            $0.field("pageSize", pageSize)
        }
    }
}
