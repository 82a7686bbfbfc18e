import CratedCore
import CratedTestSupport
@testable import CratedPlayback
import Foundation
import Testing

/// A real Discogs release (`GET /releases/1`, stored by joalla/discogs_client): tracklist A, B1, B2,
/// C1, C2, D with `m:ss` durations and 600 px images.
@Suite struct MiniPlayerDocumentTests {
    @Test(.needsSharedFixtures)
    func aRealReleasePlaysSideBySide() async throws {
        let discogsRelease = URL(fileURLWithPath: try #require(Paths.sharedFixture("joalla-discogs_client_releases_1.json")))
        let release = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: discogsRelease)) as? [String: Any])
        let tracklist = try #require(release["tracklist"] as? [[String: Any]])
        let tracks = try tracklist.map { entry in
            TrackSeed(position: try #require(entry["position"] as? String), title: try #require(entry["title"] as? String),
                      durationMs: try milliseconds(fromDiscogs: try #require(entry["duration"] as? String)))
        }
        let image = try #require((release["images"] as? [[String: Any]])?.first)

        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum(
            try #require(release["title"] as? String), artist: "The Persuader", tracks: tracks,
            image: (uri: try #require(image["uri"] as? String), uri150: try #require(image["uri150"] as? String),
                    width: image["width"] as? Int))
        try library.addCopy(userId: userId, albumId: albumId)

        // Side A is one track, "A" (4:45): it plays out and the record waits for a flip to B.
        var player = try await service.perform(.play(.album(id: albumId)), userId: userId).miniPlayer(scale: 3)
        #expect(player.track?.position == "A")
        #expect(player.side == "A")
        #expect(player.trackIndex == 1)
        #expect(player.trackCount == 1)
        #expect(player.durationMs == 285_000)
        #expect(player.upNext?.kind == .side)
        #expect(player.upNext?.trackPosition == "B1")
        // crated's copy of the release's cover, 48 points at 3x.
        let uri = try #require(image["uri"] as? String)
        let key = try await library.database.reader.read { try $0.artworkKey(of: uri) }
        #expect(player.artwork?.url == "/v1/artwork/\(key)/192")
        library.clock.advance(seconds: 285)
        player = try await service.current(userId: userId).miniPlayer(scale: 3)
        #expect(player.needsFlip)

        // B1 (6:11) then B2 (2:49), shown as "B2, 2 of 2".
        player = try await service.perform(.flip, userId: userId).miniPlayer(scale: 3)
        #expect(player.track?.position == "B1")
        library.clock.advance(seconds: 371 + 60)
        player = try await service.current(userId: userId).miniPlayer(scale: 3)
        #expect(player.track?.position == "B2")
        #expect(player.track?.title == "Kungsholmen")
        #expect((player.side, player.trackIndex, player.trackCount) == ("B", 2, 2))
        #expect(player.positionMs == 60_000)
        #expect(player.upNext?.kind == .side)
        #expect(player.upNext?.trackPosition == "C1")

        // C1, C2, then D: the last side plays out and playback ends.
        library.clock.advance(seconds: 169)
        #expect(try await service.current(userId: userId).miniPlayer(scale: 3).needsFlip)
        try await service.perform(.flip, userId: userId)
        library.clock.advance(seconds: 338 + 292)
        #expect(try await service.current(userId: userId).miniPlayer(scale: 3).track?.position == "C2")
        try await service.perform(.flip, userId: userId)
        player = try await service.current(userId: userId).miniPlayer(scale: 3)
        #expect(player.track?.title == "Gamla Stan")
        #expect(player.upNext == nil)
        #expect(await failure { try await service.perform(.flip, userId: userId) }?.code == "last_side")
        library.clock.advance(seconds: 316)
        #expect(try await service.current(userId: userId).status == .idle)

        // Every track was heard through: six plays, one listening.
        let stats = try await service.albumPlayStats(userId: userId, albumId: albumId)
        #expect(stats.trackPlayCount == 6)
        #expect(stats.playCount == 1)
    }

    @Test func theDocumentUsesCamelCaseAndSendsNulls() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Untimed", tracks: [.track("A1", nil)])
        try library.addCopy(userId: userId, albumId: albumId)

        let idle = try await service.current(userId: userId).miniPlayer(scale: 2)
        let idleJSON = try jsonObject(idle)
        #expect(idleJSON["hasActiveTrack"] as? Bool == false)
        #expect(idleJSON["state"] as? String == "idle")
        #expect(idleJSON["track"] is NSNull)
        #expect(idleJSON["positionMs"] is NSNull)
        #expect(idleJSON["revision"] as? Int == 0)

        library.clock.set(nowMs: 1_750_000_000_123)
        let playing = try await service.perform(.play(.album(id: albumId)), userId: userId).miniPlayer(scale: 2)
        let json = try jsonObject(playing)
        #expect(Set(json.keys) == [
            "hasActiveTrack", "state", "isPlaying", "needsFlip", "track", "artist", "album", "artwork", "side",
            "trackIndex", "trackCount", "positionMs", "durationMs", "upNext", "crateId", "serverTime", "serverTimeMs",
            "revision",
        ])
        #expect(json["durationMs"] is NSNull)
        #expect(json["artwork"] is NSNull)
        // Whole seconds, the API's one date form; the player's clock has the milliseconds.
        #expect(json["serverTime"] as? String == "2025-06-15T15:06:40Z")
        #expect(json["serverTimeMs"] as? Int64 == 1_750_000_000_123)
        #expect((json["track"] as? [String: Any])?["position"] as? String == "A1")
        #expect(try JSONDecoder().decode(MiniPlayer.self, from: JSONEncoder().encode(playing)) == playing)
    }

    @Test func theThumbnailIsCratedsVariantFor48PointsAtTheClientsScale() {
        let cover = AlbumCover(uri: "uri", uri150: "uri150", width: 600, height: 600, source: ArtworkSource(key: "k", color: nil))!
        #expect(ArtworkReference.thumbnail(of: cover, scale: 1)?.url == "/v1/artwork/k/64")
        #expect(ArtworkReference.thumbnail(of: cover, scale: 2)?.url == "/v1/artwork/k/96")
        #expect(ArtworkReference.thumbnail(of: cover, scale: 3) == ArtworkReference(url: "/v1/artwork/k/192", width: 192, height: 192, color: nil))
        // Scales outside 1-3 are clamped.
        #expect(ArtworkReference.thumbnail(of: cover, scale: 0)?.url == "/v1/artwork/k/64")
        #expect(ArtworkReference.thumbnail(of: cover, scale: 9)?.url == "/v1/artwork/k/192")
    }

    @Test func eachScaleGetsItsOwnArtworkFromOneSnapshot() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Covered", tracks: [.track("A1", 100)],
                                           image: (uri: "full.jpeg", uri150: "thumb.jpeg", width: 120))
        try library.addCopy(userId: userId, albumId: albumId)
        let snapshot = try await service.perform(.play(.album(id: albumId)), userId: userId)
        let one = try #require(snapshot.miniPlayer(scale: 1).artwork)
        let three = try #require(snapshot.miniPlayer(scale: 3).artwork)
        #expect(one.url.hasPrefix("/v1/artwork/") && one.url.hasSuffix("/64") && one.width == 64)
        // 144 pixels of a 120-pixel image: the original's width, in the width that holds it.
        #expect(three.url.hasSuffix("/128") && three.width == 120 && three.height == 120)
    }

    private func milliseconds(fromDiscogs duration: String) throws -> Int? {
        let parts = duration.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2 else { return nil }
        return (parts[0] * 60 + parts[1]) * 1000
    }

    private func jsonObject(_ player: MiniPlayer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(player)) as? [String: Any])
    }
}
