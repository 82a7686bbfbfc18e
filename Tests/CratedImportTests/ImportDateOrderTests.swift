@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// A file's slashed dates are all in one order, day or month first, decided for the whole file by
/// the dates that allow only one.
@Suite struct ImportDateOrderTests {
    /// Imports rows with these dates added (one release each, in order) and returns the dates stored.
    func storedDates(_ dates: [String]) throws -> [String] {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let rows = dates.enumerated().map { exportRow(releaseId: String($0.offset + 1), dateAdded: $0.element) }
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("dates.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n"))
        return try database.reader.read { db in
            try String.fetchAll(db, sql: "SELECT date_added FROM collection_item JOIN album ON album.id = album_id ORDER BY discogs_release_id")
        }
    }

    @Test func oneDateThatCanOnlyBeMonthFirstMakesTheFileMonthFirst() throws {
        // The month-first date comes last: it decides for the rows before it too.
        #expect(try storedDates(["2021-01-01 09:00:00", "03/04/2021 10:00", "12/01/2021 10:00", "03/25/2021 10:00"])
            == ["2021-01-01T09:00:00Z", "2021-03-04T10:00:00Z", "2021-12-01T10:00:00Z", "2021-03-25T10:00:00Z"])
    }

    @Test func oneDateThatCanOnlyBeDayFirstMakesTheFileDayFirst() throws {
        #expect(try storedDates(["03/04/2021 10:00", "25/03/2021 10:00", "12/01/2021"])
            == ["2021-04-03T10:00:00Z", "2021-03-25T10:00:00Z", "2021-01-12T00:00:00Z"])
    }

    @Test func datesThatAllowBothOrdersAreReadDayFirst() throws {
        #expect(try storedDates(["03/04/2021 10:00", "12/01/2021 10:00"]) == ["2021-04-03T10:00:00Z", "2021-01-12T10:00:00Z"])
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
