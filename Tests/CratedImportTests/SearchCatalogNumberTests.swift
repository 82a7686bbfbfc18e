@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Catalogue numbers are typed off the spine, spaced as the collector likes: `spin150` finds
/// `SPIN 150` and `spin 113` finds `SPIN113`, whichever way the import wrote the search rows, and in
/// a database indexed before migration 0025.
@Suite struct SearchCatalogNumberTests {
    static let export = SearchExport(
        rows: [("SPIN 150", "Tide Turns Eternal"), ("SPIN113", "Odious Descent Into Decay"), ("CS 36-147", "Bridge Over Troubled Water"),
               ("836 062-1", "Mönche"), ("SD 7200", "Houses Of The Holy")].enumerated().map {
            exportRow(catalog: "\"\($0.element.0)\"", artist: "Artist \($0.offset)", title: $0.element.1, releaseId: "\(300 + $0.offset)")
        },
        searches: [
            ("spin150", ["Tide Turns Eternal"]), ("SPIN 150", ["Tide Turns Eternal"]), ("spin 113", ["Odious Descent Into Decay"]),
            ("spin113", ["Odious Descent Into Decay"]), ("cs36147", ["Bridge Over Troubled Water"]), ("CS 36-147", ["Bridge Over Troubled Water"]),
            ("cs 36147", ["Bridge Over Troubled Water"]), ("8360621", ["Mönche"]), ("836 062", ["Mönche"]), ("sd7200", ["Houses Of The Holy"]),
            ("sd 72", ["Houses Of The Holy"]),
        ])

    @Test func theIndexHoldsEachNumberWrittenTogetherToo() {
        #expect(SearchText.catalogNumbers(["SPIN 150"]) == "SPIN 150 SPIN150")
        #expect(SearchText.catalogNumbers(["SPIN113"]) == "SPIN113")
        #expect(SearchText.catalogNumbers(["836 062-1", "LP 7"]) == "836 062-1 LP 7 8360621 LP7")
        #expect(SearchText.catalogNumbers([]) == "")
    }

    /// Each number is normalized on its own: the numbers joined by spaces, normalized whole, read the same.
    @Test func numbersNormalizedOneByOneReadAsTheirWholeLine() {
        for numbers in [["A.", "B.C"], ["X A.", "B.C."], ["A", ".B"], ["坂本", "龍一 7"], ["Ø-1", "æ 2"], ["", "L.A. 5"], ["  ", "x"]] {
            let whole = SearchText.normalized(numbers.joined(separator: " "))
            #expect(SearchText.catalogNumbers(numbers).hasPrefix(whole), "\(numbers)")
            #expect(numbers.map(SearchText.normalized).joined(separator: " ") == whole, "\(numbers)")
        }
    }

    @Test func wordsWithADigitAlsoMatchTheirWrittenTogetherForm() {
        #expect(SearchText.matchExpression("spin 113") == #"("spin"* "113"*) OR catalog_numbers : "spin113"*"#)
        // Words without a digit, or one word alone, search as before.
        #expect(SearchText.matchExpression("miles davis") == #""miles"* "davis"*"#)
        #expect(SearchText.matchExpression("spin113") == #""spin113"*"#)
        // FTS syntax typed stays text in both halves.
        #expect(SearchText.matchExpression("NEAR( 12\"") == #"("NEAR"* "12"*) OR catalog_numbers : "NEAR12"*"#)
    }

    @Test(arguments: [ImportWriteMode.incremental, .bulk])
    func numbersAreFoundHoweverTheyAreSpaced(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        try Self.export.expectEverySearchFinds(try Self.export.imported(in: directory, mode: mode))
    }

