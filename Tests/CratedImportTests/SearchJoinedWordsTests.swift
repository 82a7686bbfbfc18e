@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Words joined by apostrophes or hyphens (`Pepper's`, `Hi-Fi`) are found typed without them
/// (`peppers`, `hifi`) as well as with them or apart, whichever way the import wrote the search
/// rows, and in a database indexed before migration 0035.
@Suite struct SearchJoinedWordsTests {
    static let albums = [
        ("The Beatles", "Sgt. Pepper's Lonely Hearts Club Band"), ("Mungo's Hi-Fi", "Sound System Champions"),
        ("Alien Project", "Don't Worry Be Groovy!"), ("E-Z Rollers", "Weekend World"), ("L’Entourloop", "Chickens In Your Town"),
        ("Sleater-Kinney", "Call The Doctor"), ("Little Richard", "Rock-'n'-Roll Hits"),
    ]
    static let export = SearchExport(
        rows: albums.enumerated().map { exportRow(artist: $0.element.0, title: $0.element.1, releaseId: "\(500 + $0.offset)") },
        searches: [
            ("sgt peppers", ["Sgt. Pepper's Lonely Hearts Club Band"]), ("sgt. pepper's", ["Sgt. Pepper's Lonely Hearts Club Band"]),
            ("pepper", ["Sgt. Pepper's Lonely Hearts Club Band"]),
            ("mungos hi fi", ["Sound System Champions"]), ("mungos hifi", ["Sound System Champions"]), ("mungo's hi-fi", ["Sound System Champions"]),
            ("dont worry be groovy", ["Don't Worry Be Groovy!"]), ("ez rollers", ["Weekend World"]), ("lentourloop", ["Chickens In Your Town"]),
            ("l'entourloop", ["Chickens In Your Town"]), ("sleaterkinney", ["Call The Doctor"]), ("sleater kinney", ["Call The Doctor"]),
            ("rocknroll", ["Rock-'n'-Roll Hits"]),
            // Joined forms are whole words: no word spans a space.
            ("hearts club", ["Sgt. Pepper's Lonely Hearts Club Band"]), ("heartsclub", []),
        ])

    @Test func wordsJoinedByApostrophesOrHyphensAreAddedWrittenTogether() {
        #expect(SearchText.withWordsJoined("Sgt. Pepper's Lonely Hearts Club Band") == "Sgt. Pepper's Lonely Hearts Club Band Peppers")
        #expect(SearchText.withWordsJoined("Mungo’s Hi‐Fi") == "Mungo’s Hi‐Fi Mungos HiFi")
        #expect(SearchText.withWordsJoined("Rock-'n'-Roll") == "Rock-'n'-Roll RocknRoll")
        // A joiner at a word's edge, or beside a space, joins nothing.
        #expect(SearchText.withWordsJoined("'Allelujah! Don - Ascend' rock-") == "'Allelujah! Don - Ascend' rock-")
        #expect(SearchText.withWordsJoined("No joiners here") == "No joiners here")
        // A form the text holds already is not added again.
        #expect(SearchText.withWordsJoined("Hi-Fi Hifi") == "Hi-Fi Hifi")
        for (artist, title) in Self.albums {
            for text in [artist, title] {
                #expect(SearchText.indexed(SearchText.indexed(text)) == SearchText.indexed(text), "\(text)")
            }
        }
        // A catalogue number is written together whole, not at its hyphens alone.
        #expect(SearchText.catalogNumbers(["836 062-1"]) == "836 062-1 8360621")
        #expect(SearchText.searchableArtists(credit: "Mungo's Hi-Fi", names: "Mungo's Hi-Fi") == "Mungo's Hi-Fi Mungos HiFi")
    }

    @Test(arguments: [ImportWriteMode.incremental, .bulk])
    func joinedWordsAreFoundWrittenTogether(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        try Self.export.expectEverySearchFinds(try Self.export.imported(in: directory, mode: mode))
    }

    /// Migration 0035 writes again the rows indexed before it that hold joined words.
    @Test func migration0035JoinsTheWordsIndexedBeforeIt() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.export.migrated(in: directory, before: "0035", searchBefore: "sgt peppers",
                                                indexAsBefore: SearchSpellingTests.indexAsStored)
        try Self.export.expectEverySearchFinds(database)
        let artists = try database.reader.read { db in try String.fetchOne(db, sql: "SELECT artists FROM album_search WHERE rowid = (SELECT id FROM album WHERE title = 'Weekend World')") }
        #expect(artists == "E-Z Rollers EZ")
    }

    @Test(.needsSharedFixtures)
    func realTitlesAreFoundAsCollectorsTypeThem() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        for name in ["gustw-vinyl-collection_collection.csv", "mouse-reeve-record-catalogue_collection.csv"] {
            _ = try importer.importFile(at: try #require(Paths.sharedFixture(name)))
        }
        let user = try #require(try database.user(named: "collector")).id!
        let searches: [(String, String)] = [
            ("sgt peppers", "Sgt. Pepper's Lonely Hearts Club Band"), ("mungos hifi", "Sound System Champions"),
            ("dont worry be groovy", "Don't Worry Be Groovy!"), ("ire hifi", "No More War"), ("sleaterkinney", "Call The Doctor"),
            ("dont fool rasta", "Fussin' & Fightin' / Don't Fool Rasta"),
        ]
        for (text, title) in searches {
            #expect(try database.searchAlbums(userId: user, text: text, limit: 10).map(\.title).contains(title), "\(text)")
        }
    }
}
