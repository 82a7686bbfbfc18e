@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Japanese and Chinese, written without spaces, are found from any character of a run, not only
/// from its start, whichever way the import wrote the search rows, and in a database indexed
/// before migration 0025.
@Suite struct SearchIdeographTests {
    static let export = SearchExport(
        rows: [("坂本龍一", "音楽図鑑"), ("Yellow Magic Orchestra", "テクノデリック"), ("宇多田ヒカル", "First Love"), ("Кино", "Группа крови")]
            .enumerated().map { exportRow(artist: $0.element.0, title: $0.element.1, releaseId: "\(400 + $0.offset)") },
        searches: [
            ("龍一", ["音楽図鑑"]), ("坂本", ["音楽図鑑"]), ("図鑑", ["音楽図鑑"]), ("坂本龍一 音楽", ["音楽図鑑"]), ("デリック", ["テクノデリック"]),
            ("ヒカル", ["First Love"]), ("宇多田 first", ["First Love"]), ("крови", ["Группа крови"]),
            // A phrase: the characters in order, side by side.
            ("龍坂", []), ("一龍", []),
        ])

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
        try Self.export.expectEverySearchFinds(try Self.export.imported(in: directory, mode: mode))
    }

    /// Migration 0025 writes the rows indexed before it with their ideographs apart.
    @Test func migration0025SeparatesTheRowsIndexedBeforeIt() throws {
        // Indexed as crated did before 0025: the text as stored.
        let directory = try TemporaryDirectory()
        let database = try Self.export.migrated(in: directory, before: "0025", searchBefore: "龍一",
                                                indexAsBefore: SearchSpellingTests.indexAsStored)
        try Self.export.expectEverySearchFinds(database)
        let artists = try database.reader.read { db in try String.fetchOne(db, sql: "SELECT artists FROM album_search WHERE rowid = (SELECT id FROM album WHERE title = '音楽図鑑')") }
        #expect(artists == "坂 本 龍 一")
    }
}
