@testable import CratedCore
import CratedTestSupport
import GRDB
import Testing

/// Records decode from rows through GRDB's Codable support, by the snake_case column names their
/// `CodingKeys` give; a value of the wrong type is an error, never a crash of the daemon.
@Suite struct RecordsTests {
    let albumColumns: [String: (any DatabaseValueConvertible)?] = [
        "id": 7, "discogs_release_id": 249504, "discogs_master_id": nil, "title": "Kind Of Blue", "sort_title": "kind of blue",
        "artist_credit": "Miles Davis", "artist_sort_name": "miles davis", "year": 1959, "released": "1959-08-17",
        "country": "US", "format_summary": "LP, Album", "created_at": "2024-01-01T00:00:00Z", "updated_at": "2024-01-02T00:00:00Z",
    ]

    @Test func everyColumnLandsInItsProperty() throws {
        let album = try Album(row: Row(albumColumns))
        #expect(album == Album(
            id: 7, discogsReleaseId: 249504, discogsMasterId: nil, title: "Kind Of Blue", sortTitle: "kind of blue",
            artistCredit: "Miles Davis", artistSortName: "miles davis", year: 1959, released: "1959-08-17", country: "US",
            formatSummary: "LP, Album", createdAt: "2024-01-01T00:00:00Z", updatedAt: "2024-01-02T00:00:00Z"))
        let track = try Track(row: [
            "id": 3, "album_id": 7, "parent_id": nil, "position": "B1", "side": "B", "sort_order": 4,
            "title": "All Blues", "duration_ms": 693_000, "kind": "track",
        ])
        #expect(track == Track(id: 3, albumId: 7, position: "B1", side: "B", sortOrder: 4, title: "All Blues", durationMs: 693_000, kind: .track))
    }

    @Test func aValueOfTheWrongTypeOrAMissingColumnThrows() throws {
        var wrongYear = albumColumns
        wrongYear["year"] = "nineteen fifty-nine"
        #expect(throws: (any Error).self) { try Album(row: Row(wrongYear)) }
        var noTitle = albumColumns
        noTitle.removeValue(forKey: "title")
        #expect(throws: (any Error).self) { try Album(row: Row(noTitle)) }
        #expect(throws: (any Error).self) {
            try Track(row: ["id": 3, "album_id": 7, "position": "B1", "sort_order": 4, "title": "All Blues", "kind": "bonus"])
        }
    }

    /// Every record's `CodingKeys` are its table's columns, no more and no fewer: writing a record
    /// writes every column, and the column-index readers read them all (Records+StatementColumns.swift).
    @Test func codingKeysAreTheColumnsOfTheirTable() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        func check<Record: CratedRecord, Keys: CaseIterable & RawRepresentable<String>>(_ record: Record.Type, _ keys: Keys.Type) throws {
            let columns = try database.reader.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [Record.databaseTableName])
            }
            #expect(Set(keys.allCases.map(\.rawValue)) == Set(columns), "\(Record.self)")
        }
        try check(User.self, User.CodingKeys.self)
        try check(APIToken.self, APIToken.CodingKeys.self)
        try check(Artist.self, Artist.CodingKeys.self)
        try check(Album.self, Album.CodingKeys.self)
        try check(AlbumArtist.self, AlbumArtist.CodingKeys.self)
        try check(AlbumLabel.self, AlbumLabel.CodingKeys.self)
        try check(AlbumFormat.self, AlbumFormat.CodingKeys.self)
        try check(AlbumGenre.self, AlbumGenre.CodingKeys.self)
        try check(AlbumImage.self, AlbumImage.CodingKeys.self)
        try check(Track.self, Track.CodingKeys.self)
        try check(CollectionItem.self, CollectionItem.CodingKeys.self)
        try check(Crate.self, Crate.CodingKeys.self)
        try check(CrateItem.self, CrateItem.CodingKeys.self)
        try check(AlbumSyncState.self, AlbumSyncState.CodingKeys.self)
    }
}
