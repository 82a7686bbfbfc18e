@testable import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// What `GET /v1/sync` shows a user of a pass that covered everyone's albums: the failures of their
/// own albums and covers only (an image URL names its release as an album id does).
@Suite struct SyncStatusPrivacyTests {
    @Test func eachUserOwnsTheImagesOfTheirAlbumsOnly() async throws {
        let directory = try TemporaryDirectory()
        let database = try directory.database()
        let (ann, bob) = try await database.writer.write { db in
            let ann = try db.insertUser("ann")
            let bob = try db.insertUser("bob")
            let artist = try db.insertArtist("Trash80")
            let annsAlbum = try db.insertAlbum(title: "Icarus", artistId: artist)
            let bobsAlbum = try db.insertAlbum(title: "Sunlight", artistId: artist)
            try db.insertImage(albumId: annsAlbum, uri: "https://i.discogs.com/R-1.jpg", uri150: "https://i.discogs.com/R-1-150.jpg", width: 600)
            try db.insertImage(albumId: bobsAlbum, uri: "https://i.discogs.com/R-2.jpg", uri150: "https://i.discogs.com/R-2-150.jpg", width: 600)
            _ = try db.insertCopy(userId: ann, albumId: annsAlbum, dateAdded: "2024-01-01T00:00:00Z")
            _ = try db.insertCopy(userId: bob, albumId: bobsAlbum, dateAdded: "2024-01-01T00:00:00Z")
            return (ann, bob)
        }
        let failed = ["https://i.discogs.com/R-1.jpg", "https://i.discogs.com/R-2-150.jpg", "https://elsewhere.example/x.jpg"]
        #expect(try database.imageURLsOwned(byUser: ann, among: failed) == ["https://i.discogs.com/R-1.jpg"])
        #expect(try database.imageURLsOwned(byUser: bob, among: failed) == ["https://i.discogs.com/R-2-150.jpg"])
        #expect(try database.imageURLsOwned(byUser: bob, among: []) == [])
    }
}
