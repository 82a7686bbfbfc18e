@testable import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// The API's hot reads step cached statements through SQLite's C API and read columns by index
/// (StatementColumns.swift); the album page decodes its records from them.
@Suite struct StatementColumnsTests {
    @Test func readsEachTypeByIndexAndNullAsNil() throws {
        let db = try DatabaseQueue()
        let row = try db.read { db in
            try db.firstRow("SELECT 7, 'Déjà Vu', x'00ff', NULL, 'track'") { columns in
                (try columns.int64(0), try columns.int(0), try columns.string(1), try columns.data(2),
                 try columns.optionalString(3), try columns.optionalInt(3), try columns.optionalInt64(0),
                 columns.isNull(3), columns.isInteger(0), columns.isInteger(1), try columns.value(4, as: Track.Kind.self))
            }
        }
        let values = try #require(row)
        #expect(values.0 == 7 && values.1 == 7)
        #expect(values.2 == "Déjà Vu")
        #expect(values.3 == Data([0x00, 0xFF]))
        #expect(values.4 == nil && values.5 == nil && values.6 == 7)
        #expect(values.7 && values.8 && !values.9)
        #expect(values.10 == .track)
    }

    @Test func aValueOfAnotherTypeThrowsNamingTheColumn() throws {
        let db = try DatabaseQueue()
        try db.read { db in
            #expect(throws: StatementColumnError(column: "year", expected: "integer", found: "text", sql: "SELECT 'nineteen' AS year")) {
                try db.firstRow("SELECT 'nineteen' AS year") { try $0.int64(0) }
            }
            #expect(throws: StatementColumnError(column: "title", expected: "text", found: "null", sql: "SELECT NULL AS title")) {
                try db.firstRow("SELECT NULL AS title") { try $0.string(0) }
            }
            #expect(throws: StatementColumnError(column: "kind", expected: "Kind", found: "'bonus'", sql: "SELECT 'bonus' AS kind")) {
                try db.firstRow("SELECT 'bonus' AS kind") { try $0.value(0, as: Track.Kind.self) }
            }
        }
    }

    @Test func idsAreBoundInOrderAndCountedAgainstTheStatement() throws {
        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO t (owner) VALUES (1), (2), (1), (2)")
        }
        let sql = "SELECT id FROM t WHERE owner = ? AND id >= ? ORDER BY id"
        try db.read { db in
            #expect(try db.rows(sql, ids: [2, 1]) { try $0.int64(0) } == [2, 4])
            // Read halfway, then bound again: the statement is reset first.
            var seen: [Int64] = []
            try db.forEachRow(sql, ids: [1, 1]) { seen.append(try $0.int64(0)) }
            #expect(seen == [1, 3])
            #expect(try db.firstRow(sql, ids: [1, 2]) { try $0.int64(0) } == 3)
            #expect(try db.firstRow(sql, ids: [9, 1]) { try $0.int64(0) } == nil)
            // GRDB's arguments and these take turns on the one cached statement.
            #expect(try db.rows(sql, arguments: [2, 3]) { try $0.int64(0) } == [4])
            #expect(try db.rows(sql, ids: [2, 3]) { try $0.int64(0) } == [4])
            #expect(throws: DatabaseError.self) { try db.rows(sql, ids: [1]) { try $0.int64(0) } }
            #expect(throws: DatabaseError.self) { try db.rows(sql, ids: [1, 2, 3]) { try $0.int64(0) } }
        }
    }

    @Test func databaseValuesOfEveryKindAreBoundAsGRDBBindsThem() throws {
        let db = try DatabaseQueue()
        let values: [DatabaseValue] = [.null, 7.databaseValue, 2.5.databaseValue, "".databaseValue, "Déjà vu".databaseValue,
                                       Data().databaseValue, Data([0, 1, 2]).databaseValue]
        let sql = "SELECT quote(?), quote(?), quote(?), quote(?), hex(?), quote(?), quote(?)"
        try db.read { db in
            let ours = try db.rows(sql, values: values) { columns in try (0..<7).map { try columns.string(Int32($0)) } }
            let grdbs = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(values)).map { row in (0..<7).map { row[$0] as String } }
            #expect(ours == grdbs)
            #expect(ours.first?[3] == "''" && ours.first?[5] == "X''")
            #expect(throws: DatabaseError.self) { try db.rows("SELECT ?", values: []) { _ in 0 } }
            // A NUL inside a string is kept, as the import's statements keep it (GRDB stops there).
            #expect(try db.rows("SELECT hex(?)", values: ["a\u{0}b".databaseValue]) { try $0.string(0) } == ["610062"])
        }
    }

    @Test func rowsComeInOrderAndTheCachedStatementRunsAgainWithOtherArguments() throws {
        let db = try DatabaseQueue()
        try db.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO t (name) VALUES ('a'), ('b'), ('c')")
        }
        let sql = "SELECT id, name FROM t WHERE id >= ? ORDER BY id"
        func names(from id: Int) throws -> [String] { try db.read { db in try db.rows(sql, arguments: [id]) { try $0.string(1) } } }
        func firstName(from id: Int) throws -> String? { try db.read { db in try db.firstRow(sql, arguments: [id]) { try $0.string(1) } } }
        #expect(try names(from: 2) == ["b", "c"])
        // Read halfway, then run again: the statement was reset.
        #expect(try firstName(from: 1) == "a")
        #expect(try names(from: 1) == ["a", "b", "c"])
        #expect(try firstName(from: 9) == nil)
        // GRDB's own fetches of the same cached statement still work.
        #expect(try db.read { db in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [3]).map { row -> String in row[1] } } == ["c"])
        // Arguments are checked against the statement.
        #expect(throws: (any Error).self) { try db.read { db in try db.rows(sql, arguments: [1, 2]) { try $0.string(1) } } }
    }

    @Test func anErrorWhileSteppingThrowsTheDatabaseError() throws {
        let db = try DatabaseQueue()
        #expect(throws: DatabaseError.self) {
            try db.read { db in try db.rows("SELECT json(?)", arguments: ["{not json"]) { try $0.string(0) } }
        }
    }

    /// Each record of the album page reads the columns its `selection` names, in order: the same
    /// values as GRDB's decoding of the whole row by name.
    @Test func albumPageRecordsMatchTheirDecodingByName() throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO user (id, name, created_at) VALUES (1, 'collector', '2024-01-01T00:00:00Z');
                INSERT INTO album (id, discogs_release_id, discogs_master_id, title, sort_title, artist_credit, artist_sort_name,
                                   year, released, country, format_summary, created_at, updated_at)
                VALUES (7, 249504, 5460, 'Kind Of Blue', 'kind of blue', 'Miles Davis', 'davis miles', 1959, '1959-08-17', 'US',
                        'LP, Album', '2024-01-01T00:00:00Z', '2024-01-02T00:00:00Z');
                INSERT INTO album_label VALUES (7, 0, 'Columbia', 'CL 1355', 1866);
                INSERT INTO album_format VALUES (7, 0, 'Vinyl', 1, '["LP","Album","Mono"]', 'Six-eye');
                INSERT INTO album_genre VALUES (7, 'style', 'Modal', 0);
                INSERT INTO album_image VALUES (7, 0, 'primary', 'https://i/full.jpg', 'https://i/150.jpg', 600, 598);
                INSERT INTO track (id, album_id, parent_id, position, side, sort_order, title, duration_ms, kind)
                VALUES (3, 7, NULL, 'A1', 'A', 1, 'So What', 562000, 'track');
                INSERT INTO collection_item (id, user_id, album_id, date_added, copy_ordinal, rating, media_condition,
                                             sleeve_condition, notes, custom_fields, discogs_instance_id)
                VALUES (11, 1, 7, '2023-04-23T04:38:00Z', 0, 5, 'Near Mint (NM or M-)', 'Very Good Plus (VG+)', 'first press',
                        '{"Shelf":"B"}', 99);
                """)
        }
        /// The table's one row, decoded by index from the record's selection and by name through GRDB.
        func bothWays<R: FetchableRecord>(_ selection: String, _ table: String, _ decode: (StatementColumns) throws -> R) throws -> (R?, R?) {
            try database.read { db in
                (try db.firstRow("SELECT \(selection) FROM \(table)", decode), try R.fetchOne(db, sql: "SELECT * FROM \(table)"))
            }
        }
        let album = try bothWays(Album.selection, "album", Album.init)
        #expect(album.0 != nil && album.0 == album.1)
        let label = try bothWays(AlbumLabel.selection, "album_label", AlbumLabel.init)
        #expect(label.0 != nil && label.0 == label.1)
        let format = try bothWays(AlbumFormat.selection, "album_format", AlbumFormat.init)
        #expect(format.0 != nil && format.0 == format.1)
        #expect(format.0?.descriptionList == ["LP", "Album", "Mono"])
        let genre = try bothWays(AlbumGenre.selection, "album_genre", AlbumGenre.init)
        #expect(genre.0 != nil && genre.0 == genre.1)
        let image = try bothWays(AlbumImage.selection, "album_image", AlbumImage.init)
        #expect(image.0 != nil && image.0 == image.1)
        let track = try bothWays(Track.selection, "track", Track.init)
        #expect(track.0 != nil && track.0 == track.1)
        let copy = try bothWays(CollectionItem.selection, "collection_item", CollectionItem.init)
        #expect(copy.0 != nil && copy.0 == copy.1)
        #expect(copy.0?.customFieldValues == ["Shelf": "B"])
    }

    @Test func jsonColumnsThatAreNotWhatTheyShouldBeReadAsEmpty() {
        var copy = CollectionItem(id: 1, userId: 1, albumId: 1, dateAdded: "2024-01-01T00:00:00Z", copyOrdinal: 0, rating: nil,
                                  mediaCondition: nil, sleeveCondition: nil, notes: nil, customFields: "{}", discogsInstanceId: nil)
        #expect(copy.customFieldValues.isEmpty)
        copy.customFields = "[1, 2]"
        #expect(copy.customFieldValues.isEmpty)
        var format = AlbumFormat(albumId: 1, position: 0, name: "Vinyl", quantity: 1, descriptions: "[]", text: nil)
        #expect(format.descriptionList.isEmpty)
        format.descriptions = "not json"
        #expect(format.descriptionList.isEmpty)
    }
}
