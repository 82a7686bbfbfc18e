import CratedCore
import GRDB

/// The SQL of one grid: which rows of `collection_album` (one per album the user owns, see
/// Migrations/0005_grid.sql) it holds, and their keyset order on (sort key, album id). Every statement
/// walks the sort's index `(user_id, sort key, album_id)` in order from a seek, so none scans.
///
/// A restriction (the scope and each filter) has two SQL forms. The probe form is an `EXISTS` looked up
/// for each row walked, for the statements that walk a few rows from a seek. The member query lists the
/// albums it lets through, from its own index: the daemon derives a restricted grid's snapshot from
/// them (`FilteredGridSnapshot.derive`). Walking a restricted grid whole (`gridStatement`, which tests hold
/// derived snapshots to) uses the member query as an `IN (subquery)` that SQLite materializes once.
/// Neither condition may drive the query: a unary `+` keeps SQLite from seeking on `album_id IN (...)`
/// or on a year range instead of on the keyset, which would walk or sort every row before the page.
struct GridSQL {
    let userId: Int64
    let sort: GridSort
    /// The rows the grid's statements read as `ca`: `collection_album`, or for a crate's order those of
    /// the crate's albums with each one's place in the crate (`crate_key`).
    private let source: Fragment
    let keyColumn: String
    /// Years and ratings are integers; names, titles and dates text.
    let keyIsInteger: Bool
    let descending: Bool
    /// False when a restriction can match no album (a search without a searchable word).
    let canMatch: Bool
    private let probeConditions: [Fragment]
    private let setConditions: [Fragment]
    /// For each restriction, the album ids it lets through (a statement of one column, repeats
    /// allowed), each read from an index: a restricted grid's snapshot keeps the albums of its
    /// unrestricted grid that every one lets through (`FilteredGridSnapshot.derive`).
    let memberQueries: [Fragment]

    /// Whether the grid is narrower than the rows it walks: the user's whole collection, or a whole
    /// crate in its own order.
    var isRestricted: Bool { !memberQueries.isEmpty }

    struct Fragment {
        var sql: String
        var arguments: [DatabaseValue]
        /// Whether it reads crate contents, which have a generation of their own.
        var readsCrates = false
    }

    /// Whether the grid's albums or order depend on what crates hold: its caches then follow crate
    /// edits too.
    var readsCrates: Bool { source.readsCrates || memberQueries.contains { $0.readsCrates } }

    /// Whether an album's cell holds its sort key. A place in a crate is the crate's, not the album's:
    /// a snapshot in a crate's order keeps every anchor instead.
    var cellsHoldSortKey: Bool { sort != .crate }

    /// Whether a cursor continues after its album where it stands now rather than after its key. A
    /// crate's places are renumbered by moves, so a key from before one may name another album's place.
    var anchorsFollowTheirAlbum: Bool { sort == .crate }

    /// One restriction: its probe, and the query of the albums it lets through.
    private struct Restriction {
        var probe: Fragment
        var members: Fragment
    }

