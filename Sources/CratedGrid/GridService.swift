import CratedCore
import GRDB

/// Answers album grid pages for a user: one cell per album with its copy count, in a keyset order, in
/// pages sized to the client's layout (docs/design.md, "Grid pagination").
///
/// Page invariants: a page that starts at absolute position p with c columns holds `rows*c - p % c`
/// items, so every page but the last ends on a row boundary of the whole grid; `next` continues right
/// after the page's last album and `previous` ends right before its first, whatever the layout of the
/// next request and whatever was added or removed in between.
public struct GridService: Sendable {
    public let database: AppDatabase
    /// Each user's whole collection walked in one sort, for one listing generation: up to 16 of them,
    /// holding up to 2 million album ids (16 MB) in all. Every restricted grid is filtered from one.
    private let walkedSnapshots: GenerationCache<GridSnapshot>
    /// Whole crates walked in their own order, apart so that browsing crates never pushes out the
    /// collection's walks: up to 64, holding up to 500,000 albums with every anchor (some 20 MB).
    private let crateWalks: GenerationCache<GridSnapshot>
    /// Restricted grids by user and grid order, for one listing generation: up to 256 of them, holding
    /// up to 4 million positions (16 MB) in all. Each holds on to the walked snapshot it was filtered
    /// from, which a newer generation of the same reach drops from both caches.
    private let filteredSnapshots: GenerationCache<FilteredGridSnapshot>
    /// The albums each restriction lets through (a format, a crate, a year range, search words), by
    /// user and query, for one listing generation: up to 256 of them, 16 MB in all.
    private let memberSets: GenerationCache<AlbumSet>
    /// Cells by user and album, for one listing generation (internal: tests look at it).
    let cells: GridCellCache
    private let tuning: GridSnapshot.Tuning

    /// `caches: false` keeps nothing between requests: every page builds its grid's position snapshot
    /// and reads its cells (tests compare the two; the answers are the same).
    public init(database: AppDatabase, caches: Bool = true) {
        self.init(database: database, caches: caches, tuning: GridSnapshot.Tuning())
    }

    init(database: AppDatabase, caches: Bool, tuning: GridSnapshot.Tuning, cellCapacity: Int = 20_000) {
        self.database = database
        self.walkedSnapshots = GenerationCache(capacity: caches ? 16 : 0, maxWeight: 2_000_000) { $0.total }
        self.crateWalks = GenerationCache(capacity: caches ? 64 : 0, maxWeight: 500_000) { $0.total }
        self.filteredSnapshots = GenerationCache(capacity: caches ? 256 : 0, maxWeight: 4_000_000) { $0.total }
        self.memberSets = GenerationCache(capacity: caches ? 256 : 0, maxWeight: 16_000_000) { $0.weight }
        self.cells = GridCellCache(capacity: caches ? cellCapacity : 0)
        self.tuning = tuning
    }

    /// One page of `userId`'s grid. Throws `GridError` for a bad parameter (400) or a crate, artist, genre,
    /// style or `around` album that is not there (404); any other error is the database's.
    public func page(userId: Int64, request: GridRequest) throws -> GridPage {
        try request.checkSort()
        let layout = try request.layout.resolve()
        let sql = GridSQL(userId: userId, request: request)
        let order = request.orderFingerprint
        var cursor: GridCursor?
        if case .cursor(let token) = request.position {
            let decoded = try GridCursor(token: token, userId: userId, order: order)
            guard sql.accepts(decoded.anchor.key) else {
                throw GridError.badParameter("cursor", "is not a cursor from this server, or it was altered; start again without a cursor")
            }
            cursor = decoded
        }
        let plan = PagePlan(
            userId: userId, request: request, order: order, sql: sql, layout: layout, cursor: cursor,
            artworkPixels: layout.itemWidth * request.layout.artworkScale,
            includeSections: request.sort.hasSections && (request.includeSections ?? (cursor == nil)))

        return try database.read { db in
            try plan.checkReferences(db)
            let (snapshot, generation) = try positions(db, userId: userId, request: request, sql: sql, order: order)
            if snapshot.total == 0 { try plan.checkNameIsInCollection(db) }
            // Cells show covers' colours and sizes, which a fetch changes without touching the listings.
            let cellGeneration = try ListingGeneration.current(db, .listingsAndArtwork)
            return try plan.page(db, snapshot: snapshot, generation: generation, cellGeneration: cellGeneration, cells: cells)
        }
    }
}

