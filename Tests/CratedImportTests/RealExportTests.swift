@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// The real Discogs exports in ../shared/fixtures/discogs. Expected counts were read off the files
/// independently (Python's csv module): rows, distinct release ids, distinct Artist cells.
@Suite struct RealExportTests {
    struct Expected: Sendable, CustomTestStringConvertible {
        var file: String
        var rows: Int
        var releases: Int
        var artists: Int
        var customFields: [String]
        var unknownYears: Int
        var testDescription: String { file }
    }

    static let exports = [
        Expected(file: "gustw-vinyl-collection_collection.csv", rows: 316, releases: 315, artists: 224, customFields: [], unknownYears: 7),
        Expected(file: "mouse-reeve-record-catalogue_collection.csv", rows: 68, releases: 68, artists: 55, customFields: ["Purchased At", "Color"], unknownYears: 9),
        Expected(file: "conorparnell-TapeShelf_discogs-collection_EXCERPT.csv", rows: 15, releases: 15, artists: 12, customFields: [], unknownYears: 2),
    ]

    @Test(.needsSharedFixtures, arguments: exports)
    func realExportsImportWithTheirRealCounts(expected: Expected) throws {
        let path = try #require(Paths.sharedFixture(expected.file))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let summary = try DiscogsImporter(database: database).importFile(at: path)
        #expect(summary.rowsRead == expected.rows)
        #expect(summary.albums == expected.releases)
        #expect(summary.albumsAdded == expected.releases)
        #expect(summary.artists == expected.artists)
        #expect(summary.copiesAdded == expected.rows)
        // Every copy in these exports is in Discogs' default folder, which is not a crate.
        #expect(summary.crates == 0)
        #expect(summary.customFields == expected.customFields)
        let unknownYears = try database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album WHERE year IS NULL") }
        #expect(unknownYears == expected.unknownYears)
        let again = try DiscogsImporter(database: database).importFile(at: path)
        #expect(again.copiesUnchanged == expected.rows && again.copiesAdded == 0)
    }

    @Test(.needsSharedFixtures) func gustwDetails() throws {
        let path = try #require(Paths.sharedFixture("gustw-vinyl-collection_collection.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: path)
        func value(_ sql: String) throws -> DatabaseValue {
            try database.reader.read { db in try DatabaseValue.fetchOne(db, sql: sql) ?? .null }
        }
        // "Mr. Isaacs " has a trailing space in the export.
        #expect(try value("SELECT title FROM album WHERE discogs_release_id = 13880176") == "Mr. Isaacs".databaseValue)
        // Release 2568011 was added twice, a minute apart: two copies.
        #expect(try value("SELECT COUNT(*) FROM collection_item JOIN album ON album.id = album_id WHERE discogs_release_id = 2568011") == 2.databaseValue)
        // 42 credits carry a Discogs suffix; none is shown. "Jinx (In Dub)" is a name, not a suffix.
        #expect(try value("SELECT COUNT(*) FROM artist WHERE discogs_name GLOB '* ([0-9]*)*'") == 42.databaseValue)
        #expect(try value("SELECT name FROM artist WHERE discogs_name = 'Jinx (In Dub)'") == "Jinx (In Dub)".databaseValue)
        #expect(try value("SELECT COUNT(*) FROM artist WHERE name GLOB '* ([0-9])*' OR name GLOB '* ([0-9][0-9])*'") == 0.databaseValue)
        #expect(try value("SELECT COUNT(*) FROM collection_item WHERE sleeve_condition = 'Generic'") != 0.databaseValue)
    }

    @Test(.needsSharedFixtures) func mouseReeveCustomFieldsAreKept() throws {
        let path = try #require(Paths.sharedFixture("mouse-reeve-record-catalogue_collection.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: path)
        let fields = try database.reader.read { db in
            try String.fetchOne(db, sql: "SELECT custom_fields FROM collection_item JOIN album ON album.id = album_id WHERE discogs_release_id = 4235004")
        }
        #expect(fields == #"{"Color":"Teal","Purchased At":"Amoeba"}"#)
    }

