@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// A small export and the searches that must find its albums: imported either way the import writes
/// search rows, or into a database of an older schema whose rows are then written as that schema
/// did and migrated.
struct SearchExport {
    var rows: [String]
    var searches: [(text: String, titles: [String])]

    /// A database holding the export, imported with `mode`.
    func imported(in directory: TemporaryDirectory, mode: ImportWriteMode) throws -> AppDatabase {
        let database = try directory.database()
        var options = ImportOptions()
        options.writeMode = mode
        _ = try DiscogsImporter(database: database).importFile(at: try write(in: directory), options: options)
        return database
    }

    /// A database holding the export, imported with the migrations before `migration`, its search
    /// rows then rewritten by `indexAsBefore` as that schema wrote them, and checked to fail
    /// `searchBefore` there; then opened with every migration.
    func migrated(in directory: TemporaryDirectory, before migration: String, searchBefore: String,
                  indexAsBefore: (AppDatabase) throws -> Void) throws -> AppDatabase {
        let path = directory.path("crated.sqlite")
        let before = Migration.embedded(before: migration)
        _ = try DiscogsImporter(database: try AppDatabase.open(path: path, migrations: before)).importFile(at: try write(in: directory))
        let old = try AppDatabase.open(path: path, migrations: before)
        try indexAsBefore(old)
        #expect(try !SearchSpellingTests.indexFinds(old, searchBefore), "found before \(migration)")
        return try AppDatabase.open(path: path)
    }

    func expectEverySearchFinds(_ database: AppDatabase) throws {
        let user = try #require(try database.user(named: "collector")).id!
        for search in searches {
            #expect(try database.searchAlbums(userId: user, text: search.text, limit: 10).map(\.title) == search.titles, "\(search.text)")
        }
    }

    private func write(in directory: TemporaryDirectory) throws -> String {
        try directory.write("search-\(UUID().uuidString).csv", ([exportHeader] + rows).joined(separator: "\n") + "\n")
    }
}
