import CratedTestSupport
import CratedCore
import CratedImport
@testable import CratedGrid
import Foundation
import GRDB
import Testing

/// A collection of 155,000 albums: pages 150,000 deep are right, and every statement that serves them
/// is an index seek (EXPLAIN QUERY PLAN shows no SCAN of a table).
@Suite struct DeepGridTests {
    static let albumCount = 155_000

    final class BigCollection {
        let temporary: TemporaryDatabase
        let userId: Int64

        init() throws {
            temporary = try TemporaryDatabase()
            userId = try temporary.database.writer.write { db in
                let userId = try db.insertUser("collector")
                let other = try db.insertUser("other")
                // Keys spread over the whole range and tie in groups, like a real collection's.
                try db.execute(sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO album (title, sort_title, artist_credit, artist_sort_name, year, created_at, updated_at)
                    SELECT 'Album ' || i, printf('album %06d', (i * 7919) % ?), 'Artist ' || (i % 5000),
                           printf('%s %04d', substr('abcdefghijklmnopqrstuvwxyz0', 1 + i % 27, 1), (i * 31) % 5000),
                           CASE WHEN i % 9 = 0 THEN NULL ELSE 1950 + i % 70 END, 't', 't'
                    FROM n
                    """, arguments: [DeepGridTests.albumCount, DeepGridTests.albumCount])
                try db.execute(sql: "INSERT INTO album_genre (album_id, kind, name, position) SELECT id, 'genre', 'Rock', 0 FROM album WHERE id % 2 = 0")
                try db.execute(sql: """
                    INSERT INTO collection_item (user_id, album_id, date_added, rating)
                    SELECT ?, id, printf('%04d-%02d-%02dT00:00:00Z', 2015 + id % 7, 1 + id % 12, 1 + id % 28), CASE WHEN id % 4 = 0 THEN NULL ELSE 1 + id % 5 END
                    FROM album
                    """, arguments: [userId])
                // Another collection in the same tables, which the seeks must step over.
                try db.execute(sql: "INSERT INTO collection_item (user_id, album_id, date_added) SELECT ?, id, '2021-01-01T00:00:00Z' FROM album WHERE id % 3 = 0",
                               arguments: [other])
                return userId
            }
        }

        /// The grid's album ids at `offset`, straight from SQL with OFFSET: the reference.
        func reference(orderBy: String, filter: String = "", offset: Int, limit: Int) throws -> [Int64] {
            try temporary.database.reader.read { db in
                try Int64.fetchAll(db, sql: """
                    SELECT album_id FROM collection_album ca WHERE user_id = ? \(filter) ORDER BY \(orderBy) LIMIT ? OFFSET ?
                    """, arguments: [userId, limit, offset])
            }
        }
    }

    /// One test, so that the 155,000 albums are written once and their database removed at its end.
    @Test func aCollectionOf155000Albums() throws {
        let big = try BigCollection()
        try pages150000DeepAreRight(big)
        try everySortsJumpBarIsFoundBySeeking(big)
        for request in [
            GridRequest(sort: .artist),
            GridRequest(sort: .title),
            GridRequest(sort: .year),
            GridRequest(sort: .dateAdded),
            GridRequest(sort: .rating),
            GridRequest(sort: .artist, filters: GridFilters(genre: "Rock", yearFrom: 1960, yearTo: 1990)),
            GridRequest(sort: .year, filters: GridFilters(genre: "Rock", yearFrom: 1960, yearTo: 1990)),
            GridRequest(sort: .dateAdded, filters: GridFilters(crateId: 1, format: "LP")),
            GridRequest(scope: .search("album"), sort: .title),
        ] {
            try everyStatementOfADeepPageIsAnIndexSeek(big, request: request)
        }
    }

    func pages150000DeepAreRight(_ big: BigCollection) throws {
        let service = GridService(database: big.temporary.database)
        let phone = LayoutRequest(layout: .iPhonePortrait, width: 402)

        let started = ContinuousClock.now
        let deep = try service.page(userId: big.userId, request: GridRequest(sort: .artist, layout: phone, position: .at(150_000)))
        let firstRequest = ContinuousClock.now - started
        #expect(deep.total == Self.albumCount)
        #expect(deep.start == 150_000)
        #expect(deep.items.map(\.position) == Array(150_000..<150_016))
        #expect(deep.items.map(\.albumId) == (try big.reference(orderBy: "artist_key, album_id", offset: 150_000, limit: 16)))

        let timed = ContinuousClock.now
        let next = try service.page(userId: big.userId, request: GridRequest(sort: .artist, layout: phone, position: .cursor(try #require(deep.next))))
        let cachedRequest = ContinuousClock.now - timed
        #expect(next.start == 150_016)
        #expect(next.items.map(\.albumId) == (try big.reference(orderBy: "artist_key, album_id", offset: 150_016, limit: 16)))
        let back = try service.page(userId: big.userId, request: GridRequest(sort: .artist, layout: phone, position: .cursor(try #require(next.previous))))
        #expect(back.items.map(\.albumId) == deep.items.map(\.albumId))
        print("deep page: \(firstRequest) with the grid's snapshot built, \(cachedRequest) from the cache")

        let target = try big.reference(orderBy: "artist_key, album_id", offset: 150_101, limit: 1)[0]
        let around = try service.page(userId: big.userId, request: GridRequest(sort: .artist, layout: phone, position: .around(albumId: target)))
        #expect(around.start == 150_096)
        #expect(around.items.first { $0.albumId == target }?.position == 150_101)

        let pad = LayoutRequest(layout: .iPadFullscreen, width: 1376, height: 1032)
        let newest = try service.page(userId: big.userId, request: GridRequest(sort: .dateAdded, layout: pad, position: .at(150_003)))
        #expect(newest.start == 150_000)
        #expect(newest.items.map(\.albumId) == (try big.reference(orderBy: "latest_added DESC, album_id DESC", offset: 150_000, limit: 35)))
        let rated = try service.page(userId: big.userId, request: GridRequest(sort: .rating, layout: pad, position: .at(120_000)))
        #expect(rated.items.map(\.albumId) == (try big.reference(orderBy: "best_rating DESC, album_id DESC", offset: 120_000, limit: 35)))

        // A filtered grid, deep too.
        let rock = GridRequest(sort: .year, filters: GridFilters(genre: "Rock", yearFrom: 1960), layout: pad, position: .at(50_000))
        let rockPage = try service.page(userId: big.userId, request: rock)
        let rockFilter = "AND year_key BETWEEN 1960 AND 9999 AND album_id IN (SELECT album_id FROM album_genre WHERE name = 'Rock')"
        #expect(rockPage.total == (try big.temporary.database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection_album ca WHERE user_id = ? \(rockFilter)", arguments: [big.userId])
        }))
        #expect(rockPage.items.map(\.albumId) == (try big.reference(orderBy: "year_key, album_id", filter: rockFilter, offset: 50_000, limit: 35)))

        // The jump bar: keys start with a letter or a digit, in 27 groups.
        let sections = try #require(deep.sections)
        #expect(sections.map(\.letter) == ["#"] + (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) })
        for section in sections {
            let first = try big.reference(orderBy: "artist_key, album_id", offset: section.position, limit: 1)[0]
            let before = section.position == 0 ? nil : try big.reference(orderBy: "artist_key, album_id", offset: section.position - 1, limit: 1)[0]
            let key = { (id: Int64) in try big.temporary.database.reader.read { db in
                try String.fetchOne(db, sql: "SELECT artist_key FROM collection_album WHERE album_id = ? AND user_id = ?", arguments: [id, big.userId])!
            } }
            #expect(SectionScheme.letter(.text(try key(first))) == section.letter)
            if let before { #expect(SectionScheme.letter(.text(try key(before))) != section.letter) }
        }
    }

    /// Years, dates added and ratings have jump bars too, found by one seek a section in a grid this
    /// large (its snapshot keeps every 64th key only): each section starts where a walk of every key
    /// says its label begins, on the whole collection and on a restricted grid.
    func everySortsJumpBarIsFoundBySeeking(_ big: BigCollection) throws {
        let service = GridService(database: big.temporary.database)
        let cases: [(GridRequest, column: String, order: String, filter: String, labels: [String])] = [
            (GridRequest(sort: .year), "year_key", "year_key, album_id", "",
             ["1950s", "1960s", "1970s", "1980s", "1990s", "2000s", "2010s", "?"]),
            (GridRequest(sort: .dateAdded), "latest_added", "latest_added DESC, album_id DESC", "",
             ["2021", "2020", "2019", "2018", "2017", "2016", "2015"]),
            (GridRequest(sort: .rating), "best_rating", "best_rating DESC, album_id DESC", "", ["5", "4", "3", "2", "1", "?"]),
            (GridRequest(sort: .year, filters: GridFilters(genre: "Rock", yearFrom: 1975)), "year_key", "year_key, album_id",
             "AND year_key BETWEEN 1975 AND 9999 AND album_id IN (SELECT album_id FROM album_genre WHERE name = 'Rock')",
             ["1970s", "1980s", "1990s", "2000s", "2010s"]),
        ]
        for (request, column, order, filter, labels) in cases {
            let page = try service.page(userId: big.userId, request: request)
            let sections = try #require(page.sections, "\(request.sort)")
            #expect(sections.map(\.letter) == labels, "\(request.sort) \(request.filters)")
            let scheme = try #require(SectionScheme(request.sort))
            let expected = try big.temporary.database.reader.read { db in
                var expected: [GridSection] = []
                let keys = try Row.fetchCursor(db, sql: "SELECT \(column) FROM collection_album ca WHERE user_id = ? \(filter) ORDER BY \(order)",
                                               arguments: [big.userId])
                var position = 0
                while let row = try keys.next() {
                    let key: SortKey = switch (row[0] as DatabaseValue).storage {
                    case .int64(let value): .integer(value)
                    default: .text(row[0])
                    }
                    let label = scheme.label(key)
                    if !expected.contains(where: { $0.letter == label }) { expected.append(GridSection(letter: label, position: position)) }
                    position += 1
                }
                return expected
            }
            #expect(sections == expected, "\(request.sort) \(request.filters)")
        }
    }

    func everyStatementOfADeepPageIsAnIndexSeek(_ big: BigCollection, request: GridRequest) throws {
        let plans = try big.temporary.database.reader.read { db -> [String: [String]] in
            let sql = GridSQL(userId: big.userId, request: request)
            // The plan does not depend on the values bound, only on their place.
            let key: SortKey = sql.accepts(.integer(0)) ? .integer(3) : .text("m")
            let checkpoint = GridAnchor(key: key, albumId: 140_000)
            let anchor = GridAnchor(key: key, albumId: 150_000)
            let statements = [
                "position": sql.countStatement(from: checkpoint, to: anchor, including: true),
                "around": sql.albumAnchorStatement(albumId: 4242),
                "section": sql.firstAnchorStatement(pastSectionBound: key),
                "snapshot": sql.gridStatement(),
            ]
            return try statements.mapValues { statement in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: StatementArguments(statement.arguments)).map { $0["detail"] as String }
            }
        }
        let sortIndex = switch request.sort {
        case .artist: "collection_album_artist"
        case .title: "collection_album_title"
        case .year: "collection_album_year"
        case .dateAdded: "collection_album_added"
        case .rating: "collection_album_rating"
        // Only collection-wide orders are walked here; a crate's is read from the crate's own rows.
        case .crate: "crate_item_order"
        }
        for (name, plan) in plans {
            let context = Comment(rawValue: "\(request.sort) \(request.scope) \(request.filters) \(name): \(plan.joined(separator: " | "))")
            // SCAN lines are only the recursive walk's own queue and its subquery, and the full-text index
            // answering a MATCH (`INDEX 0:M`), never a table.
            let scans = plan.filter {
                $0.hasPrefix("SCAN") && !$0.hasPrefix("SCAN checkpoint") && !$0.hasPrefix("SCAN (subquery")
                    && !$0.hasPrefix("SCAN album_search VIRTUAL TABLE INDEX 0:M")
            }
            #expect(scans.isEmpty, context)
            // The grid is walked in the sort's index (or one album looked up by its key), never sorted.
            let walksTheSortIndex = plan.contains { $0.hasPrefix("SEARCH ca USING COVERING INDEX \(sortIndex) ") || $0.hasPrefix("SEARCH ca USING INDEX \(sortIndex) ") }
            #expect(walksTheSortIndex || (name == "around" && plan.contains { $0.hasPrefix("SEARCH ca USING PRIMARY KEY (album_id=? AND user_id=?)") }), context)
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, context)
        }
        // A position is counted from a seek on (sort key, album id).
        #expect(plans["position"]!.contains { $0.contains("INDEX \(sortIndex) (user_id=? AND (") && ($0.contains(",album_id)>") || $0.contains(",album_id)<")) })

        // Each restriction's albums, read to filter the collection's snapshot, come from its own index;
        // a crate's from its own rows, not from every copy the user owns.
        let memberPlans = try big.temporary.database.reader.read { db in
            try GridSQL(userId: big.userId, request: request).memberQueries.map { query in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + query.sql, arguments: StatementArguments(query.arguments)).map { $0["detail"] as String }
            }
        }
        for plan in memberPlans {
            let context = Comment(rawValue: "\(request.scope) \(request.filters) members: \(plan.joined(separator: " | "))")
            #expect(!plan.contains { $0.hasPrefix("SCAN") && !$0.hasPrefix("SCAN album_search VIRTUAL TABLE INDEX 0:M") }, context)
            if plan.contains(where: { $0.contains(" ci ") }) { #expect(plan.first?.hasPrefix("SEARCH ci ") == true, context) }
        }
    }
}
