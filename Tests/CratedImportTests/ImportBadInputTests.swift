@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Every way a file can be wrong: a clear error, and nothing written.
@Suite struct ImportBadInputTests {
    /// Imports `text` into a fresh database and returns the error, checking that nothing was written.
    func failure(_ text: String, options: ImportOptions = ImportOptions()) throws -> ImportError? {
        try failure(bytes: Data(text.utf8), options: options)
    }

    func failure(bytes: Data, options: ImportOptions = ImportOptions()) throws -> ImportError? {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let path = try directory.write("input.csv", bytes: bytes)
        defer { #expect((try? TableCounts(database)) == .empty) }
        do {
            _ = try DiscogsImporter(database: database).importFile(at: path, options: options)
            return nil
        } catch let error as ImportError {
            return error
        }
    }

    @Test func missingFileAndDirectory() throws {
        let directory = try TemporaryDirectory()
        let importer = DiscogsImporter(database: try directory.database())
        #expect(throws: ImportError.fileNotFound(directory.path("nope.csv"))) { try importer.importFile(at: directory.path("nope.csv")) }
        #expect(throws: ImportError.isDirectory(directory.url.path)) { try importer.importFile(at: directory.url.path) }
        #expect(try TableCounts(importer.database) == .empty)
    }

    @Test func emptyAndHeaderOnly() throws {
        #expect(try failure("") == .emptyFile)
        #expect(try failure("\n\n") == .emptyFile)
        #expect(try failure(exportHeader + "\n") == .headerOnly)
        #expect(try failure(exportHeader) == .headerOnly)
    }

    @Test func aWantlistExportIsNamedAsOne() throws {
        let wantlist = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,Notes\nARTY 122,Patti Smith,Horses,Arista,\"LP, Album\",,1975,4619668,,2014-12-06 21:34:01\n"
        let error = try failure(wantlist)
        #expect(error == .wantlist)
        #expect(error?.description.contains("wantlist") == true)
        if let real = Paths.sharedFixture("mouse-reeve-record-catalogue_wantlist.csv") {
            #expect(try failure(bytes: Data(contentsOf: URL(fileURLWithPath: real))) == .wantlist)
        }
    }

    @Test func anUnrelatedCSVSaysWhatIsMissing() throws {
        let error = try failure("name,email\nAda,ada@example.com\n")
        guard case .notACollectionExport(let reason, _) = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(reason.contains("release_id") && reason.contains("Date Added"))
        #expect(error!.description.contains("Expected a header like"))
    }

    @Test func binaryFilesAreRefusedForWhatTheyAre() throws {
        #expect(try failure(bytes: Data([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00])) == .binary(kind: "a ZIP archive (unzip it and import the CSV inside)"))
        #expect(try failure(bytes: Data([0x1F, 0x8B, 0x08, 0x00])) == .binary(kind: "a gzip-compressed file (decompress it first)"))
        // Every byte value, NUL included, in a fixed order that starts with no known file signature.
        let noise = Data((1...2048).map { UInt8(truncatingIfNeeded: $0 * 131 + 7) })
        #expect(try failure(bytes: noise) == .binary(kind: "binary data"))
        #expect(try failure(bytes: Data([0xFF, 0xFE, 0x41, 0x00])) == .binary(kind: "UTF-16 text (save it as UTF-8)"))
    }

    /// A JSON file (a Discogs API response, crated's own JSON export) is named as JSON, not quoted
    /// as a header that lacks columns.
    @Test func jsonIsRefusedAsJSON() throws {
        let json = ImportError.binary(kind: "JSON (an API response, or crated's own `export --format json`, which does not import back)")
        #expect(try failure("\u{FEFF}  \n{\"format\": \"crated-export\", \"copies\": []}\n") == json)
        #expect(try failure("[1, 2]") == json)
        if let release = Paths.sharedFixture("go-discogs_release_8138518.json") {
            let directory = try TemporaryDirectory()
            let database = try directory.database()
            #expect(throws: json) { try DiscogsImporter(database: database).importFile(at: release) }
        }
    }

    @Test func invalidUTF8NamesLineAndColumn() throws {
        var precise = Data((exportHeader + "\n" + exportRow(releaseId: "1") + "\n").utf8)
        precise.append(Data("CAT,Artist,Title,Label,LP,,1999,2,Uncategorized,2020-01-01 10:00:00,,,caf".utf8))
        precise.append(contentsOf: [0xE9])
        precise.append(Data(",\n".utf8))
        // Windows-1252, as Excel's plain "CSV" saves it: every row with an accent would be invalid,
        // so the file is refused whole, and skipping rows is not offered.
        let error = try failure(bytes: precise)
        #expect(error == .notUTF8(line: 3, column: 13, columnName: "Collection Notes"))
        #expect(error?.description.contains("save it as \"CSV UTF-8\" or export it again from Discogs") == true)
        #expect(error?.description.contains("skip-invalid") == false)
        #expect(try failure(bytes: precise, options: ImportOptions(skipInvalid: true)) == error)
    }

    @Test func aFileSeparatedBySemicolonsOrTabsSaysSo() throws {
        let row = exportRow(releaseId: "1", dateAdded: "2020-01-01 10:00:00")
        let semicolons = try failure(exportHeader.replacingOccurrences(of: ",", with: ";") + "\n" + row.replacingOccurrences(of: ",", with: ";") + "\n")
        #expect(semicolons == .separatedBy("semicolons"))
        #expect(semicolons?.description.contains("the file is separated by semicolons") == true)
        #expect(semicolons?.description.contains("save it as comma-separated CSV (UTF-8)") == true)
        // Quoted names, as some spreadsheets write them.
        let quoted = exportHeader.split(separator: ",").map { "\"\($0)\"" }.joined(separator: "\t")
        #expect(try failure(quoted + "\n" + row.replacingOccurrences(of: ",", with: "\t") + "\n") == .separatedBy("tabs"))
        // A header that lacks the columns whatever it is split on is still not an export.
        guard case .notACollectionExport = try failure("name;email\nAda;ada@example.com\n") else { Issue.record("not refused as not an export"); return }
    }

    @Test func anUnterminatedQuoteNamesItsLine() throws {
        // The quote opened on line 3 swallows the rest of the file (no later quote closes it).
        let text = [exportHeader, exportRow(format: "LP", releaseId: "1"), exportRow(format: "LP", releaseId: "2", notes: "\"never closed"),
                    exportRow(format: "LP", releaseId: "3")].joined(separator: "\n")
        let error = try failure(text)
        #expect(error == .unterminatedQuote(line: 3))
        #expect(error?.description.hasPrefix("line 3:") == true)
    }

    /// A title of 2 MiB (or a quote that never closes in a large file) is refused at the 1 MiB limit,
    /// naming its line, before the reader holds more of it.
    @Test func aRowPastOneMebibyteIsRefused() throws {
        let text = [exportHeader, exportRow(format: "LP", releaseId: "1"),
                    exportRow(title: "\"" + String(repeating: "T", count: 2 * 1024 * 1024) + "\"", format: "LP", releaseId: "2")].joined(separator: "\n")
        let error = try failure(text)
        #expect(error == .recordTooLong(line: 3, limit: 1024 * 1024))
        #expect(error?.description.hasPrefix("line 3: the row runs past 1024 KiB") == true, "\(error?.description ?? "")")
    }

    @Test func badValuesNameLineAndColumn() throws {
        let text = [
            exportHeader,
            exportRow(releaseId: "1"),
            exportRow(releaseId: "r123"),
            exportRow(releaseId: "3", dateAdded: "last tuesday"),
            exportRow(rating: "7", releaseId: "4"),
            exportRow(released: "soon", releaseId: "5"),
            exportRow(releaseId: ""),
            exportRow(artist: "", releaseId: "7"),
            exportRow(released: "-001", releaseId: "8"),
            exportRow(released: "+999", releaseId: "9"),
        ].joined(separator: "\n")
        let error = try failure(text)
        #expect(error == .invalidRows([
            RowProblem(line: 3, column: 8, columnName: "release_id", reason: "'r123' is not a Discogs release id"),
            RowProblem(line: 4, column: 10, columnName: "Date Added", reason: "'last tuesday' is not a date (expected YYYY-MM-DD HH:MM:SS)"),
            RowProblem(line: 5, column: 6, columnName: "Rating", reason: "'7' is not a rating from 1 to 5"),
            RowProblem(line: 6, column: 7, columnName: "Released", reason: "'soon' is not a year"),
            RowProblem(line: 7, column: 8, columnName: "release_id", reason: "is empty; every row needs its Discogs release id"),
            RowProblem(line: 8, column: 2, columnName: "Artist", reason: "is empty"),
            RowProblem(line: 9, column: 7, columnName: "Released", reason: "'-001' is not a year"),
            RowProblem(line: 10, column: 7, columnName: "Released", reason: "'+999' is not a year"),
        ], total: 8))
        #expect(error!.description.contains("line 3, column 8 (release_id): 'r123' is not a Discogs release id"))
    }

    @Test func rowsWithTooFewOrTooManyFields() throws {
        let text = [exportHeader, exportRow(releaseId: "1"), "a,b,c", exportRow(releaseId: "3") + ",extra"].joined(separator: "\n")
        #expect(try failure(text) == .invalidRows([
            RowProblem(line: 3, column: nil, reason: "has 3 fields where the header has 14"),
            RowProblem(line: 4, column: nil, reason: "has 15 fields where the header has 14"),
        ], total: 2))
    }

    @Test func skipInvalidImportsTheRestAndListsWhatItSkipped() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let text = [exportHeader, exportRow(releaseId: "1"), "a,b", exportRow(releaseId: "x"), exportRow(releaseId: "4", dateAdded: "2021-05-05 05:05:05")].joined(separator: "\n")
        let summary = try DiscogsImporter(database: database).importFile(at: directory.write("in.csv", text), options: ImportOptions(skipInvalid: true))
        #expect(summary.rowsRead == 4)
        #expect(summary.copiesAdded == 2)
        #expect(summary.skipped.map(\.line) == [3, 4])
        #expect(try TableCounts(database).copies == 2)
    }

    @Test func manyProblemsAreCountedNotAllListed() throws {
        let rows = [exportHeader] + (1...50).map { exportRow(releaseId: "bad\($0)") }
        guard case .invalidRows(let listed, let total) = try failure(rows.joined(separator: "\n")) else { Issue.record("expected invalid rows"); return }
        #expect(listed.count == 20)
        #expect(total == 50)
    }

    @Test func aDatabaseLockedByAnotherWriterIsReportedAndNothingIsLost() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database(busyTimeoutMs: 50)
        let other = try DatabaseQueue(path: directory.path("crated.sqlite"))
        try other.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "INSERT INTO user (name, created_at) VALUES ('writer', '2020-01-01T00:00:00Z')")
            #expect(throws: ImportError.databaseLocked) {
                try DiscogsImporter(database: database).importFile(at: Paths.ownFixture("sample-collection.csv"))
            }
            try db.execute(sql: "COMMIT")
        }
        let counts = try TableCounts(database)
        #expect(counts.users == 1 && counts.copies == 0)
        // Once the other writer is done, the import goes through.
        #expect(try DiscogsImporter(database: database).importFile(at: Paths.ownFixture("sample-collection.csv"), options: ImportOptions(userName: "writer")).copiesAdded == 20)
    }
}
