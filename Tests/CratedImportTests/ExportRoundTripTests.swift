@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// `DiscogsExportWriter`: a collection exported as a Discogs CSV and imported into an empty database
/// is the same collection.
@Suite struct ExportRoundTripTests {
    /// The real exports in ../shared/fixtures/discogs and the project's own sample.
    static let exports: [String] = [
        "gustw-vinyl-collection_collection.csv",
        "mouse-reeve-record-catalogue_collection.csv",
        "conorparnell-TapeShelf_discogs-collection_EXCERPT.csv",
        "own:sample-collection.csv",
    ]

    static func path(of export: String) -> String? {
        export.hasPrefix("own:") ? Paths.ownFixture(String(export.dropFirst(4))) : Paths.sharedFixture(export)
    }

    /// Exports `user`'s collection of `database` to a file in `directory` and returns its path.
    static func exportCSV(_ database: AppDatabase, user: String = "collector", in directory: TemporaryDirectory) throws -> String {
        let path = directory.path("export-\(UUID().uuidString).csv")
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        _ = try database.withCollectionExport(userName: user) { try DiscogsExportWriter.write($0, to: BufferedOutput(handle: handle)) }
        return path
    }

    @Test(arguments: exports)
    func anExportImportedIntoAnEmptyDatabaseIsTheSameDatabase(export: String) throws {
        guard let original = Self.path(of: export) else { return }
        let directory = try TemporaryDirectory()
        let first = try directory.database("first.sqlite")
        _ = try DiscogsImporter(database: first).importFile(at: original)
        let exported = try Self.exportCSV(first, in: directory)
        let second = try directory.database("second.sqlite")
        let summary = try DiscogsImporter(database: second).importFile(at: exported)
        #expect(summary.skipped.isEmpty)

        #expect(try CollectionFacts(second) == CollectionFacts(first))
        // Row for row, ids included: the export lists copies in the order the file had them.
        // Each import's record names the file it read, here the original and the export.
        let (before, after) = (try DatabaseContents(first).without("import_run"), try DatabaseContents(second).without("import_run"))
        #expect(after == before, "tables that differ: \(after.differences(from: before))")
        // And exporting the copy gives the same file again.
        #expect(try String(contentsOfFile: Self.exportCSV(second, in: directory), encoding: .utf8)
                == String(contentsOfFile: exported, encoding: .utf8))
    }

    /// Edits made after the import (through the API's repository calls) travel too: a rating, a
    /// cleared condition, notes with quotes and line breaks, a new custom field, a crate reordered, a
    /// copy moved to another crate.
    @Test func editsAndCrateOrderSurviveTheRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        let first = try directory.database("first.sqlite")
        _ = try DiscogsImporter(database: first).importFile(at: Paths.ownFixture("sample-collection.csv"))
        let user = try #require(try first.user(named: "collector"))
        let crates = try first.crates(userId: user.id!)
        let jazz = try #require(crates.first { $0.crate.name == "Jazz" }).crate
        let page = try first.crateContents(id: jazz.id!, userId: user.id!)
        let jazzCopies = page.entries.map(\.copy.id!)
        #expect(jazzCopies.count >= 3)
        try await first.reorderCrate(id: jazz.id!, userId: user.id!, copyIds: jazzCopies.reversed())
        let changes = CopyChanges(rating: .some(2), mediaCondition: .some(nil), notes: .some("Bought at \"Honest Jon's\", 2024\nplays fine"),
                                  customFields: ["Purchased At": "Honest Jon's", "Matrix": "XSM-1234, side A"])
        _ = try await first.updateCopy(id: jazzCopies[1], userId: user.id!, changes: changes)
        let newCrate = try await first.createCrate(userId: user.id!, name: "Trade pile, later")
        let uncategorized = try first.copies(ofUser: user.id!).map(\.id!).filter { id in
            try first.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM crate_item WHERE item_id = ?", arguments: [id])! } == 0
        }
        _ = try await first.addToCrate(id: newCrate.id!, userId: user.id!, copyIds: [uncategorized[0]])

        let second = try directory.database("second.sqlite")
        _ = try DiscogsImporter(database: second).importFile(at: Self.exportCSV(first, in: directory))
        let (before, after) = (try CollectionFacts(first), try CollectionFacts(second))
        #expect(after == before)
        #expect(after.crates["Jazz"] == before.crates["Jazz"])
        #expect(after.crates["Trade pile, later"]?.count == 1)
        #expect(after.copies.values.contains { $0.contains("Matrix") && $0.contains("Honest Jon") })
    }

    /// Names that differ only in case, on different copies, are one column, as the import reads
    /// columns: before, the export wrote `Collection Color` and `Collection color`, which its own
    /// import refused as one column named twice.
    @Test func fieldNamesThatDifferOnlyInCaseShareAColumn() async throws {
        let directory = try TemporaryDirectory()
        let first = try directory.database("first.sqlite")
        _ = try DiscogsImporter(database: first).importFile(at: Paths.ownFixture("sample-collection.csv"))
        let user = try #require(try first.user(named: "collector"))
        let plain = try first.copies(ofUser: user.id!).filter { $0.customFields == "{}" }.map(\.id!)
        _ = try await first.updateCopy(id: plain[0], userId: user.id!, changes: CopyChanges(customFields: ["Color": "Red"]))
        _ = try await first.updateCopy(id: plain[1], userId: user.id!, changes: CopyChanges(customFields: ["color": "blue"]))

        let exported = try Self.exportCSV(first, in: directory)
        let header = try #require(try String(contentsOfFile: exported, encoding: .utf8).split(separator: "\n").first)
        #expect(header.components(separatedBy: "Collection Color").count == 2, "\(header)")
        #expect(!header.contains("Collection color"), "\(header)")
        let second = try directory.database("second.sqlite")
        let summary = try DiscogsImporter(database: second).importFile(at: exported)
        #expect(Set(summary.customFields) == ["Purchased At", "Color"])
        let values = try await second.reader.read { db in
            try String.fetchAll(db, sql: "SELECT custom_fields FROM collection_item WHERE custom_fields LIKE '%Color%' ORDER BY id")
        }
        #expect(values == [#"{"Color":"Red"}"#, #"{"Color":"blue"}"#])
    }

    @Test func catalogueNumbersAreWrittenSoThatTheImportPairsThemTheSameWay() {
        func cell(_ labels: [(String, String?)]) -> String {
            DiscogsExportWriter.catalogNumbers(labels.map { ExportedLabel(name: $0.0, catalogNumber: $0.1) })
        }
        #expect(cell([]) == "")
        #expect(cell([("A", nil)]) == "none")
        #expect(cell([("A", "X 1"), ("B", nil)]) == "X 1, none")
        // The import gave both labels the whole cell, which did not pair: written once, it again does not.
        #expect(cell([("A", "X, Y, Z"), ("B", "X, Y, Z")]) == "X, Y, Z")
        let cases: [[(String, String?)]] = [[("A", "X, Y, Z"), ("B", "X, Y, Z")], [("A", "X"), ("B", nil)], [("A", nil), ("B", nil), ("C", nil)], [("A", "Q")]]
        for labels in cases {
            let names = labels.map(\.0).joined(separator: ", ")
            let read = DiscogsText.labels(label: names, catalogNumbers: cell(labels))
            #expect(read.map(\.name) == labels.map(\.0))
            #expect(read.map(\.catalogNumber) == labels.map(\.1))
        }
    }

    @Test func fieldsAreQuotedAsTheReaderReadsThem() throws {
        let awkward = ["plain", "a, comma", "say \"hi\"", "two\nlines", "crlf\r\nline", "", " spaced "]
        let directory = try TemporaryDirectory()
        let path = try directory.write("q.csv", awkward.map(DiscogsExportWriter.quoted).joined(separator: ",") + "\n")
        let reader = try CSVReader(handle: FileHandle(forReadingAtPath: path)!)
        #expect(try reader.next()?.fields == awkward)
    }

    @Test func anUnknownUserIsNamedWithTheUsersThereAre() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: Paths.ownFixture("sample-collection.csv"))
        #expect(throws: ExportError.noSuchUser(name: "nobody", known: ["collector"])) {
            try database.withCollectionExport(userName: "nobody") { _ in }
        }
    }
}