    init(userId: Int64, request: GridRequest) {
        self.userId = userId
        sort = request.sort
        switch request.sort {
        case .artist: (keyColumn, keyIsInteger, descending) = ("artist_key", false, false)
        case .title: (keyColumn, keyIsInteger, descending) = ("title_key", false, false)
        // Unknown years are stored as 99999, after every real year.
        case .year: (keyColumn, keyIsInteger, descending) = ("year_key", true, false)
        case .dateAdded: (keyColumn, keyIsInteger, descending) = ("latest_added", false, true)
        case .rating: (keyColumn, keyIsInteger, descending) = ("best_rating", true, true)
        case .crate: (keyColumn, keyIsInteger, descending) = ("crate_key", true, false)
        }
        if sort == .crate, case .crate(let id) = request.scope {
            // An album stands where its first copy does in the crate's listing, which orders copies by
            // (position, copy id): one integer orders both, as copy ids stay below 2^32.
            source = Fragment(sql: """
                (SELECT owned.*, placed.crate_key FROM
                   (SELECT c.album_id, MIN(ci.position * 4294967296 + ci.item_id) AS crate_key
                    FROM crate_item ci CROSS JOIN collection_item c ON c.id = ci.item_id
                    WHERE ci.crate_id = ? AND c.user_id = ? GROUP BY c.album_id) placed
                 JOIN collection_album owned ON owned.user_id = ? AND owned.album_id = placed.album_id) ca
                """, arguments: [id.databaseValue, userId.databaseValue, userId.databaseValue], readsCrates: true)
        } else {
            source = Fragment(sql: "collection_album ca", arguments: [])
        }

        var restrictions: [Restriction] = []
        var canMatch = true
        func crate(_ id: Int64) -> Restriction {
            Restriction(
                probe: Fragment(sql: """
                    EXISTS (SELECT 1 FROM collection_item c JOIN crate_item ci ON ci.item_id = c.id
                            WHERE c.user_id = ca.user_id AND c.album_id = ca.album_id AND ci.crate_id = ?)
                    """, arguments: [id.databaseValue]),
                // CROSS JOIN keeps the crate's own rows first: left to choose, SQLite walks every copy
                // the user owns and probes the crate for each (5x slower for a crate of 12,000).
                members: Fragment(sql: """
                    SELECT c.album_id FROM crate_item ci CROSS JOIN collection_item c ON c.id = ci.item_id WHERE ci.crate_id = ? AND c.user_id = ?
                    """, arguments: [id.databaseValue, userId.databaseValue], readsCrates: true))
        }
        func artist(_ id: Int64) -> Restriction {
            Restriction(
                probe: Fragment(sql: "EXISTS (SELECT 1 FROM album_artist aa WHERE aa.album_id = ca.album_id AND aa.artist_id = ?)",
                                arguments: [id.databaseValue]),
                members: Fragment(sql: "SELECT album_id FROM album_artist WHERE artist_id = ?", arguments: [id.databaseValue]))
        }
        // The other lists of the artist's page, as the page has them.
        func artist(_ id: Int64, _ list: ArtistAlbumList) -> Restriction {
            guard list != .albums else { return artist(id) }
            let members = Fragment(sql: list.albumIdsSQL, arguments: Array(repeating: id.databaseValue, count: list.argumentCount))
            return Restriction(probe: Self.membership(members), members: members)
        }
        // Names match whatever their case, through indexes that order them so (0022).
        func genre(_ kind: String, _ name: String) -> Restriction {
            Restriction(
                probe: Fragment(sql: """
                    EXISTS (SELECT 1 FROM album_genre g WHERE g.album_id = ca.album_id AND g.kind = ? AND g.name = ? COLLATE NOCASE)
                    """, arguments: [kind.databaseValue, name.databaseValue]),
                members: Fragment(sql: "SELECT album_id FROM album_genre WHERE kind = ? AND name = ? COLLATE NOCASE",
                                  arguments: [kind.databaseValue, name.databaseValue]))
        }
        // A format's name, or a vinyl's first description: formats are stored as the API names
        // them, `Vinyl` described `LP` first, and a client may ask for either. The export's
        // abbreviation of a name (`Cass`) asks for the name (`Cassette`). Both are indexed (0017).
        func format(_ asked: String) -> Restriction {
            let named = DiscogsText.apiFormatName(anyCase: asked)
            let name = named.nameIsDescription ? asked : named.name
            return Restriction(
                probe: Fragment(sql: """
                    EXISTS (SELECT 1 FROM album_format f WHERE f.album_id = ca.album_id
                            AND (f.name = ? COLLATE NOCASE OR (f.name = 'Vinyl' AND json_extract(f.descriptions, '$[0]') = ? COLLATE NOCASE)))
                    """, arguments: [name.databaseValue, name.databaseValue]),
                members: Fragment(sql: """
                    SELECT album_id FROM album_format WHERE name = ? COLLATE NOCASE
                    UNION ALL SELECT album_id FROM album_format WHERE name = 'Vinyl' AND json_extract(descriptions, '$[0]') = ? COLLATE NOCASE
                    """, arguments: [name.databaseValue, name.databaseValue]))
        }
        func text(_ text: String) -> Restriction? {
            guard let expression = SearchText.matchExpression(text) else {
                canMatch = false
                return nil
            }
            // Full-text search has no cheap per-row probe: its matches are always gathered once.
            let members = Fragment(sql: "SELECT rowid FROM album_search WHERE album_search MATCH ?", arguments: [expression.databaseValue])
            return Restriction(probe: Self.membership(members), members: members)
        }

        switch request.scope {
        case .collection: break
        // In the crate's own order, the rows are the crate's already.
        case .crate where sort == .crate: break
        case .crate(let id): restrictions.append(crate(id))
        case .artist(let id, let role): restrictions.append(artist(id, role))
        case .genre(let name): restrictions.append(genre("genre", name))
        case .style(let name): restrictions.append(genre("style", name))
        case .search(let query): text(query).map { restrictions.append($0) }
        }
        let filters = request.filters
        if let id = filters.crateId { restrictions.append(crate(id)) }
        if let name = filters.genre { restrictions.append(genre("genre", name)) }
        if let name = filters.style { restrictions.append(genre("style", name)) }
        if let id = filters.artistId { restrictions.append(artist(id)) }
        if filters.yearFrom != nil || filters.yearTo != nil {
            let from = Int64(filters.yearFrom ?? GridFilters.yearRange.lowerBound)
            let to = Int64(filters.yearTo ?? GridFilters.yearRange.upperBound)
            // Even in the year sort the seek must be the keyset's, not the start of the range.
            restrictions.append(Restriction(
                probe: Fragment(sql: "+ca.year_key BETWEEN ? AND ?", arguments: [from.databaseValue, to.databaseValue]),
                members: Fragment(sql: "SELECT album_id FROM collection_album WHERE user_id = ? AND year_key BETWEEN ? AND ?",
                                  arguments: [userId.databaseValue, from.databaseValue, to.databaseValue])))
        }
        if let name = filters.format { restrictions.append(format(name)) }
        if let query = filters.text { text(query).map { restrictions.append($0) } }

        self.canMatch = canMatch
        self.probeConditions = restrictions.map(\.probe)
        self.setConditions = restrictions.map { Self.membership($0.members) }
        self.memberQueries = restrictions.map(\.members)
    }

