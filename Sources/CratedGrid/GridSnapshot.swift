import GRDB

/// Where every position of a grid is, at one state of the database: every album id in grid order,
/// the anchor of every `stride`-th album (checkpoints), and the jump bar's sections.
///
/// SQLite has no rank query: the position of an album is a COUNT of the index range before it, and
/// `at=N` an OFFSET N, both linear in N, and even a keyset page walks its rows one by one. A snapshot
/// reads the grid once, and then every page is a slice of its album ids (its cursors start from the
/// sort keys its cells hold). The position of an album read in the same transaction (`around=`, a
/// section's first album) is a binary search among the checkpoints and a look along the ids after one.
/// Only an anchor that may be gone or moved (a cursor from before a write) is counted in SQL, over at
/// most `stride` rows after a checkpoint.
///
/// This is the walked form, for a user's whole collection in one sort or a whole crate in its own
/// order; a restricted grid is a `FilteredGridSnapshot` of it.
///
/// A grid of up to `allAnchorsLimit` albums keeps every anchor (as if the stride were 1) and answers
/// every position without SQL, a cursor's too. A larger grid also keeps its first `leadingAnchors`
/// anchors, read anyway, so that no position in its first pages is ever counted.
struct GridSnapshot: GridPositions {
    var stride: Int
    var checkpoints: [GridAnchor]
    /// The anchors at positions 0 ..< leading.count; empty when the stride is 1 (checkpoints hold all).
    var leading: [GridAnchor] = []
    /// Every album of the grid, in grid order: 8 bytes each, 1.6 MB for 200,000 albums.
    var albumIds: [Int64]
    var sections: [GridSection]?
    /// Where each run of albums under one jump-bar label begins, in grid order (`#` can begin two:
    /// digits first, other scripts after `z`). The sections are the first run of each label; a
    /// restricted grid derives its own from these.
    var sectionRuns: [GridSection]?
    /// The largest album id in the grid (0 when empty).
    var maxAlbumId: Int64 = 0

    var total: Int { albumIds.count }

    /// How far apart checkpoints are, and up to how many albums a snapshot keeps every anchor. Tests
    /// make both small so that a few dozen albums take every path.
    struct Tuning: Sendable {
        var stride = 64
        var allAnchorsLimit = 4096
        /// Some thirty pages on an iPad, for 20 KB or so per snapshot.
        var leadingAnchors = 512
    }

    static let empty = GridSnapshot(stride: 1, checkpoints: [], albumIds: [], sections: [])

    /// Walks the grid once, in one statement: every album id, and the sort key of those it keeps anchors of.
    static func build(_ db: Database, sql: GridSQL, withSections: Bool, tuning: Tuning) throws -> GridSnapshot {
        guard sql.canMatch else { return .empty }
        var tuning = tuning
        // Pages start their cursors from kept anchors, or from the keys their cells hold.
        if !sql.cellsHoldSortKey { tuning.allAnchorsLimit = .max }
        var albumIds: [Int64] = []
        // Every anchor up to `allAnchorsLimit`, then every stride-th.
        var anchors: [GridAnchor] = []
        let statement = sql.gridStatement()
        try db.forEachRow(statement.sql, values: statement.arguments) { columns in
            let position = albumIds.count
            let albumId = try columns.int64(1)
            albumIds.append(albumId)
            if position < tuning.allAnchorsLimit || position % tuning.stride == 0 {
                anchors.append(GridAnchor(key: try GridSQL.key(columns, at: 0), albumId: albumId))
            }
        }
        var snapshot: GridSnapshot
        if albumIds.count <= tuning.allAnchorsLimit {
            snapshot = GridSnapshot(stride: 1, checkpoints: anchors, albumIds: albumIds)
        } else {
            let everyAnchor = anchors[..<tuning.allAnchorsLimit]
            let checkpoints = Swift.stride(from: 0, to: tuning.allAnchorsLimit, by: tuning.stride).map { everyAnchor[$0] } + anchors[tuning.allAnchorsLimit...]
            snapshot = GridSnapshot(stride: tuning.stride, checkpoints: checkpoints, albumIds: albumIds)
            snapshot.leading = Array(everyAnchor.prefix(tuning.leadingAnchors))
        }
        snapshot.maxAlbumId = albumIds.max() ?? 0
        if withSections { snapshot.setSectionRuns(try snapshot.computeSectionRuns(db, sql: sql)) }
        return snapshot
    }