extension GridService {
    /// The grid's positions and the generation they belong to: the user's whole collection in the
    /// request's sort (or a whole crate in its own order), walked once per generation, or a restricted
    /// grid filtered from it.
    private func positions(
        _ db: Database, userId: Int64, request: GridRequest, sql: GridSQL, order: String
    ) throws -> (any GridPositions, generation: Int64) {
        let withSections = request.sort.hasSections
        // Only grids that a crate restricts or orders follow crate edits; the rest, and every grid's
        // cells, are kept across them.
        func reach(_ sql: GridSQL) -> ListingGeneration.Reach { sql.readsCrates ? .listingsAndCrates : .listings }
        func walked(_ sql: GridSQL, order: String) throws -> (GridSnapshot, generation: Int64) {
            let cache = sql.sort == .crate ? crateWalks : walkedSnapshots
            return try cache.valueAndGeneration(for: "\(userId)/\(order)", in: db, reach: reach(sql)) {
                try GridSnapshot.build(db, sql: sql, withSections: withSections, tuning: tuning)
            }
        }
        guard sql.isRestricted else { return try walked(sql, order: order) }
        return try filteredSnapshots.valueAndGeneration(for: "\(userId)/\(order)", in: db, reach: reach(sql)) {
            let unrestricted = request.unrestricted
            let baseSQL = GridSQL(userId: userId, request: unrestricted)
            let (base, _) = try walked(baseSQL, order: unrestricted.orderFingerprint)
            return try FilteredGridSnapshot.derive(from: base, baseSQL: baseSQL, sql: sql, withSections: withSections) { query, maxAlbumId in
                // Each argument with its length first: no two lists of arguments make one key.
                let arguments = query.arguments.map { "\($0.description.utf8.count):\($0.description)" }.joined()
                let key = "\(userId)/\(maxAlbumId)/\(query.sql)/\(arguments)"
                return try memberSets.value(for: key, in: db, reach: query.readsCrates ? .listingsAndCrates : .listings) {
                    try AlbumSet.reading(db, query, maxAlbumId: maxAlbumId)
                }
            }
        }
    }
}

/// One request's work inside a read transaction.
private struct PagePlan {
    let userId: Int64
    let request: GridRequest
    /// The request's `orderFingerprint`, worked out once.
    let order: String
    let sql: GridSQL
    let layout: GridLayout
    let cursor: GridCursor?
    let artworkPixels: Double
    let includeSections: Bool

