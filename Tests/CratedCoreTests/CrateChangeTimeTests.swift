@testable import CratedCore
import CratedTestSupport
import GRDB
import Testing

/// A crate's `updatedAt` says when its contents last changed, by whichever route they changed.
@Suite struct CrateChangeTimeTests {
    @Test func cratesACopyJoinsOrLeavesThroughItsOwnFieldsAreChangedNow() async throws {
        let temporary = try TemporaryDatabase()
        let database = temporary.database
        let (user, copy, joined, left, untouched) = try await database.writer.write { db in
            let user = try db.insertUser("collector")
            let album = try db.insertAlbum(title: "Kind of Blue", artistId: try db.insertArtist("Miles Davis"))
            let copy = try db.insertCopy(userId: user, albumId: album, dateAdded: "2024-01-01T00:00:00Z")
            let joined = try db.insertCrate(userId: user, name: "Jazz")
            let left = try db.insertCrate(userId: user, name: "To file")
            let untouched = try db.insertCrate(userId: user, name: "Other")
            try db.execute(sql: "INSERT INTO crate_item (crate_id, item_id, position, added_at) VALUES (?, ?, 0, '2024-01-01T00:00:00Z')",
                           arguments: [left, copy])
            try db.execute(sql: "UPDATE crate SET updated_at = '2024-01-01T00:00:00Z'")
            return (user, copy, joined, left, untouched)
        }

        _ = try await database.updateCopy(id: copy, userId: user, changes: CopyChanges(crateIds: [joined]))

        let updated = try await database.writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT id, updated_at FROM crate").map { ($0[0] as Int64, $0[1] as String) })
        }
        #expect(updated[joined]! > "2024-01-01T00:00:00Z" && updated[left]! > "2024-01-01T00:00:00Z", "\(updated)")
        #expect(updated[untouched] == "2024-01-01T00:00:00Z")
    }
}
