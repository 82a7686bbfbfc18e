@testable import CratedAPI
import CratedArtwork
import CratedCore
import CratedGrid
import CratedTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `GET /v1/artwork/{key}/{width}`: covers crated fetched from a fake image host, as clients load them.
@Suite struct ArtworkRouteTests {
    static let blue: [UInt8] = [20, 90, 160]

    /// A server whose Kind of Blue has a 600x600 solid blue cover on the fake host.
    struct Fixture {
        let server: TestServer
        let host: FakeDiscogs
        let albumId: Int64

        private init(serve: Bool) async throws {
            server = try TestServer()
            host = try await FakeDiscogs.start()
            if serve {
                host.serve("/kob.jpg", bytes: TestImages.solid(ArtworkRouteTests.blue, width: 600, height: 600, suffix: ".jpg"), contentType: "image/jpeg")
            }
            let albumId = try server.albumId(release: 1)
            let url = host.baseURL + "/kob.jpg"
            try await server.database.writer.write { db in
                try db.insertImage(albumId: albumId, uri: url, uri150: "", width: 600)
            }
            self.albumId = albumId
        }

        /// Runs `body` with a fixture and stops its image host before returning (see `FakeDiscogs.with`).
        static func with(serve: Bool = true, _ body: (Fixture) async throws -> Void) async throws {
            let fixture = try await Fixture(serve: serve)
            try await fixture.host.stopping { try await body(fixture) }
        }

        func gridArtwork(_ client: any TestClientProtocol) async throws -> ArtworkReference {
            let grid = try await client.decoded(GridPage.self, "/v1/grid/collection?layout=iPhonePortrait&width=390&scale=2&limit=500", token: server.writeToken)
            return try #require(grid.items.first { $0.albumId == albumId }?.artwork)
        }
    }

