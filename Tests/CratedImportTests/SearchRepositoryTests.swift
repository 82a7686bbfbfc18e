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

    /// One letter is answered from the title index: the user's albums whose titles start with it, in
    /// title order (a leading article and accents aside); fewer than asked for are followed by the
    /// other matches, best first.
    @Test func oneLetterFindsTitlesStartingWithIt() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let importer = DiscogsImporter(database: database)
        let titles = ["Blue Train", "Bitches Brew", "The Black Saint", "Élan Vital", "Abbey Road", "Kind Of Blue", "Boxed B", "Exotica"]
        let rows = [exportHeader] + titles.enumerated().map { exportRow(artist: "Artist \($0.offset)", title: $0.element, releaseId: "\(100 + $0.offset)") }
        _ = try importer.importFile(at: directory.write("mine.csv", rows.joined(separator: "\n")), options: ImportOptions(userName: "ann"))
        let others = [exportHeader, exportRow(artist: "Someone Else", title: "Bob's Best", releaseId: "999")]
        _ = try importer.importFile(at: directory.write("others.csv", others.joined(separator: "\n")), options: ImportOptions(userName: "bob"))
        let ann = try #require(try database.user(named: "ann")).id!
        #expect(try database.searchAlbums(userId: ann, text: "b", limit: 10).map(\.title)
                == ["Bitches Brew", "The Black Saint", "Blue Train", "Boxed B", "Kind Of Blue"])
        #expect(try database.searchAlbums(userId: ann, text: " B ", limit: 2).map(\.title) == ["Bitches Brew", "The Black Saint"])
        #expect(try database.searchAlbums(userId: ann, text: "É", limit: 10).map(\.title) == ["Élan Vital", "Exotica"])
        #expect(SearchText.soleInitial("bl") == nil)
        #expect(SearchText.soleInitial("a b") == nil)
        #expect(SearchText.soleInitial("Ä") == "a")
        #expect(SearchText.soleInitial("Æ") == "ae")
    }

    /// A letter that keys spell out (`æ` as `ae`, `ø` as `o`, `þ` as `th`) finds the titles that
    /// start with it first, where the key puts them: with the titles that start so spelled.
    @Test func oneSpelledOutLetterFindsTitlesStartingWithIt() throws {
        let library = try TitlesLibrary(["Ægte Vare", "Aerial", "Øresund", "Ostara", "Þursaflokkurinn", "Thriller", "Kind Of Blue", "Abbey Road"])
        let search = library.search
        let ae = try search("æ")
        #expect(Array(ae.prefix(2)) == ["Ægte Vare", "Aerial"], "\(ae)")
        #expect(Array(try search("Ø").prefix(2)) == ["Øresund", "Ostara"])
        #expect(Array(try search("þ").prefix(2)) == ["Thriller", "Þursaflokkurinn"])
    }

    /// One digit finds the titles whose first number starts with it, by value, though the title
    /// index writes each number behind its length: `2` is not every title of a two-digit number.
    @Test func oneDigitFindsTitlesStartingWithIt() throws {
        let library = try TitlesLibrary(["10 Years Of Global Aura", "18 & Over / Shine Eyes Girl", "19/2000", "2 Short / Blast1", "200 Motels",
                                         "The 2nd Album", "Kind Of Blue", "0 Degrees", "007 Theme", "100 Years Of Theremin", "Album 3"])
        let search = library.search

        // Titles that start with the digit come first, by value; then the other matches.
        let two = try search("2")
        #expect(Array(two.prefix(3)) == ["2 Short / Blast1", "The 2nd Album", "200 Motels"], "\(two)")
        #expect(Set(two.dropFirst(3)) == ["19/2000"], "\(two)")
        let one = try search("1")
        #expect(Array(one.prefix(4)) == ["10 Years Of Global Aura", "18 & Over / Shine Eyes Girl", "19/2000", "100 Years Of Theremin"], "\(one)")
        #expect(!one.contains("2 Short / Blast1"), "Blast1 is one word, which 1 does not start: \(one)")
        #expect(try search("3") == ["Album 3"])
        #expect(try search("0").first == "0 Degrees")
        // A number written with leading zeros starts with 0, not with its value's first digit; the
        // full-text search does not find `007` for `7` either.
        #expect(try search("7").isEmpty)
    }
}

/// One user's collection of these titles, each by an artist of its own and with no digit elsewhere in
/// its row, so that what a search finds is the titles' own doing.
struct TitlesLibrary {
    let directory: TemporaryDirectory
    let database: AppDatabase
    let userId: Int64

    init(_ titles: [String]) throws {
        directory = try TemporaryDirectory()
        database = try directory.database()
        let rows = [exportHeader] + titles.enumerated().map {
            exportRow(catalog: "none", artist: "Artist " + String(UnicodeScalar(65 + UInt8($0.offset))), title: $0.element, released: "",
                      releaseId: "\(100 + $0.offset)")
        }
        _ = try DiscogsImporter(database: database).importFile(at: directory.write("mine.csv", rows.joined(separator: "\n")),
                                                                options: ImportOptions(userName: "ann"))
        userId = try #require(try database.user(named: "ann")).id!
    }

    /// The titles a search finds, best first.
    func search(_ text: String) throws -> [String] {
        try database.searchAlbums(userId: userId, text: text, limit: 20).map(\.title)
    }
}
