@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Letters that unicode61 does not fold (ø, ð, œ, ß, ł, ligatures) are found by the letters a
/// collector types for them, whichever way the import wrote the search rows, and in a database
/// indexed before migration 0015.
@Suite struct SearchSpellingTests {
    static let albums: [(artist: String, title: String)] = [
        ("Røyksopp", "Melody A.M."), ("Hildur Guðnadóttir", "Chernobyl"), ("Chœur Des Moines", "Gregorian Chants"),
        ("Kraftwerk", "Straße"), ("Łona", "Nic Dziwnego"), ("Þursaflokkurinn", "Hinn Íslenzki Þursaflokkur"), ("Ætherial", "ﬁnal"),
        ("Ωμέγα", "Ελληνικά Τραγούδια"),
    ]
    static let searches: [(text: String, title: String)] = [
        ("royksopp", "Melody A.M."), ("Røyksopp", "Melody A.M."), ("ROYK", "Melody A.M."),
        ("gudnadottir", "Chernobyl"), ("Guðnadóttir", "Chernobyl"), ("choeur", "Gregorian Chants"), ("chœur", "Gregorian Chants"),
        ("strasse", "Straße"), ("straße", "Straße"), ("lona", "Nic Dziwnego"), ("thursaflokkurinn", "Hinn Íslenzki Þursaflokkur"),
        ("islenzki", "Hinn Íslenzki Þursaflokkur"), ("aetherial final", "ﬁnal"),
        ("ωμεγα", "Ελληνικά Τραγούδια"), ("Ωμέγα", "Ελληνικά Τραγούδια"), ("ελληνικα τραγουδια", "Ελληνικά Τραγούδια"),
        ("ΤΡΑΓΟΥΔΙΑ", "Ελληνικά Τραγούδια"),
    ]

    func export(in directory: TemporaryDirectory) throws -> String {
        let rows = Self.albums.enumerated().map { exportRow(artist: $0.element.artist, title: $0.element.title, releaseId: "\(100 + $0.offset)") }
        return try directory.write("spellings.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
    }

    /// Writes the search rows as crated did before 0015: each album's title and credit as stored.
    static func indexAsStored(_ database: AppDatabase) throws {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM album_search")
            try db.execute(sql: """
                INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
                SELECT id, title, artist_credit, '', '', '' FROM album
                """)
        }
    }

