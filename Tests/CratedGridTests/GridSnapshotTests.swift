import CratedCore
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
            for sort in GridSort.allCases {
                let sql = GridSQL(userId: fixture.collector, request: GridRequest(sort: sort))
                let all = try sql.fetchAnchors(db, sql.gridStatement())
                #expect(all.count == 4)
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
    /// every sort, a cell's key is the grid's.
    @Test func cellsHoldEverySortKey() throws {
        let fixture = try GridServiceTests.Fixture()
        for sort in GridSort.allCases {
            let page = try fixture.service.page(userId: fixture.collector, request: GridRequest(sort: sort))
            let sql = GridSQL(userId: fixture.collector, request: GridRequest(sort: sort))
            let anchors = try fixture.temporary.database.read { try sql.fetchAnchors($0, sql.gridStatement()) }
            #expect(page.items.map { GridAnchor(key: sql.sortKey(of: $0.cell), albumId: $0.albumId) } == anchors, "\(sort)")
        }
    }
}
