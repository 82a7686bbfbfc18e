@testable import CratedAPI
import CratedCore
import CratedGrid
import CratedPlayback
import CratedTestSupport
import GRDB
import Testing

/// Every screen that shows an album's cover shows the same image (`AlbumCover`): here an album whose
/// primary image has no thumbnail, beside a second image that has one: a rule that took the first
/// image with a thumbnail would show the second in lists and the first in the grid.
@Suite struct CoverRuleTests {
    static let front = "https://img.example/front.jpg"

    @Test func gridAlbumPageCrateListSearchArtistPageAndMiniPlayerAgree() async throws {
        let server = try TestServer()
        let albumId = try server.albumId(release: 1)
        let (artistId, crateId) = try await server.database.writer.write { db in
            try db.insertImage(albumId: albumId, position: 0, kind: "primary", uri: Self.front, uri150: "", width: 600)
            try db.insertImage(albumId: albumId, position: 1, kind: "secondary", uri: "https://img.example/back.jpg",
                               uri150: "https://img.example/back-150.jpg", width: 600)
            try db.insertTrack(albumId: albumId, position: "A1", side: "A", sortOrder: 0, title: "So What", durationMs: 562_000)
            let artistId = try Int64.fetchOne(db, sql: "SELECT artist_id FROM album_artist WHERE album_id = ?", arguments: [albumId])!
            let crateId = try Int64.fetchOne(db, sql: "SELECT id FROM crate WHERE name = 'Jazz' AND user_id = (SELECT id FROM user WHERE name = 'collector')")!
            return (artistId, crateId)
        }
        let token = server.writeToken
        // crated's copy of the front: every screen points at it, each at the width it draws.
        let front = "/v1/artwork/" + (try await server.database.reader.read { try $0.artworkKey(of: Self.front) }) + "/"
        try await server.test { client in
            let grid = try await client.decoded(GridPage.self, "/v1/grid/collection?layout=iPhonePortrait&scale=2&limit=500", token: token)
            #expect(grid.items.first { $0.albumId == albumId }?.artwork?.url.hasPrefix(front) == true)

            let album = try await client.decoded(AlbumDetailDTO.self, "/v1/albums/\(albumId)", token: token)
            #expect(album.images.first?.uri == Self.front)
            #expect(album.artwork.value?.url == front + "640")

            let crate = try await client.decoded(CrateDetailDTO.self, "/v1/crates/\(crateId)", token: token)
            #expect(crate.items.first { $0.album.id == albumId }?.album.artwork.value?.url == front + "128")

            let search = try await client.decoded(SearchResultsDTO.self, "/v1/search?q=kind%20of%20blue", token: token)
            #expect(search.albums.first { $0.id == albumId }?.artwork.value?.url == front + "128")

            let artist = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(artistId)", token: token)
            #expect(artist.albums.first { $0.id == albumId }?.artwork.value?.url == front + "128")

            let player = try await client.decoded(MiniPlayer.self, "/v1/player/play?scale=2", method: .post, token: token, json: "{\"albumId\": \(albumId)}")
            #expect(player.artwork?.url == front + "96")
        }
    }
}
