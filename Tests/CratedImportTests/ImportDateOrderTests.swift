@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// A file's slashed dates are all in one order, day or month first, decided for the whole file by
/// the dates that allow only one, or by the command's option when none does.
@Suite struct ImportDateOrderTests {
    /// Imports rows with these dates added (one release each, in order) and returns the dates stored.
    func storedDates(_ dates: [String], order: SlashedDateOrder? = nil, read: SlashedDatesRead? = nil) throws -> [String] {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let rows = dates.enumerated().map { exportRow(releaseId: String($0.offset + 1), dateAdded: $0.element) }
        let summary = try DiscogsImporter(database: database).importFile(at: directory.write("dates.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n"),
                                                                         options: ImportOptions(slashedDateOrder: order))
        #expect(summary.slashedDates == read)
        return try database.reader.read { db in
            try String.fetchAll(db, sql: "SELECT date_added FROM collection_item JOIN album ON album.id = album_id ORDER BY discogs_release_id")
        }
    }

    @Test func oneDateThatCanOnlyBeMonthFirstMakesTheFileMonthFirst() throws {
        // The month-first date comes last: it decides for the rows before it too.
        #expect(try storedDates(["2021-01-01 09:00:00", "03/04/2021 10:00", "12/01/2021 10:00", "03/25/2021 10:00"],
                                read: SlashedDatesRead(order: .monthFirst, decidedBy: .file))
            == ["2021-01-01T09:00:00Z", "2021-03-04T10:00:00Z", "2021-12-01T10:00:00Z", "2021-03-25T10:00:00Z"])
        // The option agreeing with the file changes nothing.
        #expect(try storedDates(["03/04/2021 10:00", "03/25/2021 10:00"], order: .monthFirst, read: SlashedDatesRead(order: .monthFirst, decidedBy: .option))
            == ["2021-03-04T10:00:00Z", "2021-03-25T10:00:00Z"])
    }

    @Test func oneDateThatCanOnlyBeDayFirstMakesTheFileDayFirst() throws {
        #expect(try storedDates(["03/04/2021 10:00", "25/03/2021 10:00", "12/01/2021"], read: SlashedDatesRead(order: .dayFirst, decidedBy: .file))
            == ["2021-04-03T10:00:00Z", "2021-03-25T10:00:00Z", "2021-01-12T00:00:00Z"])
    }

    /// A file whose every slashed date allows both orders is refused unless told which: read the
    /// wrong way, its copies would be misdated, and imported again the right way, added twice.
    @Test func datesThatAllowBothOrdersAreReadAsTheOptionSays() throws {
        let dates = ["2021-01-01 09:00:00", "03/04/2021 10:00", "12/01/2021 10:00"]
        #expect(throws: ImportError.slashedDateOrderUnknown(line: 3, date: "03/04/2021 10:00")) { try storedDates(dates) }
        #expect(ImportError.slashedDateOrderUnknown(line: 3, date: "03/04/2021 10:00").description
                == "every Date Added in the file could be day or month first (line 3: 03/04/2021 10:00), and nothing in it says which; "
                + "import it with --day-first or --month-first (a spreadsheet in the US writes the month first); nothing was imported")
        #expect(try storedDates(dates, order: .dayFirst, read: SlashedDatesRead(order: .dayFirst, decidedBy: .option))
                == ["2021-01-01T09:00:00Z", "2021-04-03T10:00:00Z", "2021-01-12T10:00:00Z"])
        #expect(try storedDates(dates, order: .monthFirst, read: SlashedDatesRead(order: .monthFirst, decidedBy: .option))
                == ["2021-01-01T09:00:00Z", "2021-03-04T10:00:00Z", "2021-12-01T10:00:00Z"])
        // A file without slashed dates needs no option, and says nothing of them.
        #expect(try storedDates(["2021-01-01 09:00:00"], read: nil) == ["2021-01-01T09:00:00Z"])
    }

    /// A slashed date that is no date either way is that row's problem, named as such.
    @Test func aSlashedDateThatIsNoDateIsTheRowsProblem() throws {
        #expect {
            try storedDates(["13/13/2021 10:00"])
        } throws: { error in
            guard case ImportError.invalidRows(let problems, _) = error else { return false }
            return problems.first?.line == 2 && problems.first?.columnName == "Date Added"
        }
    }

    @Test func anOptionTheFileContradictsIsRefused() throws {
        #expect(throws: ImportError.slashedDateOrderContradicted(.monthFirst, line: 3, date: "25/03/2021 10:00")) {
            try storedDates(["03/04/2021 10:00", "25/03/2021 10:00"], order: .monthFirst)
        }
        #expect(throws: ImportError.slashedDateOrderContradicted(.dayFirst, line: 2, date: "03/25/2021 10:00")) {
            try storedDates(["03/25/2021 10:00"], order: .dayFirst)
        }
        #expect(ImportError.slashedDateOrderContradicted(.dayFirst, line: 2, date: "03/25/2021 10:00").description
                == "the Date Added on line 2 (03/25/2021 10:00) can only be month first, so the file's dates are not day first as --day-first says; nothing was imported")
    }

    @Test func aFileWithBothOrdersIsRefusedNamingARowOfEach() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let rows = ["03/04/2021 10:00", "03/25/2021 10:00", "04/26/2021 10:00", "25/03/2021 10:00"].enumerated().map {
            exportRow(releaseId: String($0.offset + 1), dateAdded: $0.element)
        }
        let path = try directory.write("mixed.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
        let expected = ImportError.slashedDatesInBothOrders(monthFirstLine: 3, monthFirstDate: "03/25/2021 10:00",
                                                            dayFirstLine: 5, dayFirstDate: "25/03/2021 10:00")
        #expect(throws: expected) { try DiscogsImporter(database: database).importFile(at: path) }
        #expect(throws: expected) { try DiscogsImporter(database: database).importFile(at: path, options: ImportOptions(skipInvalid: true)) }
        #expect(expected.description.contains("line 3 (03/25/2021 10:00)") && expected.description.contains("line 5 (25/03/2021 10:00)"))
        #expect(try TableCounts(database) == .empty)
    }
}
