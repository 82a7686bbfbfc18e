@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// A re-import changes only what the file says: a field it has no column for keeps its stored value,
/// and a date a spreadsheet wrote back without seconds still finds its copy.
@Suite struct ImportReimportTests {
    /// A copy's date, ordinal and the fields an import writes, as one line.
    func copies(_ database: AppDatabase) throws -> [String] {
        try database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT date_added, copy_ordinal, rating, media_condition, sleeve_condition, notes, custom_fields
                FROM collection_item ORDER BY id
                """).map { row in
                (0..<row.count).map { (row[$0] as DatabaseValue).description }.joined(separator: " | ")
            }
        }
    }

    func onlyUser(_ database: AppDatabase) throws -> Int64 {
        try database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM user")! }
    }

    func firstCopy(_ database: AppDatabase) throws -> Int64 {
        try database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM collection_item")! }
    }

    @Test func aColumnTheFileLacksKeepsTheStoredValue() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        var stored: [String]
        let full = [exportHeader, exportRow(rating: "3", media: "Mint (M)", sleeve: "Generic", notes: "bought in Leeds", purchasedAt: "Rough Trade")]
        _ = try importer.importFile(at: directory.write("full.csv", full.joined(separator: "\n") + "\n"))
        _ = try await database.updateCopy(id: firstCopy(database), userId: onlyUser(database),
                                          changes: CopyChanges(customFields: ["Purchased At": "Rough Trade", "Signed": "yes"]))
        // No rating, conditions or notes, and one of the copy's two custom fields.
        let sparseHeader = "Catalog#,Artist,Title,Label,Format,Released,release_id,CollectionFolder,Date Added,Collection Purchased At"
        let sparse = try directory.write("sparse.csv", sparseHeader + "\nCAT 1,Artist,Title,Label,LP,1999,100,Uncategorized,2020-01-01 10:00:00,Bandcamp\n")

        let dryRun = try importer.importFile(at: sparse, options: ImportOptions(dryRun: true))
        #expect(dryRun.copiesUpdated == 1 && dryRun.copiesUnchanged == 0)
        let summary = try importer.importFile(at: sparse)
        #expect(summary.copiesAdded == 0 && summary.copiesUpdated == 1)
        stored = try copies(database)
        #expect(stored == [
            #""2020-01-01T10:00:00Z" | 0 | 3 | "Mint (M)" | "Generic" | "bought in Leeds" | "{\"Purchased At\":\"Bandcamp\",\"Signed\":\"yes\"}""#,
        ])
        // Nothing is left to change, and the counts say so, dry run or not.
        let again = try importer.importFile(at: sparse, options: ImportOptions(dryRun: true))
        #expect(again.copiesUpdated == 0 && again.copiesUnchanged == 1)
        #expect(try importer.importFile(at: sparse).copiesUpdated == 0)

        // An empty cell of a column the file has still clears the field.
        let emptied = try directory.write("emptied.csv", sparseHeader + "\nCAT 1,Artist,Title,Label,LP,1999,100,Uncategorized,2020-01-01 10:00:00,\n")
        #expect(try importer.importFile(at: emptied).copiesUpdated == 1)
        stored = try copies(database)
        #expect(stored == [
            #""2020-01-01T10:00:00Z" | 0 | 3 | "Mint (M)" | "Generic" | "bought in Leeds" | "{\"Signed\":\"yes\"}""#,
        ])
        // And the full export is still the word on every column it has.
        #expect(try importer.importFile(at: directory.write("full.csv", full.joined(separator: "\n") + "\n")).copiesUpdated == 1)
        stored = try copies(database)
        #expect(stored == [
            #""2020-01-01T10:00:00Z" | 0 | 3 | "Mint (M)" | "Generic" | "bought in Leeds" | "{\"Purchased At\":\"Rough Trade\",\"Signed\":\"yes\"}""#,
        ])
    }

    /// The review's case: this export has notes but no condition columns.
    @Test(.needsSharedFixtures) func aRealExportWithoutConditionColumnsKeepsTheConditionAndTheNote() async throws {
        let tapeShelf = try #require(Paths.sharedFixture("conorparnell-TapeShelf_discogs-collection_EXCERPT.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let first = try importer.importFile(at: tapeShelf)
        let copy = try firstCopy(database)
        _ = try await database.updateCopy(id: copy, userId: onlyUser(database),
                                          changes: CopyChanges(mediaCondition: .some("Mint (M)"), notes: .some("signed copy")))

        // The file has no condition to say, and its empty notes cell is what Discogs gave before the
        // note was written in crated: both edits stay.
        let summary = try importer.importFile(at: tapeShelf)
        #expect(summary.copiesUpdated == 0 && summary.copiesUnchanged == first.copiesAdded && summary.editsKept == 0)
        let stored = try database.reader.read { db in
            try Row.fetchOne(db, sql: "SELECT media_condition, notes FROM collection_item WHERE id = ?", arguments: [copy])!
        }
        #expect(stored["media_condition"] as String? == "Mint (M)" && stored["notes"] as String? == "signed copy")
        #expect(try importer.importFile(at: tapeShelf).copiesUpdated == 0)
    }

    /// Excel writes `2020-11-18 19:17:05` back as `18/11/2020 19:17`.
    static func asExcelWritesIt(_ text: String) throws -> String {
        let date = try Regex(#"(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):\d{2}"#)
        return text.replacing(date) { match in
            let part = { (index: Int) in String(match.output[index].substring!) }
            return "\(part(3))/\(part(2))/\(part(1)) \(part(4)):\(part(5))"
        }
    }

    @Test(.needsSharedFixtures) func aFileReSavedWithoutSecondsFindsEveryCopy() throws {
        let gustw = try #require(Paths.sharedFixture("gustw-vinyl-collection_collection.csv"))
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let first = try importer.importFile(at: gustw)
        let before = try copies(database)
        let resaved = try directory.write("resaved.csv", Self.asExcelWritesIt(String(contentsOfFile: gustw, encoding: .utf8)))
        #expect(try String(contentsOfFile: resaved, encoding: .utf8).contains(",18/11/2020 19:17,"))

        let dryRun = try importer.importFile(at: resaved, options: ImportOptions(dryRun: true))
        #expect(dryRun.copiesAdded == 0 && dryRun.copiesUpdated == 0 && dryRun.copiesUnchanged == first.copiesAdded)
        let summary = try importer.importFile(at: resaved)
        #expect(summary.copiesAdded == 0 && summary.copiesUpdated == 0 && summary.copiesUnchanged == first.copiesAdded)
        // The stored dates keep their seconds.
        #expect(try copies(database) == before)
    }

    @Test func copiesOfOneAlbumInOneMinuteAreMatchedEarliestFirst() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let precise = [
            exportHeader,
            exportRow(dateAdded: "2020-11-18 19:17:40", notes: "second"),
            exportRow(dateAdded: "2020-11-18 19:17:05", notes: "first"),
            exportRow(dateAdded: "2020-11-19 08:00:12", notes: "next day"),
        ]
        _ = try importer.importFile(at: directory.write("precise.csv", precise.joined(separator: "\n") + "\n"))
        // The same minute three times: the two copies in it, earliest first, then a new one.
        let resaved = [
            exportHeader,
            exportRow(dateAdded: "18/11/2020 19:17", notes: "first"),
            exportRow(dateAdded: "18/11/2020 19:17", notes: "second and signed"),
            exportRow(dateAdded: "18/11/2020 19:17", notes: "third"),
            exportRow(dateAdded: "19/11/2020 08:00", notes: "next day"),
        ]
        let path = try directory.write("resaved.csv", resaved.joined(separator: "\n") + "\n")
        let summary = try importer.importFile(at: path)
        #expect(summary.copiesAdded == 1 && summary.copiesUpdated == 1 && summary.copiesUnchanged == 2)
        let expected = [
            #""2020-11-18T19:17:40Z" | 0 | NULL | NULL | NULL | "second and signed" | "{}""#,
            #""2020-11-18T19:17:05Z" | 0 | NULL | NULL | NULL | "first" | "{}""#,
            #""2020-11-19T08:00:12Z" | 0 | NULL | NULL | NULL | "next day" | "{}""#,
            // The third row of its minute, as the reading numbers it.
            #""2020-11-18T19:17:00Z" | 2 | NULL | NULL | NULL | "third" | "{}""#,
        ]
        #expect(try copies(database) == expected)
        // Again: the new copy is found at its own date and ordinal, the others as before.
        let again = try importer.importFile(at: path)
        #expect(again.copiesAdded == 0 && again.copiesUpdated == 0 && again.copiesUnchanged == 4)
        // Dates without a time match within their day the same way: earliest first, which is now the
        // copy added on the minute.
        let dayOnly = resaved.map { $0.replacingOccurrences(of: " 19:17,", with: ",").replacingOccurrences(of: " 08:00,", with: ",") }
        #expect(dayOnly[1].contains(",18/11/2020,"))
        let byDay = try importer.importFile(at: directory.write("day-only.csv", dayOnly.joined(separator: "\n") + "\n"))
        #expect(byDay.copiesAdded == 0 && byDay.copiesUpdated == 3 && byDay.copiesUnchanged == 1)
        let stored = try copies(database)
        #expect(stored == [
            #""2020-11-18T19:17:40Z" | 0 | NULL | NULL | NULL | "third" | "{}""#,
            #""2020-11-18T19:17:05Z" | 0 | NULL | NULL | NULL | "second and signed" | "{}""#,
            #""2020-11-19T08:00:12Z" | 0 | NULL | NULL | NULL | "next day" | "{}""#,
            #""2020-11-18T19:17:00Z" | 2 | NULL | NULL | NULL | "first" | "{}""#,
        ])
    }
}

/// An import gives its copies ids after the largest ever given: a copy deleted from the end of the
/// collection does not hand its id, which a client may still hold, to the next copy imported.
@Suite struct ImportCopyIdTests {
    @Test func aDeletedCopysIdIsNotGivenAgain() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let first = [exportHeader, exportRow(releaseId: "100"), exportRow(title: "Second", releaseId: "101")]
        _ = try importer.importFile(at: directory.write("first.csv", first.joined(separator: "\n") + "\n"))
        let (user, last) = try database.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user")!, try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM collection_item")!)
        }
        try await database.removeCopy(id: last, userId: user)

        let third = [exportHeader, exportRow(title: "Third", releaseId: "102", dateAdded: "2021-01-01 10:00:00")]
        #expect(try importer.importFile(at: directory.write("third.csv", third.joined(separator: "\n") + "\n")).copiesAdded == 1)
        let ids = try database.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM collection_item ORDER BY id") }
        #expect(ids.count == 2)
        #expect(ids.last! > last)
    }

    /// A database made before migration 0024 takes an import, in bulk or row by row, once
    /// migrated, numbering after the copies it held.
    @Test(arguments: [ImportWriteMode.bulk, .incremental])
    func aDatabaseMigratedTo0024TakesAnImportAtOnce(mode: ImportWriteMode) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("crated.sqlite")
        let old = try AppDatabase.open(path: path, migrations: Migration.embedded(before: "0024"))
        _ = try DiscogsImporter(database: old).importFile(at: directory.write("first.csv", [exportHeader, exportRow()].joined(separator: "\n") + "\n"))
        try old.writer.close()

        let migrated = try AppDatabase.open(path: path)
        let second = [exportHeader, exportRow(title: "Second", releaseId: "101")]
        var options = ImportOptions()
        options.writeMode = mode
        let summary = try DiscogsImporter(database: migrated).importFile(at: directory.write("second.csv", second.joined(separator: "\n") + "\n"), options: options)
        #expect(summary.copiesAdded == 1)
        #expect(try migrated.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM collection_item ORDER BY id") } == [1, 2])
    }
}