    @Test func aCoverLoadsWithoutATokenSizedAsTheGridSaidAndCachedForAYear() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.test { client in
                let before = try await fixture.gridArtwork(client)
                // Not fetched yet: the size Discogs gave, no colour.
                #expect(before.color == nil)
                #expect(before.url.hasPrefix("/v1/artwork/"))

                let webp = try await client.execute(uri: before.url, method: .get, headers: [.accept: "image/avif,image/webp,*/*"]) { $0 }
                #expect(webp.status == .ok)
                #expect(webp.headers[.contentType] == "image/webp")
                #expect(webp.headers[.contentLength] == String(webp.body.readableBytes))
                #expect(webp.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(webp.headers[.vary] == "Accept")
                let etag = try #require(webp.headers[.eTag])
                let decoded = try DecodedHeader(Array(buffer: webp.body))
                #expect((decoded.width, decoded.height) == (before.width, before.height))
                #expect(decoded.metadataFields.isEmpty)

                let jpeg = try await client.execute(uri: before.url, method: .get, headers: [:]) { $0 }
                #expect(jpeg.headers[.contentType] == "image/jpeg")
                #expect(jpeg.headers[.eTag] != etag)

                // Revalidation: the tag as sent, in a list, and percent-encoded as generated clients send it.
                for condition in [etag, "\"other\", \(etag)", etag.replacingOccurrences(of: "\"", with: "%22"), "*"] {
                    let notModified = try await client.execute(uri: before.url, method: .get,
                                                               headers: [.accept: "image/webp", .ifNoneMatch: condition]) { $0 }
                    #expect(notModified.status == .notModified, "If-None-Match: \(condition)")
                    #expect(notModified.headers[.eTag] == etag)
                    #expect(notModified.body.readableBytes == 0)
                }

                // Fetched: the grid now says the cover's colour, at once.
                let after = try await fixture.gridArtwork(client)
                #expect(after.url == before.url)
                let color = try #require(after.color.flatMap(RGBColor.init(hex:)))
                #expect(color.distance(to: ArtworkRouteTests.blue) <= 3)
            }
        }
    }

    @Test func everyScreenWithACoverPointsAtCratedsCopy() async throws {
        try await Fixture.with { fixture in
            let token = fixture.server.writeToken
            try await fixture.server.test { client in
                let album = try await client.call(.get, "/v1/albums/\(fixture.albumId)?scale=3&idiom=pad", token: token)
                let artwork = try #require(try album.decode(AlbumDetailDTO.self).artwork.value)
                // 480 points at 3x is 1440 pixels; the original is 600 wide: the width that holds it.
                #expect(artwork.url.hasSuffix("/640") && artwork.width == 600 && artwork.height == 600)
                let badIdiom = try await client.call(.get, "/v1/albums/\(fixture.albumId)?idiom=watch", token: token)
                #expect(badIdiom.status == .badRequest && badIdiom.error?.field == "idiom")
                let badScale = try await client.call(.get, "/v1/search?q=blue&scale=4", token: token)
                #expect(badScale.status == .badRequest && badScale.error?.field == "scale")
                // Every route reads a parameter alike: empty is a 400, given twice its last value counts.
                for route in ["/v1/crates", "/v1/grid/collection"] {
                    for (query, status) in [("scale=", HTTPResponse.Status.badRequest), ("scale=abc&scale=2", .ok), ("scale=2&scale=abc", .badRequest)] {
                        #expect(try await client.call(.get, "\(route)?\(query)", token: token).status == status, "\(route)?\(query)")
                    }
                }
                #expect(try await client.call(.get, "/v1/history?limit=", token: token).status == .badRequest)
                // Without a cover, `artwork` is null rather than missing.
                let search = try await client.call(.get, "/v1/search?q=a", token: token)
                let albums = try #require((try JSONSerialization.jsonObject(with: search.body) as? [String: Any])?["albums"] as? [[String: Any]])
                #expect(albums.allSatisfy { $0.keys.contains("artwork") })
                #expect(albums.contains { $0["artwork"] is NSNull })
                #expect(!albums.contains { $0.keys.contains("thumbnailUrl") })
            }
        }
    }

    @Test func addressesCratedDidNotGiveAreNotFound() async throws {
        try await Fixture.with { fixture in
            try await fixture.server.test { client in
                let url = try await fixture.gridArtwork(client).url
                let (key, width) = (url.split(separator: "/")[2], url.split(separator: "/")[3])
                for path in ["/v1/artwork/\(key)/100", "/v1/artwork/\(key)/abc", "/v1/artwork/\(key)/-1", "/v1/artwork/\(key)",
                             "/v1/artwork/\(String(repeating: "0", count: 32))/192", "/v1/artwork/..%2F..%2Fetc%2Fpasswd/192",
                             "/v1/artwork/../../etc/passwd", "/v1/artwork/\(key.uppercased())/192",
                             "/v1/artwork/\(key)/0\(width)", "/v1/artwork/\(key)/+\(width)"] {
                    let response = try await client.call(.get, path, token: nil)
                    #expect(response.status == .notFound, "\(path)")
                }
            }
            #expect(fixture.host.requests.isEmpty, "nothing was fetched for them")
        }
    }

    /// A cover the host has none of answers 503 to whoever holds its URL, and from then on answers
    /// show no cover: a grid cell read before (cached) and the album page alike.
    @Test func aCoverThatCannotBeFetchedIs503WithRetryAfterAndThenShowsAsNone() async throws {
        try await Fixture.with(serve: false) { fixture in
            let token = fixture.server.writeToken
            try await fixture.server.test { client in
                let url = try await fixture.gridArtwork(client).url
                let response = try await client.call(.get, url, token: nil)
                #expect(response.status == .serviceUnavailable)
                #expect(response.error?.code == "artwork_unavailable")
                let retryAfter = try #require(response.headers[.retryAfter].flatMap(Int.init))
                #expect(retryAfter > 86_400, "a 404 is not asked again for days")
                // Asked again, it answers without asking the host.
                #expect(try await client.call(.get, url, token: nil).status == .serviceUnavailable)
                #expect(fixture.host.requests.count == 1)

                let grid = try await client.decoded(GridPage.self, "/v1/grid/collection?layout=iPhonePortrait&width=390&scale=2&limit=500", token: token)
                let cell = try #require(grid.items.first { $0.albumId == fixture.albumId })
                #expect(cell.artwork == nil)
                let album = try await client.call(.get, "/v1/albums/\(fixture.albumId)", token: token)
                #expect(try album.decode(AlbumDetailDTO.self).artwork.value == nil)
            }
        }
    }
}
