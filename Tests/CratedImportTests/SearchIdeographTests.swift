@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Japanese and Chinese, written without spaces, are found from any character of a run, not only
/// from its start, whichever way the import wrote the search rows, and in a database indexed
/// before migration 0026.
@Suite struct SearchIdeographTests {
    static let albums: [(artist: String, title: String)] = [
        ("坂本龍一", "音楽図鑑"), ("Yellow Magic Orchestra", "テクノデリック"), ("宇多田ヒカル", "First Love"), ("Кино", "Группа крови"),
    ]
    static let searches: [(text: String, titles: [String])] = [
        ("龍一", ["音楽図鑑"]), ("坂本", ["音楽図鑑"]), ("図鑑", ["音楽図鑑"]), ("坂本龍一 音楽", ["音楽図鑑"]), ("デリック", ["テクノデリック"]),
        ("ヒカル", ["First Love"]), ("宇多田 first", ["First Love"]), ("крови", ["Группа крови"]),
        // A phrase: the characters in order, side by side.
        ("龍坂", []), ("一龍", []),
    ]

    func export(in directory: TemporaryDirectory) throws -> String {
        let rows = Self.albums.enumerated().map { exportRow(artist: $0.element.artist, title: $0.element.title, releaseId: "\(400 + $0.offset)") }
        return try directory.write("ideographs.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
    }

    func expectEverySearchFinds(_ database: AppDatabase) throws {
        let user = try #require(try database.user(named: "collector")).id!
        for search in Self.searches {
            #expect(try database.searchAlbums(userId: user, text: search.text, limit: 10).map(\.title) == search.titles, "\(search.text)")
        }
    }

    @Test func eachIdeographIsAWordOfItsOwn() {
        #expect(SearchText.separatingIdeographs("坂本龍一 (2)") == "坂 本 龍 一 (2)")
        #expect(SearchText.separatingIdeographs("東京2020 Live") == "東 京 2020 Live")
        #expect(SearchText.separatingIdeographs("Déjà Vu") == "Déjà Vu")
        #expect(SearchText.matchExpression("龍一") == #""龍 一"*"#)
        // A one-character word beside longer ones is left out, but not an ideograph, a word of its own.
        #expect(SearchText.matchExpression("坂 live a") == #""坂"* "live"*"#)
    }

    @Test(arguments: [ImportWriteMode.incremental, .bulk])
    func runsAreFoundFromAnyCharacter(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        var options = ImportOptions()
        options.writeMode = mode
        _ = try DiscogsImporter(database: database).importFile(at: export(in: directory), options: options)
        try expectEverySearchFinds(database)
    }

    /// Migration 0026 writes the rows indexed before it with their ideographs apart.
    @Test func migration0026SeparatesTheRowsIndexedBeforeIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Array(Migration.embedded.prefix { $0.fileName < "0026" })
        _ = try DiscogsImporter(database: try AppDatabase.open(path: path, migrations: before)).importFile(at: export(in: directory))
        let old = try AppDatabase.open(path: path, migrations: before)
        // Indexed as crated did before 0026: the text as stored.
        try SearchSpellingTests.indexAsStored(old)
        #expect(try !SearchSpellingTests.indexFinds(old, "龍一"))

        let database = try AppDatabase.open(path: path)
        try expectEverySearchFinds(database)
        let artists = try database.reader.read { db in try String.fetchOne(db, sql: "SELECT artists FROM album_search WHERE rowid = (SELECT id FROM album WHERE title = '音楽図鑑')") }
        #expect(artists == "坂 本 龍 一")
    }
}