    /// `+ca.album_id IN (<members>)`: the condition a walk of the whole grid materializes once.
    private static func membership(_ members: Fragment) -> Fragment {
        Fragment(sql: "+ca.album_id IN (\(members.sql))", arguments: members.arguments)
    }

    // MARK: Building blocks

    enum Form { case probe, set }

    /// `FROM <source> WHERE ca.user_id = ? AND <restrictions>`.
    func fromWhere(_ form: Form) -> Fragment {
        let conditions = form == .probe ? probeConditions : setConditions
        return Fragment(
            sql: "FROM \(source.sql) WHERE " + (["ca.user_id = ?"] + conditions.map(\.sql)).joined(separator: " AND "),
            arguments: source.arguments + [userId.databaseValue] + conditions.flatMap(\.arguments))
    }

    var orderBy: String {
        descending ? "ORDER BY ca.\(keyColumn) DESC, ca.album_id DESC" : "ORDER BY ca.\(keyColumn), ca.album_id"
    }

    /// Where a row stands relative to an anchor, in grid order.
    enum Relation { case before, atOrBefore, atOrAfter, after }

    /// `(ca.key, ca.album_id) <op> anchor`, the operator turned around for a descending sort.
    func keysetCondition(_ relation: Relation, anchor: String = "(?, ?)") -> String {
        let ascendingOperator = switch relation {
        case .before: "<"
        case .atOrBefore: "<="
        case .atOrAfter: ">="
        case .after: ">"
        }
        let op = descending ? String(ascendingOperator.map { $0 == "<" ? ">" : $0 == ">" ? "<" : $0 }) : ascendingOperator
        return "(ca.\(keyColumn), ca.album_id) \(op) \(anchor)"
    }

    func arguments(_ anchor: GridAnchor) -> [DatabaseValue] {
        [anchor.key.databaseValue, anchor.albumId.databaseValue]
    }