/// What a collection is, read with SQL of this test's own: each copy by (release, date added,
/// ordinal) with its album's export fields and its own, and each crate's copies in order.
struct CollectionFacts: Equatable {
    var copies: [String: String] = [:]
    var crates: [String: [String]] = [:]

    init(_ database: AppDatabase, user: String = "collector") throws {
        try database.reader.read { db in
            let key = "album.discogs_release_id || ' ' || collection_item.date_added || ' #' || collection_item.copy_ordinal"
            for row in try Row.fetchAll(db, sql: """
                SELECT \(key) AS key, album.title, album.artist_credit, album.year, album.format_summary,
                       (SELECT group_concat(name || '=' || ifnull(catalog_number, '-'), '; ') FROM
                            (SELECT * FROM album_label WHERE album_id = album.id ORDER BY position)) AS labels,
                       (SELECT group_concat(discogs_name, '; ') FROM artist JOIN album_artist ON artist_id = artist.id
                            WHERE album_id = album.id) AS artists,
                       collection_item.rating, collection_item.media_condition, collection_item.sleeve_condition,
                       collection_item.notes,
                       (SELECT json_group_object(key, value) FROM
                            (SELECT key, value FROM json_each(collection_item.custom_fields) ORDER BY key)) AS custom_fields,
                       (SELECT group_concat(crate.name, '; ') FROM crate_item JOIN crate ON crate.id = crate_id
                            WHERE item_id = collection_item.id) AS crates
                FROM collection_item JOIN album ON album.id = album_id JOIN user ON user.id = user_id
                WHERE user.name = ?
                """, arguments: [user]) {
                copies[row["key"]] = row.description
            }
            for crate in try Row.fetchAll(db, sql: "SELECT crate.id, crate.name FROM crate JOIN user ON user.id = user_id WHERE user.name = ?", arguments: [user]) {
                crates[crate["name"]] = try String.fetchAll(db, sql: """
                    SELECT \(key) FROM crate_item JOIN collection_item ON collection_item.id = item_id JOIN album ON album.id = album_id
                    WHERE crate_id = ? ORDER BY crate_item.position, crate_item.item_id
                    """, arguments: [crate["id"]])
            }
        }
    }
}

/// What an export says it wrote is what is in the file.
@Suite struct ExportSummaryTests {
    /// A CSV holds crates only as the folders of its copies: an empty crate is not counted.
    @Test func aCSVCountsTheFoldersItsCopiesName() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        _ = try DiscogsImporter(database: database).importFile(at: Paths.ownFixture("sample-collection.csv"))
        let user = try #require(try database.user(named: "collector")).id!
        _ = try await database.createCrate(userId: user, name: "Empty for now")
        let summary = try database.withCollectionExport(userName: "collector") { export in
            try DiscogsExportWriter.write(export, to: BufferedOutput(handle: FileHandle(forWritingAtPath: "/dev/null")!))
        }
        #expect(summary.copies == 20 && summary.crates == 6)
    }

    /// A full disk is said in words, not as Foundation's error number.
    @Test func aFailedWriteSaysWhy() throws {
        let output = BufferedOutput(handle: try #require(FileHandle(forWritingAtPath: "/dev/full")))
        try output.write(String(repeating: "x", count: 100))
        #expect(throws: OutputWriteError(reason: "No space left on device")) { try output.flush() }
        #expect(OutputWriteError(reason: "No space left on device").description == "cannot write the output: No space left on device")
    }
}
