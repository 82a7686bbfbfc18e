import CratedCore

/// Which albums a grid shows, before filters: the route it is served on.
public enum GridScope: Sendable, Hashable {
    /// The user's whole collection.
    case collection
    /// The albums with a copy in one of the user's crates.
    case crate(id: Int64)
    /// An artist's albums, as their page lists them in `role`: their own by default.
    case artist(id: Int64, role: ArtistAlbumList = .albums)
    case genre(String)
    case style(String)
    /// Full-text search results (titles, artists, labels, catalogue numbers, tracks).
    case search(String)

    var fingerprint: String {
        switch self {
        case .collection: "collection"
        case .crate(let id): "crate:\(id)"
        case .artist(let id, .albums): "artist:\(id)"
        case .artist(let id, let role): "artist:\(id):\(role.rawValue)"
        case .genre(let name): "genre:\(name)"
        case .style(let name): "style:\(name)"
        case .search(let text): "search:\(text)"
        }
    }
}

/// The orders a grid can be in. Each is a keyset order on (sort key, album id).
public enum GridSort: String, Codable, Sendable, CaseIterable {
    /// The credit's sort name (`beatles` for The Beatles), A to Z; the albums of one credit by year
    /// (unknown last), then title (`GridKey.artist`).
    case artist
    /// The title's sort form, A to Z.
    case title
    /// Oldest first; unknown years last.
    case year
    /// Newest first, by the user's latest copy of the album.
    case dateAdded
    /// Best first, by the user's best-rated copy; unrated last.
    case rating
    /// A crate's own order, as its owner arranged it (a crate's grid only, and its default): each album
    /// where its first copy in the crate stands.
    case crate

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = match
    }

    /// Whether the grid has a jump bar: every sort but a crate's own order, whose places are the
    /// owner's and have no labels (`SectionScheme`).
    public var hasSections: Bool { SectionScheme(self) != nil }

    /// The order a grid has when the request names none: a crate's own on a crate's grid.
    static func standard(for scope: GridScope) -> GridSort {
        if case .crate = scope { return .crate }
        return .artist
    }

    /// The orders a grid of this scope can be in: a crate's order needs a crate to take it from.
    static func allowed(in scope: GridScope) -> [GridSort] {
        if case .crate = scope { return allCases }
        return allCases.filter { $0 != .crate }
    }
}

/// Filters that narrow a grid; they combine (all must hold) with each other and with the scope.
public struct GridFilters: Sendable, Hashable {
    public var crateId: Int64?
    public var genre: String?
    public var style: String?
    public var artistId: Int64?
    /// Inclusive; albums of unknown year match no range.
    public var yearFrom: Int?
    public var yearTo: Int?
    /// A format's name (`LP`, `12"` from an import; `Vinyl`, `CD`) or a vinyl's first description (`LP`).
    public var format: String?
    /// Words to find, as typed; every word must match the start of a word of the album.
    public var text: String?

    public init(
        crateId: Int64? = nil, genre: String? = nil, style: String? = nil, artistId: Int64? = nil,
        yearFrom: Int? = nil, yearTo: Int? = nil, format: String? = nil, text: String? = nil
    ) {
        self.crateId = crateId
        self.genre = genre
        self.style = style
        self.artistId = artistId
        self.yearFrom = yearFrom
        self.yearTo = yearTo
        self.format = format
        self.text = text
    }

    public static let yearRange = 1...9999

    var fingerprint: String {
        [
            crateId.map { "crate:\($0)" }, genre.map { "genre:\($0)" }, style.map { "style:\($0)" },
            artistId.map { "artist:\($0)" }, yearFrom.map { "from:\($0)" }, yearTo.map { "to:\($0)" },
            format.map { "format:\($0)" }, text.map { "text:\($0)" },
        ].compactMap { $0 }.joined(separator: "\u{1f}")
    }
}

/// Where a page starts.
public enum GridPosition: Sendable, Hashable {
    /// The first page.
    case start
    /// A `next` or `previous` cursor from an earlier page.
    case cursor(String)
    /// Absolute position N, aligned down to the start of its row (`at=N`).
    case at(Int)
    /// The page that holds this album (`around=ID`), to restore a scroll position.
    case around(albumId: Int64)
}

/// Everything a grid page request says, except who asks.
public struct GridRequest: Sendable, Equatable {
    public var scope: GridScope
    public var sort: GridSort
    public var filters: GridFilters
    public var layout: LayoutRequest
    public var position: GridPosition
    /// Whether to include the jump bar's sections (every sort but `crate`). Nil: only on pages
    /// that do not continue from a cursor, where a client builds its jump bar.
    public var includeSections: Bool?

