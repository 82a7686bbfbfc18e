import GRDB

/// What the grid service asks of a grid's positions, walked (`GridSnapshot`) or filtered from a
/// walked one (`FilteredGridSnapshot`). `sql` is always the grid's own.
protocol GridPositions: Sendable {
    var total: Int { get }
    var sections: [GridSection]? { get }
    /// The albums at positions `start ..< start + count` (fewer at the end of the grid).
    func albumIds(from start: Int, count: Int) -> [Int64]
    /// The anchor at `position`, when the snapshot keeps it.
    func keptAnchor(at position: Int) -> GridAnchor?
    /// How many albums come before `anchor` (with `including`, the anchor too when it is there).
    func rank(_ db: Database, of anchor: GridAnchor, including: Bool, sql: GridSQL) throws -> Int
    /// The position of the album whose anchor, read in this snapshot's transaction, is `anchor`.
    func position(ofAlbumAt anchor: GridAnchor, sql: GridSQL) throws -> Int
}

/// A restricted grid (a scope, filters, search words): the albums of the same user's unrestricted grid
/// in the same sort (`base`) that every restriction lets through, in the base's order.
///
/// Walking a restricted grid in its sort's index costs a probe of every restriction for every album of
/// the collection (0.2 to 0.7 s on 200,000 albums, first time asked). Here each restriction's albums
/// are read from its own index (a format's albums, a crate's copies, a year range, full-text matches)
/// into a set, and the base's order is kept to the albums in every set, in memory. Positions are
/// answered through the base: an album's place here is the number of kept albums before its place
/// there, so nothing is read by key and a first page of a new combination costs the sets and one pass
/// over the base's ids.
struct FilteredGridSnapshot: GridPositions {
    let base: GridSnapshot
    /// The unrestricted grid's SQL: what the base counts with when a cursor's anchor must be ranked.
    let baseSQL: GridSQL
    /// Where each album of this grid stands in the base, ascending.
    let basePositions: [Int32]
    let sections: [GridSection]?

    var total: Int { basePositions.count }

    /// - Parameter members: the albums a restriction lets through, given its query and the largest
    ///   album id that matters (the service keeps them for the listing generation).
    static func derive(
        from base: GridSnapshot, baseSQL: GridSQL, sql: GridSQL, withSections: Bool,
        members: (GridSQL.Fragment, _ maxAlbumId: Int64) throws -> AlbumSet
    ) throws -> FilteredGridSnapshot {
        // As a walk of a grid that holds nothing: no albums, no sections.
        guard sql.canMatch, base.total > 0 else {
            return FilteredGridSnapshot(base: base, baseSQL: baseSQL, basePositions: [], sections: [])
        }
        let sets = try sql.memberQueries.map { try members($0, base.maxAlbumId) }
        let baseRuns = base.sectionRuns ?? []
        var baseRun = 0
        var runs: [GridSection] = []
        var positions: [Int32] = []
        for (basePosition, albumId) in base.albumIds.enumerated() where sets.allSatisfy({ $0.contains(albumId) }) {
            if withSections, !baseRuns.isEmpty {
                while baseRun + 1 < baseRuns.count, baseRuns[baseRun + 1].position <= basePosition { baseRun += 1 }
                let letter = baseRuns[baseRun].letter
                if runs.last?.letter != letter { runs.append(GridSection(letter: letter, position: positions.count)) }
            }
            positions.append(Int32(basePosition))
        }
        return FilteredGridSnapshot(
            base: base, baseSQL: baseSQL, basePositions: positions,
            sections: withSections ? GridSnapshot.sections(fromRuns: runs) : nil)
    }

    func albumIds(from start: Int, count: Int) -> [Int64] {
        guard start < total, count > 0 else { return [] }
        return basePositions[start..<min(start + count, total)].map { base.albumIds[Int($0)] }
    }

    func keptAnchor(at position: Int) -> GridAnchor? {
        base.keptAnchor(at: Int(basePositions[position]))
    }

    func rank(_ db: Database, of anchor: GridAnchor, including: Bool, sql: GridSQL) throws -> Int {
        let baseRank = try base.rank(db, of: anchor, including: including, sql: baseSQL)
        return keptCount(before: baseRank)
    }

    func position(ofAlbumAt anchor: GridAnchor, sql: GridSQL) throws -> Int {
        let basePosition = try base.position(ofAlbumAt: anchor, sql: baseSQL)
        let position = keptCount(before: basePosition)
        guard position < total, basePositions[position] == basePosition else {
            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "album \(anchor.albumId) is in the grid but not in the grid's snapshot")
        }
        return position
    }

    /// How many of this grid's albums stand before base position `basePosition`: a binary search.
    private func keptCount(before basePosition: Int) -> Int {
        var low = 0
        var high = basePositions.count
        while low < high {
            let middle = (low + high) / 2
            if Int(basePositions[middle]) < basePosition { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