    /// Grid order on anchors, as SQLite orders the rows: negative when `lhs` comes first.
    func compare(_ lhs: GridAnchor, _ rhs: GridAnchor) -> Int {
        var order = lhs.key.compare(to: rhs.key)
        if order == 0 { order = lhs.albumId < rhs.albumId ? -1 : lhs.albumId == rhs.albumId ? 0 : 1 }
        return descending ? -order : order
    }

    /// Whether an anchor's key is of the type this sort stores (a cursor could claim another).
    func accepts(_ key: SortKey) -> Bool {
        switch key {
        case .integer: keyIsInteger
        case .text: !keyIsInteger
        }
    }

    // MARK: Statements

    /// Every anchor of the grid in order, walking all of it with set conditions: what a snapshot is
    /// built from.
    func gridStatement() -> (sql: String, arguments: [DatabaseValue]) {
        let condition = fromWhere(.set)
        return ("SELECT ca.\(keyColumn), ca.album_id \(condition.sql) \(orderBy)", condition.arguments)
    }

    /// How many rows lie from `lower` (included) to `upper` (included or not): a short index range.
    func countStatement(from lower: GridAnchor, to upper: GridAnchor, including includeUpper: Bool) -> (sql: String, arguments: [DatabaseValue]) {
        let condition = fromWhere(.probe)
        return ("""
            SELECT COUNT(*) \(condition.sql) AND \(keysetCondition(.atOrAfter)) AND \(keysetCondition(includeUpper ? .atOrBefore : .before))
            """, condition.arguments + arguments(lower) + arguments(upper))
    }

    /// The first anchor past a jump-bar section's `bound` (`SectionScheme.nextSectionBound`): whose
    /// key is at least it in an ascending sort, below it in a descending one. Nil: the grid's first.
    func firstAnchorStatement(pastSectionBound bound: SortKey?) -> (sql: String, arguments: [DatabaseValue]) {
        let condition = fromWhere(.probe)
        guard let bound else {
            return ("SELECT ca.\(keyColumn), ca.album_id \(condition.sql) \(orderBy) LIMIT 1", condition.arguments)
        }
        return ("SELECT ca.\(keyColumn), ca.album_id \(condition.sql) AND ca.\(keyColumn) \(descending ? "<" : ">=") ? \(orderBy) LIMIT 1",
                condition.arguments + [bound.databaseValue])
    }

    /// The anchor of one album, when it is in the grid.
    func albumAnchorStatement(albumId: Int64) -> (sql: String, arguments: [DatabaseValue]) {
        let condition = fromWhere(.probe)
        return ("SELECT ca.\(keyColumn), ca.album_id \(condition.sql) AND ca.album_id = ?",
                condition.arguments + [albumId.databaseValue])
    }

    // MARK: Running them

    func fetchAnchors(_ db: Database, _ statement: (sql: String, arguments: [DatabaseValue])) throws -> [GridAnchor] {
        try db.rows(statement.sql, values: statement.arguments) { columns in
            GridAnchor(key: try Self.key(columns, at: 0), albumId: try columns.int64(1))
        }
    }

    /// A cell's sort key in this grid's sort: its `keyColumn`; nil when cells do not hold it
    /// (`cellsHoldSortKey`).
    func sortKey(of cell: GridCell) -> SortKey? {
        switch sort {
        case .artist: .text(cell.sortKeys.artist)
        case .title: .text(cell.sortKeys.title)
        case .year: .integer(cell.sortKeys.year)
        case .dateAdded: .text(cell.dateAdded)
        case .rating: .integer(cell.sortKeys.rating)
        case .crate: nil
        }
    }

    /// A row's sort key: integers (year, rating) or text (names, titles, dates); a NULL key sorts as ''.
    static func key(_ columns: StatementColumns, at column: Int32) throws -> SortKey {
        if columns.isInteger(column) { return .integer(try columns.int64(column)) }
        return .text(columns.isNull(column) ? "" : try columns.string(column))
    }

    func fetchCount(_ db: Database, _ statement: (sql: String, arguments: [DatabaseValue])) throws -> Int {
        try db.rows(statement.sql, values: statement.arguments) { try $0.int(0) }.first ?? 0
    }
}