    public init(
        scope: GridScope = .collection, sort: GridSort? = nil, filters: GridFilters = GridFilters(),
        layout: LayoutRequest = LayoutRequest(), position: GridPosition = .start, includeSections: Bool? = nil
    ) {
        self.scope = scope
        self.sort = sort ?? GridSort.standard(for: scope)
        self.filters = filters
        self.layout = layout
        self.position = position
        self.includeSections = includeSections
    }

    /// Reads a grid's query parameters; the scope comes from the route. Parameters: the layout's
    /// (`layout`, `hsc`, `vsc`, `width`, `height`, `idiom`, `scale`, `limit`), `sort`, the filters
    /// (`crate`, `genre`, `style`, `artist`, `yearFrom`, `yearTo`, `format`, `q`), one of `cursor`, `at`,
    /// `around`, and `sections` (true/false). Unknown keys are ignored; an empty filter or cursor is none.
    /// Throws `GridError.badParameter` naming the parameter.
    public init(scope: GridScope, query: [String: String]) throws {
        let parameters = QueryParameters(query)
        let sort = try parameters.value("sort") { GridSort(name: $0) } expected: {
            "must be one of \(GridSort.allowed(in: scope).map(\.rawValue).joined(separator: ", "))"
        }
        func name(_ key: String) throws -> String? {
            guard let value = parameters.text(key)?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            guard value.count <= 200 else { throw GridError.badParameter(key, "must be at most 200 characters") }
            return value
        }
        // A client that writes every optional filter into its query sends the ones it lacks empty.
        func given(_ key: String) -> Bool { parameters.text(key)?.isEmpty == false }
        func id(_ key: String) throws -> Int64? { given(key) ? try parameters.identifier(key) : nil }
        func year(_ key: String) throws -> Int? {
            guard given(key), let year = try parameters.integer(key) else { return nil }
            guard GridFilters.yearRange.contains(year) else { throw GridError.badParameter(key, "must be a year from 1 to 9999, not \(year)") }
            return year
        }
        let filters = GridFilters(
            crateId: try id("crate"), genre: try name("genre"), style: try name("style"),
            artistId: try id("artist"), yearFrom: try year("yearFrom"), yearTo: try year("yearTo"),
            format: try name("format"), text: try name("q"))
        if let from = filters.yearFrom, let to = filters.yearTo, from > to {
            throw GridError.badParameter("yearTo", "must not be before yearFrom (\(from)), not \(to)")
        }

        var positions: [(parameter: String, position: GridPosition)] = []
        if given("cursor"), let cursor = parameters.text("cursor") { positions.append(("cursor", .cursor(cursor))) }
        if let at = try parameters.integer("at") {
            guard at >= 0 else { throw GridError.badParameter("at", "must be a position from 0, not \(at)") }
            positions.append(("at", .at(at)))
        }
        if let album = try parameters.identifier("around") { positions.append(("around", .around(albumId: album))) }
        if positions.count > 1 {
            throw GridError.badParameter(positions[1].parameter, "cannot be combined with \(positions[0].parameter): a page starts at one place")
        }
        self.init(
            scope: scope, sort: sort, filters: filters, layout: try LayoutRequest(query: query),
            position: positions.first?.position ?? .start, includeSections: try parameters.flag("sections"))
        try checkSort()
    }

    /// A crate's order belongs to a crate's grid (`GET /v1/grid/crates/{id}`).
    func checkSort() throws {
        let allowed = GridSort.allowed(in: scope)
        guard allowed.contains(sort) else {
            throw GridError.badParameter("sort", "\(sort.rawValue) is the order of a crate's own grid; here it must be one of \(allowed.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// The grid a restricted one is filtered from: the user's whole collection in the same sort, or for
    /// a crate's order, the whole crate.
    var unrestricted: GridRequest {
        sort == .crate ? GridRequest(scope: scope, sort: .crate) : GridRequest(scope: .collection, sort: sort)
    }

    /// Identifies the sequence of albums the request pages through (scope, filters, sort), not where it
    /// starts nor how it is laid out: a cursor is valid for exactly this.
    var orderFingerprint: String {
        StableHash.hex(of: "grid-order-v1", scope.fingerprint, sort.rawValue, filters.fingerprint)
    }
}