    private mutating func setSectionRuns(_ runs: [GridSection]) {
        sectionRuns = runs
        sections = Self.sections(fromRuns: runs)
    }

    /// The jump bar: each label once, at its first run.
    static func sections(fromRuns runs: [GridSection]) -> [GridSection] {
        var sections: [GridSection] = []
        for run in runs where !sections.contains(where: { $0.letter == run.letter }) { sections.append(run) }
        return sections
    }

    private init(stride: Int, checkpoints: [GridAnchor], albumIds: [Int64], sections: [GridSection]? = nil) {
        self.stride = stride
        self.checkpoints = checkpoints
        self.albumIds = albumIds
        self.sections = sections
    }

    /// How many albums come before `anchor` in the grid (with `including`, the anchor too when it is
    /// there). The anchor need not be in the grid any more: a deleted album still has its place.
    func rank(_ db: Database, of anchor: GridAnchor, including: Bool, sql: GridSQL) throws -> Int {
        // Among the leading anchors, by binary search alone: they are every position up to their end.
        let leadingRank = Self.countPreceding(anchor, in: leading, including: including, sql: sql)
        if leadingRank < leading.count { return leadingRank }
        // The last checkpoint at or before the anchor (before it, when not including it).
        let low = Self.countPreceding(anchor, in: checkpoints, including: including, sql: sql)
        guard low > 0 else { return 0 }
        let checkpoint = low - 1
        if stride == 1 { return checkpoint + 1 }
        return try checkpoint * stride + sql.fetchCount(db, sql.countStatement(from: checkpoints[checkpoint], to: anchor, including: including))
    }

    /// The position of the album whose anchor, read in this snapshot's transaction, is `anchor`: after
    /// the last checkpoint before it, among at most `stride` album ids.
    func position(ofAlbumAt anchor: GridAnchor, sql: GridSQL) throws -> Int {
        let leadingRank = Self.countPreceding(anchor, in: leading, including: false, sql: sql)
        if leadingRank < leading.count { return leadingRank }
        let low = Self.countPreceding(anchor, in: checkpoints, including: false, sql: sql)
        if stride == 1 { return low }
        // At checkpoint `low`, or strictly between checkpoints `low - 1` and `low`.
        let candidates = max(0, (low - 1) * stride)..<min(total, low * stride + 1)
        guard let position = albumIds[candidates].firstIndex(of: anchor.albumId) else {
            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "album \(anchor.albumId) is in the grid but not in the grid's snapshot")
        }
        return position
    }

    /// How many of `anchors` (in grid order) come before `anchor`, or are it when `including`.
    private static func countPreceding(_ anchor: GridAnchor, in anchors: [GridAnchor], including: Bool, sql: GridSQL) -> Int {
        var low = 0
        var high = anchors.count
        while low < high {
            let middle = (low + high) / 2
            let order = sql.compare(anchors[middle], anchor)
            if order < 0 || (including && order == 0) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The albums at positions `start ..< start + count` (fewer at the end of the grid).
    func albumIds(from start: Int, count: Int) -> [Int64] {
        guard start < total, count > 0 else { return [] }
        return Array(albumIds[start..<min(start + count, total)])
    }

    /// The anchor at `position`, when the snapshot keeps it.
    func keptAnchor(at position: Int) -> GridAnchor? {
        if stride == 1 { return checkpoints[position] }
        if position < leading.count { return leading[position] }
        return position % stride == 0 ? checkpoints[position / stride] : nil
    }

    /// Every run of albums under one jump-bar label, with the position of its first album.
    private func computeSectionRuns(_ db: Database, sql: GridSQL) throws -> [GridSection] {
        guard let scheme = SectionScheme(sql.sort) else { return [] }
        var sections: [GridSection] = []
        func note(_ key: SortKey, at position: Int) {
            let label = scheme.label(key)
            if sections.last?.letter != label {
                sections.append(GridSection(letter: label, position: position))
            }
        }
        if stride == 1 {
            for (position, anchor) in checkpoints.enumerated() { note(anchor.key, at: position) }
            return sections
        }
        // Skip scan: seek to the first album of each section, then past every key of that section.
        var bound: SortKey?
        while let first = try sql.fetchAnchors(db, sql.firstAnchorStatement(pastSectionBound: bound)).first {
            note(first.key, at: try position(ofAlbumAt: first, sql: sql))
            guard let next = scheme.nextSectionBound(after: first.key) else { break }
            bound = next
        }
        return sections
    }
}
