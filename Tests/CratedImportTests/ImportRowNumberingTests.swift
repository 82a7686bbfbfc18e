@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// The reading thread numbers the copies of a release by date added (`ImportRowStream.ReleaseSeen`):
/// the nth row with the same release and date added is copy n, however the rows interleave.
@Suite struct ImportRowNumberingTests {
    @Test func copyOrdinalsCountRowsWithTheSameReleaseAndDateAdded() {
        struct Key: Hashable { var release: Int64; var date: Int64 }
        var generator = SeededGenerator(seed: 10)
        var releases: [Int64: ImportRowStream.ReleaseSeen] = [:]
        var expected: [Key: Int] = [:]
        for _ in 0..<20_000 {
            let key = Key(release: Int64.random(in: 1...300, using: &generator), date: Int64.random(in: 1...4, using: &generator))
            let ordinal: Int
            if releases[key.release] == nil {
                releases[key.release] = ImportRowStream.ReleaseSeen(number: releases.count, firstDateAdded: key.date)
                ordinal = 0
            } else {
                ordinal = releases[key.release]!.nextOrdinal(dateAdded: key.date)
            }
            #expect(ordinal == expected[key, default: 0])
            expected[key, default: 0] += 1
        }
        // Releases are numbered 0, 1, 2... in the order they first appear.
        #expect(Set(releases.values.map(\.number)) == Set(0..<releases.count))
    }

    /// Copies of one release on one date, and on others, in a real import.
    @Test func identicalRowsBecomeNumberedCopies() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let rows = [
            exportRow(releaseId: "7", dateAdded: "2020-01-01 10:00:00"), exportRow(releaseId: "8"),
            exportRow(releaseId: "7", dateAdded: "2021-01-01 10:00:00"), exportRow(releaseId: "7", dateAdded: "2020-01-01 10:00:00"),
            exportRow(releaseId: "7", dateAdded: "2021-01-01 10:00:00"), exportRow(releaseId: "7", dateAdded: "2020-01-01 10:00:00"),
        ]
        let file = try directory.write("copies.csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
        let summary = try DiscogsImporter(database: database).importFile(at: file)
        #expect(summary.copiesAdded == 6 && summary.albums == 2)
        let copies = try database.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.discogs_release_id, c.date_added, c.copy_ordinal FROM collection_item c JOIN album a ON a.id = c.album_id
                ORDER BY c.id
                """).map { "\($0[0] as Int64) \($0[1] as String) \($0[2] as Int)" }
        }
        #expect(copies == ["7 2020-01-01T10:00:00Z 0", "8 2020-01-01T10:00:00Z 0", "7 2021-01-01T10:00:00Z 0",
                           "7 2020-01-01T10:00:00Z 1", "7 2021-01-01T10:00:00Z 1", "7 2020-01-01T10:00:00Z 2"])
        #expect(try DiscogsImporter(database: database).importFile(at: file).copiesUnchanged == 6)
    }
}
