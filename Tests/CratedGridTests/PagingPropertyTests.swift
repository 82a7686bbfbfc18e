import CratedTestSupport
import CratedCore
@testable import CratedGrid
import Foundation
import Testing

/// Property-style tests: random libraries, sorts, filters and layouts from seeded generators, checked
/// against a brute-force model of the grid (`RandomLibrary.expectedGrid`). A failure names its seed.
@Suite struct PagingPropertyTests {
    static let seeds: [UInt64] = Array(1...24)

    /// Both snapshot shapes: every anchor kept (small grids, the usual case in tests) and checkpoints
    /// every 3 albums with the rest counted in SQL (what a grid of over 4,096 albums gets), the latter with
    /// room for 7 cells, so that pages are read partly from kept cells and partly from SQLite.
    static func services(_ database: AppDatabase, seed: UInt64) -> [GridService] {
        [
            GridService(database: database, caches: seed % 2 == 0, tuning: GridSnapshot.Tuning()),
            GridService(database: database, caches: seed % 2 == 1, tuning: GridSnapshot.Tuning(stride: 3, allAnchorsLimit: 5), cellCapacity: 7),
        ]
    }

    @Test(arguments: seeds)
    func followingNextVisitsEveryAlbumOnceInOrder(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let temporary = try TemporaryDatabase()
        let library = try RandomLibrary(database: temporary.database, albumCount: Int.random(in: 20...70, using: &random), using: &random)
        let services = Self.services(temporary.database, seed: seed)
        for _ in 0..<6 {
            var request = library.randomRequest(using: &random)
            request.layout = .random(using: &random)
            let layout = try request.layout.resolve()
            let expected = library.expectedGrid(userId: library.collector, request: request)
            let context = Comment(rawValue: "seed \(seed): \(request)")

            // Every service (snapshot shape, cache or not) gives the very same pages.
            let pages = try followNext(services[0], userId: library.collector, request: request) { _ in request.layout }
            let others = try followNext(services[1], userId: library.collector, request: request) { _ in request.layout }
            #expect(pages == others, context)

            #expect(pages.flatMap(\.items).map(\.albumId) == expected, context)
            #expect(pages.flatMap(\.items).map(\.position) == Array(0..<expected.count), context)
            for (index, page) in pages.enumerated() {
                #expect(page.total == expected.count, context)
                #expect(page.layout == layout, context)
                #expect((page.previous == nil) == (index == 0), context)
                if index < pages.count - 1 {
                    #expect(page.items.count == layout.pageSize(startingAt: page.start), context)
                    #expect((page.start + page.items.count) % layout.columns == 0, context)
                }
            }
            if request.sort.hasSections {
                #expect(pages[0].sections == library.expectedSections(expected, sort: request.sort), context)
                #expect(pages.dropFirst().allSatisfy { $0.sections == nil }, context)
            } else {
                #expect(pages.allSatisfy { $0.sections == nil }, context)
            }

            // And back: following `previous` from the last page tiles the grid in reverse.
            var backwards = [pages[pages.count - 1]]
            while let previous = backwards[backwards.count - 1].previous, backwards.count <= expected.count + 1 {
                var backRequest = request
                backRequest.position = .cursor(previous)
                let page = try services[0].page(userId: library.collector, request: backRequest)
                let later = backwards[backwards.count - 1]
                #expect(page.start + page.items.count == later.start, context)
                #expect(page.start % layout.columns == 0, context)
                backwards.append(page)
            }
            #expect(backwards.reversed().flatMap(\.items).map(\.albumId) == expected, context)
        }
    }