    /// - Parameters:
    ///   - generation: the snapshot's, which cursors carry.
    ///   - cellGeneration: the listing and artwork generations, which cells follow.
    func page(_ db: Database, snapshot: any GridPositions, generation: Int64, cellGeneration: Int64, cells cache: GridCellCache) throws -> GridPage {
        let (start, count) = try placement(db, snapshot, generation: generation)
        let albumIds = snapshot.albumIds(from: start, count: count)
        let cells = try self.cells(db, albumIds: albumIds, generation: cellGeneration, cache: cache)
        let items = albumIds.indices.map { offset in
            GridItem(position: start + offset, albumId: albumIds[offset], cell: cells[offset],
                     artwork: cells[offset].cover?.artwork(pixels: artworkPixels))
        }
        // The cursors start from the page's first and last albums: their anchors as the snapshot keeps
        // them, else from their cells, which hold the sort key of every sort whose snapshots skip some.
        func anchor(at offset: Int) throws -> GridAnchor {
            if let kept = snapshot.keptAnchor(at: start + offset) { return kept }
            guard let key = sql.sortKey(of: cells[offset]) else {
                throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "the grid's snapshot keeps no anchor at \(start + offset)")
            }
            return GridAnchor(key: key, albumId: albumIds[offset])
        }
        let end = start + albumIds.count
        let next = albumIds.isEmpty || end >= snapshot.total ? nil : try anchor(at: albumIds.count - 1)
        let previous = albumIds.isEmpty || start == 0 ? nil : try anchor(at: 0)
        func token(_ direction: GridCursor.Direction, _ anchor: GridAnchor, at position: Int) -> String {
            GridCursor(userId: userId, order: order, direction: direction, anchor: anchor,
                       placement: GridCursor.Placement(position: position, generation: generation)).token
        }
        return GridPage(
            layout: layout, items: items, start: start, total: snapshot.total,
            next: next.map { token(.after, $0, at: end - 1) },
            previous: previous.map { token(.before, $0, at: start) },
            sections: includeSections ? snapshot.sections : nil,
            cursorIdentities: (next.map { "after \($0.key.checksumText) \($0.albumId)" },
                               previous.map { "before \($0.key.checksumText) \($0.albumId)" }))
    }

    /// The absolute position the page starts at and how many items it asks for.
    private func placement(_ db: Database, _ snapshot: any GridPositions, generation: Int64) throws -> (start: Int, count: Int) {
        let total = snapshot.total
        func forward(from start: Int) -> (Int, Int) { (start, layout.pageSize(startingAt: start)) }
        switch request.position {
        case .start:
            return forward(from: 0)
        case .at(let position):
            // Past the end is the last row: a scroll position saved on a grid that has since shrunk.
            return forward(from: total == 0 ? 0 : layout.rowStart(of: min(position, total - 1)))
        case .around(let albumId):
            guard let anchor = try sql.fetchAnchors(db, sql.albumAnchorStatement(albumId: albumId)).first else {
                throw GridError.notFound("around", "album \(albumId) is not in this grid")
            }
            let position = try snapshot.position(ofAlbumAt: anchor, sql: sql)
            return (position - position % layout.pageSize, layout.pageSize)
        case .cursor:
            guard let cursor else { return forward(from: 0) }
            // Where the anchor stands: as the cursor says while nothing has changed, else counted.
            func anchorPosition(including: Bool) throws -> Int {
                if let placement = cursor.placement, placement.generation == generation, placement.position < total {
                    return placement.position + (including ? 1 : 0)
                }
                // A move in a crate renumbers the places of the copies it passes, which did not move:
                // in a crate's order the anchor's album, while in the grid, is found where it is now.
                if sql.anchorsFollowTheirAlbum,
                   let current = try sql.fetchAnchors(db, sql.albumAnchorStatement(albumId: cursor.anchor.albumId)).first {
                    return try snapshot.position(ofAlbumAt: current, sql: sql) + (including ? 1 : 0)
                }
                return try snapshot.rank(db, of: cursor.anchor, including: including, sql: sql)
            }
            switch cursor.direction {
            case .after:
                return forward(from: try anchorPosition(including: true))
            case .before:
                let end = try anchorPosition(including: false)
                // Nothing is left before the anchor: the first page.
                guard end > 0 else { return forward(from: 0) }
                // Whole rows up to the end of the row holding the anchor, cut at the anchor: the page
                // ends where the page after it began, and starts on a row boundary.
                let endOfRow = (end + layout.columns - 1) / layout.columns * layout.columns
                let start = max(0, endOfRow - layout.pageSize)
                return (start, end - start)
            }
        }
    }

    /// A crate must be the user's, and an artist must be on one of the user's albums (as its artist,
    /// or on a track: an artist who only appears on a compilation has an empty grid) or on one they
    /// played, whose page links to theirs: anything else is a 404 (as on the artist page), not an
    /// empty grid, so that no one learns which artists others own.
    func checkReferences(_ db: Database) throws {
        // Each with the parameter that named it: the path's `id`, or a filter.
        var crates: [(id: Int64, field: String)] = []
        var artists: [(id: Int64, field: String)] = []
        switch request.scope {
        case .crate(let id): crates.append((id, "id"))
        case .artist(let id, _): artists.append((id, "id"))
        case .collection, .genre, .style, .search: break
        }
        if let id = request.filters.crateId { crates.append((id, "crate")) }
        if let id = request.filters.artistId { artists.append((id, "artist")) }
        for (id, field) in crates {
            guard try Row.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM crate WHERE id = ? AND user_id = ?"), arguments: [id, userId]) != nil else {
                throw GridError.notFound(field, "no crate \(id) in this collection")
            }
        }
        for (id, field) in artists {
            guard try Row.fetchOne(db.cachedStatement(sql: """
                SELECT 1 FROM album_artist credit JOIN collection_album owned ON owned.album_id = credit.album_id
                WHERE credit.artist_id = ?1 AND owned.user_id = ?2
                UNION ALL
                SELECT 1 FROM track_artist credit JOIN track ON track.id = credit.track_id
                JOIN collection_album owned ON owned.album_id = track.album_id
                WHERE credit.artist_id = ?1 AND owned.user_id = ?2
                UNION ALL
                SELECT 1 FROM artist JOIN album_credit credit ON credit.discogs_id = artist.discogs_id
                JOIN collection_album owned ON owned.album_id = credit.album_id
                WHERE artist.id = ?1 AND owned.user_id = ?2
                LIMIT 1
                """), arguments: [id, userId]) != nil || Artist.isOnAnAlbumPlayed(by: userId, artistId: id, in: db) else {
                throw GridError.notFound(field, "no artist \(id) in this collection")
            }
        }
    }

    /// A genre's or style's grid must name a genre or style of one of the user's albums: anything
    /// else is a 404, as on the genre page. Asked of an empty grid only, since any album in the grid
    /// shows that the name is there (filters may still leave it empty).
    func checkNameIsInCollection(_ db: Database) throws {
        let kind: String, name: String
        switch request.scope {
        case .genre(let genre): (kind, name) = ("genre", genre)
        case .style(let style): (kind, name) = ("style", style)
        case .collection, .crate, .artist, .search: return
        }
        guard try Row.fetchOne(db.cachedStatement(sql: """
            SELECT 1 FROM album_genre g JOIN collection_album owned ON owned.album_id = g.album_id
            WHERE g.kind = ? AND g.name = ? COLLATE NOCASE AND owned.user_id = ? LIMIT 1
            """), arguments: [kind, name, userId]) != nil else {
            throw GridError.notFound("name", "\(kind) '\(name)' not found in your collection")
        }
    }

    /// The cells of these albums, in their order: kept ones from the cache, the rest read (and kept).
    private func cells(_ db: Database, albumIds ids: [Int64], generation: Int64, cache: GridCellCache) throws -> [GridCell] {
        guard !ids.isEmpty else { return [] }
        var cells = cache.cells(userId: userId, albumIds: ids, generation: generation)
        let missing = ids.indices.filter { cells[$0] == nil }
        if !missing.isEmpty {
            let read = try readCells(db, albumIds: missing.map { ids[$0] })
            for index in missing { cells[index] = read[ids[index]] }
            cache.store(read.map { ($0.key, $0.value) }, userId: userId, generation: generation)
        }
        // The snapshot and the cells come from one transaction: every album of the one has its cell.
        return try ids.indices.map { offset in
            guard let cell = cells[offset] else {
                throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "album \(ids[offset]) is in the grid's snapshot but not in the grid")
            }
            return cell
        }
    }

    /// The cells of these albums of the user's, by album id: two statements, whatever their number.
    private func readCells(_ db: Database, albumIds ids: [Int64]) throws -> [Int64: GridCell] {
        let placeholders = sqlQuestionMarks(count: ids.count)
        // Each album's first image in cover order is its cover (`AlbumCover`).
        var covers: [Int64: AlbumCover] = [:]
        // Cached statements: a layout asks for the same number of albums on every page.
        try db.forEachRow("""
            SELECT i.album_id, \(AlbumCover.selection) FROM \(AlbumCover.imageWithArtwork)
            WHERE i.album_id IN (\(placeholders)) AND \(AlbumCover.qualifiedHasURL)
            ORDER BY i.album_id, \(AlbumCover.qualifiedOrder)
            """, ids: ids) { columns in
            let albumId = try columns.int64(0)
            guard covers[albumId] == nil else { return }
            covers[albumId] = try AlbumCover(columns: columns, from: 1)
        }
        var cells: [Int64: GridCell] = [:]
        cells.reserveCapacity(ids.count)
        try db.forEachRow("""
            SELECT ca.album_id, a.title, a.artist_credit, a.year, ca.copies, ca.best_rating, ca.latest_added,
                   ca.artist_key, ca.title_key, ca.year_key
            FROM collection_album ca JOIN album a ON a.id = ca.album_id
            WHERE ca.user_id = ? AND ca.album_id IN (\(placeholders))
            """, ids: [userId] + ids) { columns in
            let albumId = try columns.int64(0)
            let bestRating = try columns.int64(5)
            cells[albumId] = GridCell(
                title: try columns.string(1), artist: try columns.string(2), year: try columns.optionalInt(3),
                copyCount: try columns.int(4), rating: bestRating == 0 ? nil : Int(bestRating), dateAdded: try columns.string(6), cover: covers[albumId],
                sortKeys: GridCell.SortKeys(artist: try columns.string(7), title: try columns.string(8), year: try columns.int64(9), rating: bestRating))
        }
        return cells
    }
}

