@testable import CratedSync
import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Testing

/// Discogs leaves image URLs blank for a client without a token. An album synced so has no cover
/// until a pass with a token fetches it again, which the first pass after the token is set does.
@Suite struct ImagesWithheldTests {
    /// go-discogs releases/8138518 as Discogs answers a client with a token: the same release with
    /// its image URLs filled in.
    func withImageURLs(_ json: [UInt8]) throws -> [UInt8] {
        var release = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
        let images = try #require(release["images"] as? [[String: Any]])
        release["images"] = images.enumerated().map { index, image in
            image.merging(["uri": "https://i.discogs.com/riddim-\(index).jpg", "uri150": "https://i.discogs.com/riddim-\(index)-150.jpg"]) { $1 }
        }
        return Array(try JSONSerialization.data(withJSONObject: release))
    }

    @Test(.needsSharedFixtures)
    func anAlbumSyncedWithoutATokenIsFetchedAgainOnceThereIsOne() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([8138518])
            let anonymous = try Paths.sharedDiscogs("go-discogs_release_8138518.json")
            h.fake.serveRelease(8138518, json: anonymous)
            let withoutToken = try h.runner()

            // Without a token: synced, its images withheld, and not due again however often it runs.
            #expect(try await withoutToken.runPass().synced == 1)
            let album = try #require(try h.database.album(discogsReleaseId: 8138518))
            #expect(try h.syncState(release: 8138518)?.imagesWithheld == true)
            #expect(try await catalogueRows(h.database, albumId: album.id!).images.isEmpty)
            #expect(try withoutToken.counts().imagesWithheld == 1 && withoutToken.counts().due == 0)
            #expect(try await withoutToken.runPass().albumsDue == 0)

            // A token set: the next pass asks for the release again, without its ETag (a 304 would
            // bring no images), though it is not stale.
            h.fake.serveRelease(8138518, json: try withImageURLs(anonymous))
            let withToken = try h.runner(client: h.client(token: "collector-token"))
            #expect(try withToken.counts().due == 1)
            let before = h.fake.requests.count
            let pass = try await withToken.runPass()
            #expect(pass.albumsDue == 1 && pass.synced == 1)
            let asked = try #require(h.fake.requests[before...].first)
            #expect(asked.path == "/releases/8138518" && asked.headers["if-none-match"] == nil)
            let images = try await catalogueRows(h.database, albumId: album.id!).images
            #expect(images.map { $0.split(separator: "|")[1] } == (0..<4).map { "https://i.discogs.com/riddim-\($0).jpg" }, "\(images)")
            #expect(try h.syncState(release: 8138518)?.imagesWithheld == false)
            #expect(try withToken.counts().imagesWithheld == 0)
            #expect(try await withToken.runPass().albumsDue == 0)
        }
    }

    /// Images a token brought stay when a later pass without one (a token removed) finds them
    /// withheld; the album is marked, for the next pass with a token.
    @Test(.needsSharedFixtures)
    func imagesATokenBroughtStayWhenAPassWithoutOneFindsThemWithheld() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([8138518])
            let anonymous = try Paths.sharedDiscogs("go-discogs_release_8138518.json")
            h.fake.serveRelease(8138518, json: try withImageURLs(anonymous))
            let settings = ReleaseSyncSettings(staleAfter: 86_400, concurrency: 1)
            #expect(try await h.runner(client: h.client(token: "collector-token"), settings: settings).runPass().synced == 1)
            let album = try #require(try h.database.album(discogsReleaseId: 8138518))
            let brought = try await catalogueRows(h.database, albumId: album.id!).images
            #expect(brought.count == 4)

            h.fake.serveRelease(8138518, json: anonymous)
            h.clock.advance(by: .seconds(2 * 86_400))
            #expect(try await h.runner(settings: settings).runPass().synced == 1)
            #expect(try await catalogueRows(h.database, albumId: album.id!).images == brought)
            #expect(try h.syncState(release: 8138518)?.imagesWithheld == true)
        }
    }

    /// An album without images takes those that came with a URL, even when others were withheld.
    @Test(.needsSharedFixtures)
    func anAlbumWithoutImagesTakesThoseThatCameWithAURL() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([8138518])
            var release = try #require(try JSONSerialization.jsonObject(with: Data(try withImageURLs(try Paths.sharedDiscogs("go-discogs_release_8138518.json")))) as? [String: Any])
            var images = try #require(release["images"] as? [[String: Any]])
            images[0]["uri"] = ""
            release["images"] = images
            h.fake.serveRelease(8138518, json: Array(try JSONSerialization.data(withJSONObject: release)))
            #expect(try await h.runner().runPass().synced == 1)
            let album = try #require(try h.database.album(discogsReleaseId: 8138518))
            #expect(try await catalogueRows(h.database, albumId: album.id!).images.count == 3)
            #expect(try h.syncState(release: 8138518)?.imagesWithheld == true)
        }
    }

    /// A blank URL given to a token holder is the release's own: nothing to ask for again.
    @Test(.needsSharedFixtures)
    func aBlankURLGivenToATokenHolderIsNotAskedForAgain() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([8138518])
            h.fake.serveRelease(8138518, json: try Paths.sharedDiscogs("go-discogs_release_8138518.json"))
            let withToken = try h.runner(client: h.client(token: "collector-token"))
            #expect(try await withToken.runPass().synced == 1)
            #expect(try h.syncState(release: 8138518)?.imagesWithheld == false)
            #expect(try await withToken.runPass().albumsDue == 0)
        }
    }

    @Test(.needsSharedFixtures)
    func aReleaseWithImageURLsOrNoImagesWithholdsNothing() throws {
        let decode = { (name: String) in ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(try Paths.sharedDiscogs(name)))) }
        #expect(try decode("go-discogs_release_8138518.json").imagesWithheld)
        #expect(try !decode("joalla-discogs_client_releases_1.json").imagesWithheld)
        #expect(try !decode("joalla-discogs_client_releases_3329867.json").imagesWithheld)
        #expect(!ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(syntheticRelease(id: 5)))).imagesWithheld)
    }
}
