@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

@Suite struct SearchRepositoryTests {
    /// Other users' better matches fill the first candidates: the search still finds the user's own.
    @Test func searchFindsTheUsersAlbumsBehindOtherUsersBetterMatches() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let others = [exportHeader] + (1...10).map { exportRow(title: "Blue Blue Blue \($0)", releaseId: "\(900 + $0)") }
        _ = try importer.importFile(at: directory.write("others.csv", others.joined(separator: "\n")), options: ImportOptions(userName: "bob"))
        let mine = [exportHeader, exportRow(artist: "Someone", title: "A Long Title With Blue Somewhere In It", releaseId: "42")]
        _ = try importer.importFile(at: directory.write("mine.csv", mine.joined(separator: "\n")), options: ImportOptions(userName: "ann"))
        let ann = try #require(try database.user(named: "ann"))
        let found = try database.searchAlbums(userId: ann.id!, text: "blue", limit: 1)
        #expect(found.map(\.title) == ["A Long Title With Blue Somewhere In It"])
        let bob = try #require(try database.user(named: "bob"))
        #expect(try database.searchAlbums(userId: bob.id!, text: "blue", limit: 50).count == 10)
    }
}
