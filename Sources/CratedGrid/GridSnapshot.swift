import GRDB

/// Where every position of a grid is, at one state of the database: the anchor of every `stride`-th
/// album (checkpoints), the total, and the jump bar's sections.
///
/// SQLite has no rank query: the position of an album is a COUNT of the index range before it, and
/// `at=N` an OFFSET N, both linear in N. A snapshot makes them short: a position is a binary search
/// among the checkpoints plus a COUNT of at most `stride` rows after one, and `at=N` a seek to a
/// checkpoint plus an OFFSET of less than `stride`. A grid of up to `allAnchorsLimit` albums keeps every
/// anchor (as if the stride were 1) and answers positions without SQL, which also keeps sparse grids (a
/// small crate in a large collection) from walking the collection's index on each page. A larger grid
/// keeps its first `leadingAnchors` anchors, read anyway to find out it is larger: the first pages,
/// which every client asks for, need no SQL either.
struct GridSnapshot: Sendable {
    var stride: Int
    var checkpoints: [GridAnchor]
    /// The anchors at positions 0 ..< leading.count; empty when the stride is 1 (checkpoints hold all).
    var leading: [GridAnchor] = []
    var total: Int
    var sections: [GridSection]?

    /// How far apart checkpoints are, and up to how many albums a snapshot keeps every anchor. Tests
    /// make both small so that a few dozen albums take every path.
    struct Tuning: Sendable {
        var stride = 64
        var allAnchorsLimit = 4096
        /// Some thirty pages on an iPad, for 20 KB or so per snapshot.
        var leadingAnchors = 512
    }

    static let empty = GridSnapshot(stride: 1, checkpoints: [], total: 0, sections: [])

    /// Walks the grid once (one statement, or two for a grid larger than `allAnchorsLimit`).
    static func build(_ db: Database, sql: GridSQL, withSections: Bool, tuning: Tuning) throws -> GridSnapshot {
        guard sql.canMatch else { return .empty }
        var snapshot: GridSnapshot
        let stride = tuning.stride
        let leading = try sql.fetchAnchors(db, sql.leadingAnchorsStatement(limit: tuning.allAnchorsLimit + 1))
        if leading.count <= tuning.allAnchorsLimit {
            snapshot = GridSnapshot(stride: 1, checkpoints: leading, total: leading.count)
        } else {
            let checkpoints = try sql.fetchAnchors(db, sql.checkpointsStatement(stride: stride))
            let tail = try sql.fetchCount(db, sql.countStatement(from: checkpoints[checkpoints.count - 1], to: nil, including: false))
            snapshot = GridSnapshot(stride: stride, checkpoints: checkpoints, total: (checkpoints.count - 1) * stride + tail)
            snapshot.leading = Array(leading.prefix(min(tuning.allAnchorsLimit, tuning.leadingAnchors)))
        }
        if withSections { snapshot.sections = try snapshot.computeSections(db, sql: sql) }
        return snapshot
    }

    private init(stride: Int, checkpoints: [GridAnchor], total: Int, sections: [GridSection]? = nil) {
        self.stride = stride
        self.checkpoints = checkpoints
        self.total = total
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

    /// The anchors at positions `start ..< start + count` (fewer at the end of the grid).
    func anchors(_ db: Database, from start: Int, count: Int, sql: GridSQL) throws -> PageAnchors {
        guard start < total, count > 0 else { return PageAnchors([]) }
        if stride == 1 { return PageAnchors(checkpoints[start..<min(start + count, total)]) }
        if min(start + count, total) <= leading.count { return PageAnchors(leading[start..<min(start + count, total)]) }
        let checkpoint = start / stride
        return try sql.fetchPageAnchors(db, sql.anchorsStatement(from: checkpoints[checkpoint], offset: start - checkpoint * stride, count: count))
    }

    /// The anchors right after `anchor`, which stands at `start - 1` (or would, when it is gone):
    /// a page that follows a cursor. One seek from the anchor itself, where `anchors(from:)` seeks the
    /// checkpoint before `start` and steps over up to a stride of rows to reach it.
    func anchors(_ db: Database, after anchor: GridAnchor, at start: Int, count: Int, sql: GridSQL) throws -> PageAnchors {
        guard start < total, count > 0 else { return PageAnchors([]) }
        if stride == 1 || min(start + count, total) <= leading.count { return try anchors(db, from: start, count: count, sql: sql) }
        return try sql.fetchPageAnchors(db, sql.anchorsStatement(from: anchor, strictly: true, offset: 0, count: count))
    }

    /// The anchors at positions `start ..< start + count`, where `anchor` stands at `position`: a page
    /// around an album. Walked both ways from the anchor, where `anchors(from:)` seeks the checkpoint
    /// before `start` and steps over up to a stride of rows to reach it.
    func anchors(_ db: Database, around anchor: GridAnchor, at position: Int, from start: Int, count: Int, sql: GridSQL) throws -> PageAnchors {
        guard start < total, count > 0 else { return PageAnchors([]) }
        if stride == 1 || min(start + count, total) <= leading.count { return try anchors(db, from: start, count: count, sql: sql) }
        let before = position - start
        let earlier = before > 0 ? try sql.fetchPageAnchors(db, sql.anchorsStatement(before: anchor, count: before)) : PageAnchors([])
        return PageAnchors(joining: earlier, try sql.fetchPageAnchors(db, sql.anchorsStatement(from: anchor, offset: 0, count: count - before)))
    }

    /// The jump bar: `A`...`Z` for keys starting with a Latin letter (sort keys are folded, so `É` is
    /// under E), `#` for digits, symbols and other scripts, each with the position of its first album.
    private func computeSections(_ db: Database, sql: GridSQL) throws -> [GridSection] {
        var sections: [GridSection] = []
        func note(_ key: SortKey, at position: Int) {
            let letter = Self.sectionLetter(key)
            if !sections.contains(where: { $0.letter == letter }) {
                sections.append(GridSection(letter: letter, position: position))
            }
        }
        if stride == 1 {
            for (position, anchor) in checkpoints.enumerated() { note(anchor.key, at: position) }
            return sections
        }
        // Skip scan: seek to the first album of each initial, then past every key that starts with it.
        var lowerBound = ""
        while let first = try sql.fetchAnchors(db, sql.firstAnchorStatement(keyAtLeast: lowerBound)).first {
            note(first.key, at: try rank(db, of: first, including: false, sql: sql))
            guard let initial = Self.initial(first.key) else {
                lowerBound = "\u{1}"  // past the empty key
                continue
            }
            // Past "z" every initial is a `#`: the rest of the grid adds nothing.
            if initial.value > 0x7A { break }
            lowerBound = String(Character(Unicode.Scalar(initial.value + 1)!))
        }
        return sections
    }

    private static func initial(_ key: SortKey) -> Unicode.Scalar? {
        guard case .text(let text) = key else { return nil }
        return text.unicodeScalars.first
    }

    static func sectionLetter(_ key: SortKey) -> String {
        guard let initial = initial(key), initial.isASCII, initial.properties.isAlphabetic else { return "#" }
        return String(initial).uppercased()
    }
}