    @Test(arguments: seeds)
    func switchingLayoutBetweenPagesFillsThePartialRowAndKeepsTheOrder(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed &+ 1000)
        let temporary = try TemporaryDatabase()
        let library = try RandomLibrary(database: temporary.database, albumCount: Int.random(in: 30...70, using: &random), using: &random)
        for service in Self.services(temporary.database, seed: seed) {
            for _ in 0..<4 {
                let request = library.randomRequest(using: &random)
                let expected = library.expectedGrid(userId: library.collector, request: request)
                var layouts: [LayoutRequest] = []
                let pages = try followNext(service, userId: library.collector, request: request) { index in
                    while layouts.count <= index { layouts.append(.random(using: &random)) }
                    return layouts[index]
                }
                let context = Comment(rawValue: "seed \(seed): \(request)")
                #expect(pages.flatMap(\.items).map(\.albumId) == expected, context)
                for (index, page) in pages.enumerated() where index < pages.count - 1 {
                    let layout = try layouts[index].resolve()
                    #expect(page.layout == layout, context)
                    // The page fills the row it starts in (for its own column count), then whole rows.
                    #expect(page.items.count == layout.pageSize - page.start % layout.columns, context)
                    #expect((page.start + page.items.count) % layout.columns == 0, context)
                }
            }
        }
    }

    @Test(arguments: seeds)
    func addingAndRemovingAlbumsWhilePagingNeverRepeatsOrSkipsASurvivor(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed &+ 2000)
        let temporary = try TemporaryDatabase()
        var library = try RandomLibrary(database: temporary.database, albumCount: Int.random(in: 30...60, using: &random), using: &random)
        let service = Self.services(temporary.database, seed: seed)[Int(seed % 2)]
        for _ in 0..<3 {
            var request = library.randomRequest(using: &random)
            request.layout = LayoutRequest(layout: .iPhonePortrait, limit: Int.random(in: 2...6, using: &random))
            let initial = library.expectedGrid(userId: library.collector, request: request)
            var removed = Set<Int64>()
            var seen: [Int64] = []
            var page = try service.page(userId: library.collector, request: request)
            seen += page.items.map(\.albumId)
            while let next = page.next, seen.count <= 500 {
                // Between two pages, albums come and go, before and after the place the cursor holds.
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    try library.addAlbum(using: &random)
                }
                let present = library.expectedGrid(userId: library.collector, request: GridRequest(scope: .collection))
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    guard let albumId = present.randomElement(using: &random) else { break }
                    try library.removeFromCollection(userId: library.collector, albumId: albumId)
                    removed.insert(albumId)
                }
                var nextRequest = request
                nextRequest.position = .cursor(next)
                page = try service.page(userId: library.collector, request: nextRequest)
                seen += page.items.map(\.albumId)
            }
            let context = Comment(rawValue: "seed \(seed): \(request)")
            #expect(Set(seen).count == seen.count, "an album was repeated; \(context)")
            let survivors = initial.filter { !removed.contains($0) }
            #expect(survivors.allSatisfy(Set(seen).contains), "a survivor was skipped; \(context)")
            // What was seen and is still there was seen in grid order.
            let finalOrder = library.expectedGrid(userId: library.collector, request: request)
            let rank = Dictionary(uniqueKeysWithValues: finalOrder.enumerated().map { ($1, $0) })
            let ranks = seen.compactMap { rank[$0] }
            #expect(ranks == ranks.sorted(), context)
            #expect(page.total == finalOrder.count, context)
        }
    }

    @Test(arguments: seeds)
    func atAndAroundStartWhereTheySay(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed &+ 3000)
        let temporary = try TemporaryDatabase()
        let library = try RandomLibrary(database: temporary.database, albumCount: Int.random(in: 20...60, using: &random), using: &random)
        for service in Self.services(temporary.database, seed: seed) {
            for _ in 0..<5 {
                var request = library.randomRequest(using: &random)
                request.layout = .random(using: &random)
                let layout = try request.layout.resolve()
                let expected = library.expectedGrid(userId: library.collector, request: request)
                let context = Comment(rawValue: "seed \(seed): \(request)")

                let target = Int.random(in: 0...(expected.count + 3), using: &random)
                request.position = .at(target)
                let atPage = try service.page(userId: library.collector, request: request)
                let start = expected.isEmpty ? 0 : layout.rowStart(of: min(target, expected.count - 1))
                #expect(atPage.start == start, context)
                #expect(atPage.items.map(\.albumId) == Array(expected.dropFirst(start).prefix(layout.pageSize(startingAt: start))), context)
                #expect(atPage.items.first.map { $0.position == start } ?? true, context)

                if let albumId = expected.randomElement(using: &random) {
                    request.position = .around(albumId: albumId)
                    let aroundPage = try service.page(userId: library.collector, request: request)
                    let position = expected.firstIndex(of: albumId)!
                    #expect(aroundPage.start == position - position % layout.pageSize, context)
                    #expect(aroundPage.items.contains { $0.albumId == albumId && $0.position == position }, context)
                    #expect(aroundPage.items.map(\.albumId) == Array(expected.dropFirst(aroundPage.start).prefix(layout.pageSize)), context)
                }
                // An album that is not in this grid (the other user's, or none at all) is a 404.
                let outside = library.albums.keys.first { !expected.contains($0) } ?? 999_999
                request.position = .around(albumId: outside)
                #expect(throws: GridError.notFound("around", "album \(outside) is not in this grid")) {
                    try service.page(userId: library.collector, request: request)
                }
            }
        }
    }
}

/// Follows `next` from the first page, with the layout of each page chosen by `layout(pageIndex)`.
func followNext(
    _ service: GridService, userId: Int64, request: GridRequest, layout: (Int) -> LayoutRequest
) throws -> [GridPage] {
    var pageRequest = request
    pageRequest.position = .start
    pageRequest.layout = layout(0)
    var pages = [try service.page(userId: userId, request: pageRequest)]
    while let next = pages[pages.count - 1].next {
        try #require(pages.count <= 1000, "following next does not end")
        pageRequest.position = .cursor(next)
        pageRequest.layout = layout(pages.count)
        let page = try service.page(userId: userId, request: pageRequest)
        let previous = pages[pages.count - 1]
        #expect(page.start == previous.start + previous.items.count)
        pages.append(page)
    }
    return pages
}