    /// Whether the index finds `text` among anyone's albums: the index alone, as a database of an
    /// older schema has it (the code's own queries read today's schema).
    static func indexFinds(_ database: AppDatabase, _ text: String) throws -> Bool {
        let match = try #require(SearchText.matchExpression(text))
        return try database.reader.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM album_search WHERE album_search MATCH ?)", arguments: [match]) ?? false
        }
    }

    func expectEverySearchFinds(_ database: AppDatabase) throws {
        let user = try #require(try database.user(named: "collector")).id!
        for search in Self.searches {
            #expect(try database.searchAlbums(userId: user, text: search.text, limit: 5).map(\.title) == [search.title], "\(search.text)")
        }
    }

    @Test(arguments: [ImportWriteMode.incremental, .bulk])
    func theLettersAreFoundAsTyped(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        var options = ImportOptions()
        options.writeMode = mode
        _ = try DiscogsImporter(database: database).importFile(at: export(in: directory), options: options)
        try expectEverySearchFinds(database)
        // The text filter of a grid goes through the same expression.
        #expect(SearchText.matchExpression("Røyksopp Straße") == #""Royksopp"* "Strasse"*"#)
    }

    @Test func migration0015SpellsOutTheRowsIndexedBeforeIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0015")
        // Indexed as crated did before 0015: the text as stored.
        _ = try DiscogsImporter(database: try AppDatabase.open(path: path, migrations: before)).importFile(at: export(in: directory))
        let old = try AppDatabase.open(path: path, migrations: before)
        try Self.indexAsStored(old)
        #expect(try !Self.indexFinds(old, "royksopp"))

        let database = try AppDatabase.open(path: path)
        try expectEverySearchFinds(database)
        let spelled = try database.reader.read { db in try String.fetchOne(db, sql: "SELECT artists FROM album_search WHERE title = 'Chernobyl'") }
        #expect(spelled == "Hildur Gudnadóttir", "ð spelled out; ó is left to the tokenizer, which folds it")
    }

    /// Migration 0040 writes again the rows with Greek text, indexed before it with their accents,
    /// which the tokenizer keeps: `ωμεγα` finds `Ωμέγα` after it.
    @Test func migration0040WritesGreekRowsWithoutTheirAccents() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0040")
        _ = try DiscogsImporter(database: try AppDatabase.open(path: path, migrations: before)).importFile(at: export(in: directory))
        let old = try AppDatabase.open(path: path, migrations: before)
        try old.writer.write { db in
            try db.execute(sql: "UPDATE album_search SET title = 'Ελληνικά Τραγούδια', artists = 'Ωμέγα' WHERE title LIKE 'Ελληνικ%'")
        }
        #expect(try !Self.indexFinds(old, "ωμεγα"))
        let untouched = try old.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE title NOT LIKE 'Ελληνικ%' ORDER BY rowid")
        }

        let database = try AppDatabase.open(path: path)
        try expectEverySearchFinds(database)
        #expect(try database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE title NOT LIKE 'Ελληνικ%' ORDER BY rowid")
        } == untouched, "only the Greek row is written again")
    }

    /// An album's artists credited under other names are searchable by their own; names the credit
    /// has already add nothing, so a CSV's one-artist credit indexes as it is.
    @Test func artistsTheCreditDoesNotNameAreSearchable() {
        #expect(SearchText.searchableArtists(credit: "SPB Ska-Jazz Review", names: "St. Petersburg Ska-Jazz Review")
                == "SPB Ska-Jazz Review St. Petersburg Ska-Jazz Review SkaJazz")
        #expect(SearchText.searchableArtists(credit: "Orion Featuring Royal / Theory & Dr.No", names: "Orion\nRoyal\nTheory\nDr. Know")
                == "Orion Featuring Royal / Theory & Dr.No Dr. Know")
        #expect(SearchText.searchableArtists(credit: "Persuader, The", names: "The Persuader") == "Persuader, The")
        #expect(SearchText.searchableArtists(credit: "Røyksopp", names: "Røyksopp") == "Royksopp")
        #expect(SearchText.searchableArtists(credit: "Trash80 & Dma-Sc", names: nil) == "Trash80 & Dma-Sc DmaSc")
    }

    /// Migration 0016 adds those names to the rows indexed before it, and leaves the other rows be.
    @Test func migration0016AddsTheNamesTheCreditLacks() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0016")
        _ = try DiscogsImporter(database: try AppDatabase.open(path: path, migrations: before)).importFile(at: export(in: directory))
        let old = try AppDatabase.open(path: path, migrations: before)
        let variation = try old.writer.write { db -> Int64 in
            // What sync writes for a release credited under a name variation, indexed as before 0016.
            let album = try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE title = 'Chernobyl'")!
            try db.execute(sql: "UPDATE album SET artist_credit = 'Hildur' WHERE id = ?", arguments: [album])
            try db.execute(sql: "UPDATE album_search SET artists = 'Hildur' WHERE rowid = ?", arguments: [album])
            return album
        }
        let untouched = try old.writer.read { db in try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE rowid <> ? ORDER BY rowid", arguments: [variation]) }

        let migrated = try AppDatabase.open(path: path)
        let user = try #require(try migrated.user(named: "collector")).id!
        #expect(try migrated.searchAlbums(userId: user, text: "gudnadottir", limit: 5).map(\.albumId) == [variation])
        #expect(try migrated.searchAlbums(userId: user, text: "hildur", limit: 5).map(\.albumId) == [variation])
        #expect(try migrated.writer.read { db in try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE rowid <> ? ORDER BY rowid", arguments: [variation]) } == untouched)
    }

    /// Initialisms are one word to search, as a collector types them: the tokenizer alone made
    /// `L.A.` two single letters, which no search reaches.
    @Test func initialismsAreJoined() {
        #expect(SearchText.joiningInitialisms("L.A. Woman") == "LA Woman")
        #expect(SearchText.joiningInitialisms("Let H.I.M Arise / Emotion") == "Let HIM Arise / Emotion")
        #expect(SearchText.joiningInitialisms("R.A.S.T.A.F.A.R.I.") == "RASTAFARI")
        #expect(SearchText.joiningInitialisms("O.B.F. & Mr Williamz") == "OBF & Mr Williamz")
        #expect(SearchText.joiningInitialisms("J.S.Bach") == "JS Bach")
        #expect(SearchText.joiningInitialisms("É.U. (a.k.a. E.U.)") == "ÉU (aka EU)")
        // Not initialisms: abbreviations, numbers, initials with spaces, a single letter.
        for text in ["Mr. Isaacs", "St.Petersburg", "Vol. 2.5", "J. S. Bach", "Plan B.", "A.", "3.A.5", "..."] {
            #expect(SearchText.joiningInitialisms(text) == text)
        }
        #expect(SearchText.matchExpression("L.A. Woman") == #""LA"* "Woman"*"#)
        #expect(SearchText.matchExpression("Let H.I.M Arise") == #""Let"* "HIM"* "Arise"*"#)
    }

    static let initialisms: [(artist: String, title: String)] = [
        ("The Doors", "L.A. Woman"), ("K.U.R.O.", "The Revolution"), ("The Shanti-Ites", "Let H.I.M Arise / Emotion"),
        ("Misty In Roots", "Woman On A Mission"),
    ]

    func expectInitialismsFound(_ database: AppDatabase) throws {
        let user = try #require(try database.user(named: "collector")).id!
        func titles(_ text: String) throws -> [String] { try database.searchAlbums(userId: user, text: text, limit: 5).map(\.title) }
        #expect(try titles("la woman") == ["L.A. Woman"])
        #expect(try titles("L.A. Woman") == ["L.A. Woman"])
        #expect(try titles("kuro") == ["The Revolution"])
        #expect(try titles("him arise") == ["Let H.I.M Arise / Emotion"])
        #expect(try titles("woman").count == 2)
    }

    @Test(arguments: [ImportWriteMode.incremental, .bulk])
    func initialismsAreFoundAsTyped(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let rows = Self.initialisms.enumerated().map { exportRow(artist: $0.element.artist, title: $0.element.title, label: "Elektra", releaseId: "\(200 + $0.offset)") }
        var options = ImportOptions()
        options.writeMode = mode
        _ = try DiscogsImporter(database: database).importFile(at: try directory.write("initialisms.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n"), options: options)
        try expectInitialismsFound(database)
    }

    /// Migration 0021 writes the rows indexed before it with their initialisms joined, and only those.
    @Test func migration0021JoinsTheInitialismsIndexedBeforeIt() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: "0021")
        let rows = Self.initialisms.enumerated().map { exportRow(artist: $0.element.artist, title: $0.element.title, label: "Elektra", releaseId: "\(200 + $0.offset)") }
        _ = try DiscogsImporter(database: try AppDatabase.open(path: path, migrations: before))
            .importFile(at: try directory.write("initialisms.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n"))
        let old = try AppDatabase.open(path: path, migrations: before)
        // Indexed as crated did before 0021: the text as stored (all of it ASCII, so spelled out).
        try Self.indexAsStored(old)
        #expect(try !Self.indexFinds(old, "la woman"))
        let untouched = try old.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE title = 'Woman On A Mission'")
        }

        // To 0021 and the migrations after it that leave search rows be: 0025 writes catalogue numbers again.
        let database = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0025"))
        try expectInitialismsFound(database)
        let indexed = try database.writer.read { db in try String.fetchAll(db, sql: "SELECT title || ' | ' || artists FROM album_search ORDER BY rowid") }
        // crated_search_text as it is now, which also writes hyphenated words together (migration 0035).
        #expect(indexed == ["LA Woman | The Doors", "The Revolution | KURO", "Let HIM Arise / Emotion | The Shanti-Ites ShantiItes", "Woman On A Mission | Misty In Roots"])
        #expect(try database.writer.read { db in try Row.fetchAll(db, sql: "SELECT rowid, * FROM album_search WHERE title = 'Woman On A Mission'") } == untouched)
    }
}