    /// Labels are shown without Discogs' suffix, as sync stores them: 11 of gustw's releases and 3
    /// of mouse-reeve's have one (`Roots Records (3)` on four releases, `Glassnote (2), Goodbye
    /// Records (2)` on one), counted off the files; search finds them by the name as shown.
    @Test(.needsSharedFixtures) func realLabelsAreShownWithoutTheirSuffix() throws {
        let files = ["gustw-vinyl-collection_collection.csv", "mouse-reeve-record-catalogue_collection.csv"].compactMap(Paths.sharedFixture)
        try #require(files.count == 2)
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        for (index, path) in files.enumerated() {
            _ = try DiscogsImporter(database: database).importFile(at: path, options: ImportOptions(userName: "collector\(index)"))
        }
        try database.reader.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_label") == 375 + 85)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_label WHERE name GLOB '* ([0-9]*)'") == 0)
            func labels(release: Int) throws -> [String] {
                try String.fetchAll(db, sql: """
                    SELECT l.name || ' ' || IFNULL(l.catalog_number, '-') FROM album_label l JOIN album a ON a.id = l.album_id
                    WHERE a.discogs_release_id = ? ORDER BY l.position
                    """, arguments: [release])
            }
            #expect(try labels(release: 4943832) == ["Glassnote GLS-0147-01", "Goodbye Records GLS-0147-01"])
            #expect(try labels(release: 6948665) == ["Death Waltz Recording Company DW40LP", "Mondo DW40LP"])
            #expect(try labels(release: 690001) == ["Roots Records ROOTS001"])
            // The four of `Roots Records (3)` and the one of `Organic Roots Records`.
            let rootsRecords = try Int.fetchAll(db, sql: """
                SELECT a.discogs_release_id FROM album_search s JOIN album a ON a.id = s.rowid
                WHERE album_search MATCH 'labels:"roots records"' ORDER BY a.discogs_release_id
                """)
            #expect(rootsRecords == [690001, 1410403, 1645963, 2492415, 6233706])
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_search WHERE album_search MATCH 'labels:3'") == 0)
        }
    }

    /// gustw's 11 releases with an initialism in their title or artist (counted off the file) are
    /// found by it as typed, dotted or not, the one searched for first.
    @Test(.needsSharedFixtures) func realInitialismsAreFoundAsTyped() throws {
        let path = try #require(Paths.sharedFixture("gustw-vinyl-collection_collection.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: path)
        let user = try #require(try database.user(named: "collector")).id!
        let searches: [(text: String, release: Int64)] = [
            ("la woman", 8815490), ("L.A. Woman", 8815490), ("kuro", 902575), ("K.U.R.O.", 902575), ("obf", 23509331),
            ("O.B.F.", 23509331), ("rastafari", 16100711), ("him arise", 31297589), ("nuttah vip", 149207), ("talk too much ep", 8296878),
        ]
        for search in searches {
            let album = try database.reader.read { db in
                try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE discogs_release_id = ?", arguments: [search.release])
            }
            let found = try database.searchAlbums(userId: user, text: search.text, limit: 10).map(\.albumId)
            #expect(album != nil && found.first == album, "\(search.text): \(found)")
        }
        let joined = try database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_search WHERE title <> crated_search_text(title) OR artists <> crated_search_text(artists)")
        }
        #expect(joined == 0)
        #expect(try database.searchAlbums(userId: user, text: "ep", limit: 50).count >= 5)
    }

    /// The three exports' formats, named as the API names them; counts read off the files (Python's
    /// csv module, one album per release): 387 vinyl parts (`12"`, `LP`, `2xLP`, `10"`, `7"`...), the
    /// All Media parts `Album`, `RE, Gat` and `Dlx`, and the one name the rules do not know, `DVD-V`.
    @Test(.needsSharedFixtures) func realFormatsAreNamedAsTheAPINamesThem() throws {
        let files = Self.exports.compactMap { Paths.sharedFixture($0.file) }
        try #require(files.count == Self.exports.count)
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        for (index, path) in files.enumerated() {
            _ = try DiscogsImporter(database: database).importFile(at: path, options: ImportOptions(userName: "collector\(index)"))
        }
        let names = try database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT name, COUNT(*) FROM album_format GROUP BY name ORDER BY name").map { "\($0[0] as String) \($0[1] as Int)" }
        }
        #expect(names == ["All Media 4", "Box Set 1", "CD 3", "Cassette 15", "DVD-V 1", "Vinyl 387"])
        // Release 3917263 is `LP + 7" + Album`.
        let parts = try database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT f.name, f.descriptions FROM album_format f JOIN album a ON a.id = f.album_id
                WHERE a.discogs_release_id = 3917263 ORDER BY f.position
                """).map { "\($0[0] as String) \($0[1] as String)" }
        }
        #expect(parts == [#"Vinyl ["LP"]"#, #"Vinyl ["7\""]"#, #"All Media ["Album"]"#])
        // What the export cut is left out: `7", EP, Ltd, "Ye` (6402141) and `... + Box, Dl` (6526514).
        let cut = try database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.discogs_release_id, f.name, f.descriptions FROM album_format f JOIN album a ON a.id = f.album_id
                WHERE a.discogs_release_id IN (6402141, 6526514) ORDER BY a.discogs_release_id, f.position
                """).map { "\($0[0] as Int) \($0[1] as String) \($0[2] as String)" }
        }
        #expect(cut == [
            #"6402141 Vinyl ["7\"","EP","Ltd"]"#,
            #"6526514 Vinyl ["LP","Album","Whi"]"#, #"6526514 Vinyl ["12\"","S/Sided","Etch","Whi"]"#, "6526514 Box Set []",
        ])
    }
}
