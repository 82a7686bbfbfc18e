@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

@Suite struct ImportTests {
    let sample = Paths.ownFixture("sample-collection.csv")

    @Test func theSampleCollectionImportsWithTheRightCounts() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let summary = try DiscogsImporter(database: database).importFile(at: sample)
        #expect(summary.user == "collector")
        #expect(summary.rowsRead == 20)
        #expect(summary.albums == 18)
        #expect(summary.albumsAdded == 18)
        #expect(summary.artists == 18)
        #expect(summary.copiesAdded == 20)
        #expect(summary.crates == 6)
        #expect(summary.customFields == ["Purchased At"])
        #expect(summary.skipped.isEmpty)
        let counts = try TableCounts(database)
        #expect(counts.albums == 18 && counts.copies == 20 && counts.crates == 6 && counts.searchRows == 18)
        let crates = try database.reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM crate ORDER BY name") }
        #expect(crates == ["Ambient", "Dub & Reggae", "Jazz", "Rock", "Sell, maybe", "Soul & Funk"])
    }

    @Test func storedValuesFollowTheDesign() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: sample)
        try database.reader.read { db in
            // Suffix removed for display, kept as the Discogs name.
            let casey = try Artist.filter(Column("discogs_name") == "Casey (2)").fetchOne(db)
            #expect(casey?.name == "Casey")
            // A credit with commas is one artist, never split.
            let csny = try Album.filter(Column("discogs_release_id") == 1002).fetchOne(db)!
            #expect(csny.artistCredit == "Crosby, Stills, Nash & Young")
            #expect(try AlbumArtist.filter(Column("album_id") == csny.id!).fetchCount(db) == 1)
            #expect(csny.sortTitle == "deja vu")
            // `none` catalogue number dropped; year 0 is unknown.
            #expect(try AlbumLabel.filter(Column("album_id") == csny.id!).fetchAll(db).map(\.catalogNumber) == ["SD 1361"])
            let tapeLoops = try Album.filter(Column("discogs_release_id") == 1004).fetchOne(db)!
            #expect(tapeLoops.year == nil)
            #expect(tapeLoops.artistCredit == "Casey")
            // Identical rows are two copies told apart by their ordinal.
            let copies = try CollectionItem.filter(Column("album_id") == tapeLoops.id!).order(Column("copy_ordinal")).fetchAll(db)
            #expect(copies.map(\.copyOrdinal) == [0, 1])
            #expect(copies.map(\.dateAdded) == ["2022-07-28T06:12:39Z", "2022-07-28T06:12:39Z"])
            // The same release added twice on different days: two copies, one in a crate.
            let kindOfBlue = try Album.filter(Column("discogs_release_id") == 1).fetchOne(db)!
            let blueCopies = try CollectionItem.filter(Column("album_id") == kindOfBlue.id!).order(Column("date_added")).fetchAll(db)
            #expect(blueCopies.map(\.rating) == [5, 4])
            #expect(blueCopies[0].notes == "Original six-eye pressing, \"Columbia\" on the spine")
            #expect(blueCopies[0].customFields == #"{"Purchased At":"Rough Trade East"}"#)
            #expect(blueCopies[1].customFields == "{}")
            #expect(blueCopies[0].mediaCondition == "Very Good Plus (VG+)")
            let inCrates = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM crate_item WHERE item_id IN (?, ?)", arguments: [blueCopies[0].id!, blueCopies[1].id!])
            #expect(inCrates == 1)
            // Notes keep their line breaks.
            let dejaVuCopy = try CollectionItem.filter(Column("album_id") == csny.id!).fetchOne(db)!
            #expect(dejaVuCopy.notes == "Sleeve has ring wear.\nVinyl plays clean.")
            // Formats and labels.
            let pablo = try Album.filter(Column("discogs_release_id") == 1006).fetchOne(db)!
            #expect(try AlbumLabel.filter(Column("album_id") == pablo.id!).order(Column("position")).fetchAll(db).map(\.name) == ["17 North Parade", "Earthquake"])
            let format = try AlbumFormat.filter(Column("album_id") == pablo.id!).fetchOne(db)!
            #expect(format.name == "Vinyl" && format.descriptions == #"["LP","Album","RE","RM"]"#)
            // The spreadsheet-style date was read as 23 April 2023.
            let roots = try Album.filter(Column("discogs_release_id") == 1014).fetchOne(db)!
            #expect(try CollectionItem.filter(Column("album_id") == roots.id!).fetchOne(db)?.dateAdded == "2023-04-23T04:38:00Z")
            // Diacritics fold in search.
            let found = try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH ?", arguments: [SearchText.matchExpression("deja vu")!])
            #expect(found == [csny.id!])
        }
    }

    @Test func importingTheSameFileTwiceChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: sample)
        let before = try TableCounts(database)
        let again = try importer.importFile(at: sample)
        #expect(again.copiesAdded == 0 && again.copiesUpdated == 0 && again.copiesUnchanged == 20)
        #expect(again.albumsAdded == 0 && again.artistsAdded == 0 && again.cratesAdded == 0)
        #expect(try TableCounts(database) == before)
    }

    @Test func aLaterExportAddsWhatIsNewAndUpdatesWhatChanged() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: sample)
        var text = try String(contentsOfFile: sample, encoding: .utf8)
        // Re-rate Sade, add a third identical Casey copy and a new album.
        text = text.replacingOccurrences(of: "LC 2022,Sade,Diamond Life,Epic,\"LP, Album\",4,", with: "LC 2022,Sade,Diamond Life,Epic,\"LP, Album\",5,")
        text += "FC 36149,Casey (2),Tape Loop Sessions,Kranky,\"2xLP, Album\",3,0,1004,Ambient,2022-07-28 06:12:39,Mint (M),Mint (M),,Bandcamp\n"
        text += exportRow(artist: "New Artist", title: "New Album", releaseId: "5555", folder: "Jazz", dateAdded: "2024-01-01 00:00:00") + "\n"
        let later = try directory.write("later.csv", text)
        let summary = try importer.importFile(at: later)
        #expect(summary.copiesAdded == 2)
        #expect(summary.copiesUpdated == 1)
        #expect(summary.copiesUnchanged == 19)
        #expect(summary.albumsAdded == 1)
        let counts = try TableCounts(database)
        #expect(counts.copies == 22 && counts.albums == 19 && counts.searchRows == 19)
        let jazzCount = try database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM crate_item JOIN crate ON crate.id = crate_id WHERE crate.name = 'Jazz'")
        }
        #expect(jazzCount == 4)
    }

    @Test func usersAreNamedCreatedOrChosen() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        #expect(try importer.importFile(at: sample, options: ImportOptions(userName: "bob")).user == "bob")
        // The only user is the default owner.
        #expect(try importer.importFile(at: sample).user == "bob")
        _ = try database.addUser(named: "alice")
        #expect(throws: ImportError.user(.ambiguousDefault(["bob", "alice"]))) { try importer.importFile(at: sample) }
        let alices = try importer.importFile(at: sample, options: ImportOptions(userName: "ALICE"))
        #expect(alices.user == "alice")
        #expect(alices.copiesAdded == 20)
        // The shared catalogue is not duplicated for a second user.
        #expect(alices.albumsAdded == 0)
        #expect(try TableCounts(database).copies == 40)
        #expect(throws: UserError.alreadyExists("alice")) { try database.addUser(named: "Alice") }
        #expect(UserError.alreadyExists("alice").description == "a user named 'alice' already exists")
        #expect(throws: UserError.invalidName("it is empty")) { try database.addUser(named: "   ") }
    }

    @Test func aDryRunReportsButWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let dry = try DiscogsImporter(database: database).importFile(at: sample, options: ImportOptions(dryRun: true))
        #expect(try TableCounts(database) == .empty)
        let real = try DiscogsImporter(database: database).importFile(at: sample)
        #expect(dry.dryRun && !real.dryRun)
        #expect(dry.copiesAdded == real.copiesAdded && dry.albumsAdded == real.albumsAdded && dry.crates == real.crates)
    }

    /// Collection columns are found by name whatever their case, as every column is: `collection
    /// notes` is the notes, not a custom field, and `collection purchased at` keeps its values.
    @Test func collectionColumnsMatchWhateverTheirCase() throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOfFile: sample, encoding: .utf8)
        let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let header = lines[0].replacingOccurrences(of: "Collection Notes", with: "collection notes")
            .replacingOccurrences(of: "Collection Media Condition", with: "COLLECTION MEDIA CONDITION")
            .replacingOccurrences(of: "Collection Purchased At", with: "collection Purchased At")
        #expect(header != String(lines[0]))
        let changed = try directory.write("cased.csv", header + "\n" + lines[1])
        let asWritten = try directory.database("as-written.sqlite")
        let cased = try directory.database("cased.sqlite")
        let expected = try DiscogsImporter(database: asWritten).importFile(at: sample)
        let summary = try DiscogsImporter(database: cased).importFile(at: changed)
        #expect(summary.customFields == ["Purchased At"])
        #expect(summary.copiesAdded == expected.copiesAdded)
        let copies = { (database: AppDatabase) in
            try database.reader.read { db in
                try Row.fetchAll(db, sql: "SELECT notes, media_condition, custom_fields FROM collection_item ORDER BY id").map { "\($0)" }
            }
        }
        #expect(try copies(cased) == copies(asWritten))
    }

    @Test func byteOrderMarkAndLineEndingsDoNotMatter() throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOfFile: sample, encoding: .utf8)
        let crlf = try directory.write("crlf.csv", text.replacingOccurrences(of: "\n", with: "\r\n"))
        var bomBytes = Data([0xEF, 0xBB, 0xBF])
        bomBytes.append(Data(text.utf8))
        let bom = try directory.write("bom.csv", bytes: bomBytes)
        let lfSummary = try DiscogsImporter(database: directory.database("lf.sqlite")).importFile(at: sample)
        for path in [crlf, bom] {
            let database = try directory.database(UUID().uuidString + ".sqlite")
            var summary = try DiscogsImporter(database: database).importFile(at: path)
            summary.file = lfSummary.file
            #expect(summary == lfSummary)
            let notes = try database.reader.read { db in try String.fetchOne(db, sql: "SELECT notes FROM collection_item WHERE notes LIKE 'Sleeve%'") }
            // Line breaks inside a quoted field are kept as they were written.
            #expect(notes?.hasPrefix("Sleeve has ring wear.") == true)
        }
    }
}
