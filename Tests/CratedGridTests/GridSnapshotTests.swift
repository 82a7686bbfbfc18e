import CratedCore
import CratedTestSupport
@testable import CratedGrid
import GRDB
import Testing

@Suite struct GridSnapshotTests {
    /// Pages, kept anchors and positions from a snapshot are SQL's, in every sort (text keys, integer
    /// keys, descending ones) and in both shapes: every anchor kept, and checkpoints every 2 albums
    /// after 1 leading anchor, so that some positions are counted.
    @Test func pagesAndPositionsAreTheGrids() throws {
        let fixture = try GridServiceTests.Fixture()
        try fixture.temporary.database.read { db in
            let requests = GridSort.allowed(in: .collection).map { GridRequest(sort: $0) } + [GridRequest(scope: .crate(id: fixture.crate), sort: .crate)]
            for request in requests {
                let sort = request.sort
                let sql = GridSQL(userId: fixture.collector, request: request)
                let all = try sql.fetchAnchors(db, sql.gridStatement())
                #expect(all.count == (sort == .crate ? 2 : 4))
                for tuning in [GridSnapshot.Tuning(), GridSnapshot.Tuning(stride: 2, allAnchorsLimit: 2, leadingAnchors: 1)] {
                    let snapshot = try GridSnapshot.build(db, sql: sql, withSections: false, tuning: tuning)
                    let context = Comment(rawValue: "\(sort), stride \(snapshot.stride)")
                    for start in 0...all.count {
                        for count in 1...5 {
                            let expected = all.dropFirst(start).prefix(count).map(\.albumId)
                            #expect(snapshot.albumIds(from: start, count: count) == expected, "\(context) \(start) \(count)")
                        }
                    }
                    for (position, anchor) in all.enumerated() {
                        #expect(snapshot.keptAnchor(at: position).map { $0 == anchor } ?? true, context)
                        #expect(try snapshot.position(ofAlbumAt: anchor, sql: sql) == position, context)
                        #expect(try snapshot.rank(db, of: anchor, including: false, sql: sql) == position, context)
                        #expect(try snapshot.rank(db, of: anchor, including: true, sql: sql) == position + 1, context)
                    }
                    // Stride 2 after 1 leading anchor: positions 0 and 2 kept, 1 and 3 not.
                    if snapshot.stride == 2 { #expect(all.indices.map { snapshot.keptAnchor(at: $0) != nil } == [true, false, true, false], context) }
                }
            }
        }
    }

    /// The cursors of a page start from its cells' sort keys where the snapshot keeps no anchor: in
    /// every collection-wide sort, a cell's key is the grid's. A crate's order is not an album's, and its
    /// snapshots keep every anchor.
    @Test func cellsHoldEverySortKey() throws {
        let fixture = try GridServiceTests.Fixture()
        for sort in GridSort.allowed(in: .collection) {
            let page = try fixture.service.page(userId: fixture.collector, request: GridRequest(sort: sort))
            let sql = GridSQL(userId: fixture.collector, request: GridRequest(sort: sort))
            let anchors = try fixture.temporary.database.read { try sql.fetchAnchors($0, sql.gridStatement()) }
            #expect(page.items.map { item in sql.sortKey(of: item.cell).map { GridAnchor(key: $0, albumId: item.albumId) } } == anchors, "\(sort)")
        }
        let crateOrder = GridSQL(userId: fixture.collector, request: GridRequest(scope: .crate(id: fixture.crate), sort: .crate))
        #expect(!crateOrder.cellsHoldSortKey)
        let tuning = GridSnapshot.Tuning(stride: 2, allAnchorsLimit: 1, leadingAnchors: 1)
        let snapshot = try fixture.temporary.database.read { try GridSnapshot.build($0, sql: crateOrder, withSections: false, tuning: tuning) }
        #expect(snapshot.total == 2)
        #expect((0..<snapshot.total).allSatisfy { snapshot.keptAnchor(at: $0) != nil })
    }

    /// Greek and Cyrillic titles have letters of their own in the jump bar, after `Z`, as their
    /// folded keys sort (`Ø` is folded to O); a script without capitals is `#`, the digits' section. The same with every
    /// anchor kept and with the skip scan.
    @Test func otherAlphabetsHaveLettersOfTheirOwn() throws {
        let temporary = try TemporaryDatabase()
        let user = try temporary.database.writer.write { db in
            let user = try db.insertUser("collector")
            let artist = try db.insertArtist("Various")
            for (day, title) in ["2Pac", "Abbey Road", "Zebra", "Ωmega", "Ария", "Кино", "Кукушка", "Øresund", "坂本龍一"].enumerated() {
                let album = try db.insertAlbum(title: title, artistId: artist)
                _ = try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-01-0\(day + 1)T10:00:00Z")
            }
            return user
        }
        let sql = GridSQL(userId: user, request: GridRequest(sort: .title))
        for tuning in [GridSnapshot.Tuning(), GridSnapshot.Tuning(stride: 2, allAnchorsLimit: 2, leadingAnchors: 1)] {
            let snapshot = try temporary.database.read { try GridSnapshot.build($0, sql: sql, withSections: true, tuning: tuning) }
            let sections = try #require(snapshot.sections)
            #expect(sections.map(\.letter) == ["#", "A", "O", "Z", "Ω", "А", "К"], "stride \(snapshot.stride)")
            #expect(sections.map(\.position) == [0, 1, 2, 3, 4, 5, 6], "stride \(snapshot.stride)")
        }
        #expect(SectionScheme.letter(.text("ßach")) == "#")
    }

    /// A restricted grid filtered from its collection's snapshot answers as a walk of the restricted
    /// grid does: the same albums in order, the same sections, kept anchors that are the grid's, and
    /// the same positions and ranks, of the grid's albums and of anchors it does not hold (filtered
    /// out, or gone), in both shapes, for random scopes, filters and sorts (several letters of `#`
    /// included).
    @Test(arguments: [UInt64(3), 8, 21])
    func filteredSnapshotsAnswerAsWalkedOnes(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let temporary = try TemporaryDatabase()
        let library = try RandomLibrary(database: temporary.database, albumCount: 60, using: &random)
        try temporary.database.read { db in
            for _ in 0..<40 {
                let request = library.randomRequest(using: &random)
                let sql = GridSQL(userId: library.collector, request: request)
                guard sql.isRestricted else { continue }
                let baseSQL = GridSQL(userId: library.collector, request: request.unrestricted)
                for tuning in [GridSnapshot.Tuning(), GridSnapshot.Tuning(stride: 3, allAnchorsLimit: 5, leadingAnchors: 2)] {
                    let withSections = request.sort.hasSections
                    let walked = try GridSnapshot.build(db, sql: sql, withSections: withSections, tuning: tuning)
                    let base = try GridSnapshot.build(db, sql: baseSQL, withSections: withSections, tuning: tuning)
                    let filtered = try FilteredGridSnapshot.derive(from: base, baseSQL: baseSQL, sql: sql, withSections: withSections) {
                        try AlbumSet.reading(db, $0, maxAlbumId: $1)
                    }
                    let context = Comment(rawValue: "seed \(seed), stride \(tuning.stride): \(request)")
                    let expected = library.expectedGrid(userId: library.collector, request: request)
                    #expect(filtered.total == expected.count, context)
                    #expect(filtered.albumIds(from: 0, count: expected.count + 1) == expected, context)
                    #expect(filtered.albumIds(from: 1, count: 2) == Array(expected.dropFirst().prefix(2)), context)
                    #expect(filtered.sections == walked.sections, context)
                    let anchors = try sql.fetchAnchors(db, sql.gridStatement())
                    for (position, anchor) in anchors.enumerated() {
                        #expect(filtered.keptAnchor(at: position).map { $0 == anchor } ?? true, context)
                        #expect(try filtered.position(ofAlbumAt: anchor, sql: sql) == position, context)
                    }
                    // Every album of the collection, most of them filtered out, and anchors of albums
                    // that are nowhere (as a cursor from before a delete carries).
                    let everyAnchor = try baseSQL.fetchAnchors(db, baseSQL.gridStatement())
                    let gone = everyAnchor.map { GridAnchor(key: $0.key, albumId: $0.albumId + 1_000_000) }
                    for anchor in everyAnchor + gone {
                        for including in [false, true] {
                            #expect(try filtered.rank(db, of: anchor, including: including, sql: sql)
                                    == walked.rank(db, of: anchor, including: including, sql: sql), "\(context) \(anchor) \(including)")
                        }
                    }
                }
            }
        }
    }
}