    /// Migration 0025 writes again the rows of numbers with separators, and leaves the others be.
    @Test func migration0025JoinsTheNumbersIndexedBeforeIt() throws {
        var untouched: [Row] = []
        let directory = try TemporaryDirectory()
        let database = try Self.export.migrated(in: directory, before: "0025", searchBefore: "spin150") { old in
            // Indexed as crated did before 0025: the numbers as written.
            try old.writer.write { db in
                try db.execute(sql: """
                    UPDATE album_search SET catalog_numbers = crated_search_text(
                        (SELECT group_concat(catalog_number, ' ') FROM album_label WHERE album_id = album_search.rowid))
                    """)
                untouched = try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE catalog_numbers = 'SPIN113'")
            }
        }
        #expect(untouched.count == 1)
        try Self.export.expectEverySearchFinds(database)
        #expect(try database.writer.read { db in try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE catalog_numbers = 'SPIN113'") } == untouched)
    }

    /// conorparnell's export writes one label's series both ways: `SPIN 150` and `SPIN113`.
    @Test(.needsSharedFixtures) func realNumbersAreFoundAsTyped() throws {
        let path = try #require(Paths.sharedFixture("conorparnell-TapeShelf_discogs-collection_EXCERPT.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: path)
        let user = try #require(try database.user(named: "collector")).id!
        for (text, title) in [("spin 113", "Odious Descent Into Decay"), ("spin150", "Tide Turns Eternal"), ("Spin 135", "Stygian"), ("spin 101", "Manor Of Infinite Forms")] {
            #expect(try database.searchAlbums(userId: user, text: text, limit: 20).map(\.title) == [title], "\(text)")
        }
    }

    /// crated shows and indexes names without their Discogs suffix (`Kit (33)` as `Kit`), and titles
    /// as written (`Bravo Hits (12)`): text pasted with a suffix finds both, what holds it first.
    @Test func textWithADiscogsSuffixFindsNamesWithoutItAndTitlesWithIt() throws {
        #expect(SearchText.matchExpression("Kit") == #""Kit"*"#)
        #expect(SearchText.matchExpression("Kit (33)") == #"("Kit"*) OR (("Kit"* "33"*) OR catalog_numbers : "Kit33"*)"#)
        // Brackets that are not a suffix are only words.
        #expect(SearchText.matchExpression("Vol. (12") == SearchText.matchExpression("Vol. 12"))
        let directory = try TemporaryDirectory()
        let rows = [exportRow(artist: "Kit (33)", title: "Desolate EP", label: "Vibez '93 (2)", releaseId: "1"),
                    exportRow(artist: "Various", title: "Bravo Hits (12)", releaseId: "2"),
                    exportRow(artist: "Various", title: "Bravo Hits", releaseId: "3"),
                    exportRow(artist: "Kitchens Of Distinction", title: "Love Is Hell", releaseId: "4")]
        let path = try directory.write("suffixes.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: path)
        let user = try #require(try database.user(named: "collector")).id!
        func titles(_ text: String) throws -> [String] { try database.searchAlbums(userId: user, text: text, limit: 20).map(\.title) }
        #expect(try titles("Kit (33)") == ["Desolate EP", "Love Is Hell"])
        #expect(try titles("Vibez '93 (2)") == ["Desolate EP"])
        let hits = try titles("Bravo Hits (12)")
        #expect(hits == ["Bravo Hits (12)", "Bravo Hits"], "\(hits)")
    }

    /// gustw's export credits `Kit (33)` and `Scott Allen (11)`, and a label `Akashic Records (23)`.
    @Test(.needsSharedFixtures) func realNamesPastedWithTheirDiscogsSuffixAreFound() throws {
        let path = try #require(Paths.sharedFixture("gustw-vinyl-collection_collection.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: path)
        let user = try #require(try database.user(named: "collector")).id!
        func titles(_ text: String) throws -> Set<String> { Set(try database.searchAlbums(userId: user, text: text, limit: 20).map(\.title)) }
        let kit = try titles("Kit (33)"), kitPlain = try titles("kit")
        #expect(kit.contains("Desolate EP") && kit == kitPlain, "\(kit)")
        #expect(try titles("Scott Allen (11)") == ["Wicked Ones / Zion Dub", "River Jordan EP", "Babylon EP"])
        #expect(try titles("Scott Allen (11), Pixel (8)") == ["Babylon EP"])
        #expect(try titles("Akashic Records (23)") == ["Rasta Mission / Animal Rights"])
    }
}
