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
    static let albums: [(catalog: String, title: String)] = [
        ("SPIN 150", "Tide Turns Eternal"), ("SPIN113", "Odious Descent Into Decay"), ("CS 36-147", "Bridge Over Troubled Water"),
        ("836 062-1", "Mönche"), ("SD 7200", "Houses Of The Holy"),
    ]
    static let searches: [(text: String, title: String)] = [
        ("spin150", "Tide Turns Eternal"), ("SPIN 150", "Tide Turns Eternal"), ("spin 113", "Odious Descent Into Decay"),
        ("spin113", "Odious Descent Into Decay"), ("cs36147", "Bridge Over Troubled Water"), ("CS 36-147", "Bridge Over Troubled Water"),
        ("cs 36147", "Bridge Over Troubled Water"), ("8360621", "Mönche"), ("836 062", "Mönche"), ("sd7200", "Houses Of The Holy"),
        ("sd 72", "Houses Of The Holy"),
    ]

    func export(in directory: TemporaryDirectory) throws -> String {
        let rows = Self.albums.enumerated().map {
            exportRow(catalog: "\"\($0.element.catalog)\"", artist: "Artist \($0.offset)", title: $0.element.title, releaseId: "\(300 + $0.offset)")
        }
        return try directory.write("catalogue.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
    }

    func expectEverySearchFinds(_ database: AppDatabase) throws {
        let user = try #require(try database.user(named: "collector")).id!
        for search in Self.searches {
            #expect(try database.searchAlbums(userId: user, text: search.text, limit: 10).map(\.title) == [search.title], "\(search.text)")
        }
    }

    @Test func theIndexHoldsEachNumberWrittenTogetherToo() {
        #expect(SearchText.catalogNumbers(["SPIN 150"]) == "SPIN 150 SPIN150")
        #expect(SearchText.catalogNumbers(["SPIN113"]) == "SPIN113")
        #expect(SearchText.catalogNumbers(["836 062-1", "LP 7"]) == "836 062-1 LP 7 8360621 LP7")
        #expect(SearchText.catalogNumbers([]) == "")
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
        let database = try directory.database()
        var options = ImportOptions()
        options.writeMode = mode
        _ = try DiscogsImporter(database: database).importFile(at: export(in: directory), options: options)
        try expectEverySearchFinds(database)
    }

    /// Migration 0025 writes again the rows of numbers with separators, and only those.
    @Test func migration0025JoinsTheNumbersIndexedBeforeIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Array(Migration.embedded.prefix { $0.fileName < "0025" })
        _ = try DiscogsImporter(database: try AppDatabase.open(path: path, migrations: before)).importFile(at: export(in: directory))
        let old = try AppDatabase.open(path: path, migrations: before)
        // Indexed as crated did before 0025: the numbers as written.
        try old.writer.write { db in
            try db.execute(sql: """
                UPDATE album_search SET catalog_numbers = crated_search_text(
                    (SELECT group_concat(catalog_number, ' ') FROM album_label WHERE album_id = album_search.rowid))
                """)
        }
        #expect(try !SearchSpellingTests.indexFinds(old, "spin150"))
        let untouched = try old.writer.read { db in try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE catalog_numbers = 'SPIN113'") }
        #expect(untouched.count == 1)

        let database = try AppDatabase.open(path: path)
        try expectEverySearchFinds(database)
        #expect(try database.writer.read { db in try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE catalog_numbers = 'SPIN113'") } == untouched)
    }

    /// conorparnell's export writes one label's series both ways: `SPIN 150` and `SPIN113`.
    @Test func realNumbersAreFoundAsTyped() throws {
        guard let path = Paths.sharedFixture("conorparnell-TapeShelf_discogs-collection_EXCERPT.csv") else { return }
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: path)
        let user = try #require(try database.user(named: "collector")).id!
        for (text, title) in [("spin 113", "Odious Descent Into Decay"), ("spin150", "Tide Turns Eternal"), ("Spin 135", "Stygian"), ("spin 101", "Manor Of Infinite Forms")] {
            #expect(try database.searchAlbums(userId: user, text: text, limit: 20).map(\.title) == [title], "\(text)")
        }
    }
}
