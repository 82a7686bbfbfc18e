@testable import CratedAPI
import CratedTestSupport
import CratedCore
import CratedPlayback
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

extension TestServer {
    /// Gives Kind Of Blue (release 1) a short tracklist: A1, A2 on side A and B1 on side B, a minute each.
    func seedKindOfBlueTracks() throws -> (albumId: Int64, trackIds: [Int64]) {
        let albumId = try self.albumId(release: 1)
        let ids = try database.writer.write { db in
            try [("A1", "A", "So What"), ("A2", "A", "Freddie Freeloader"), ("B1", "B", "Blue In Green")].enumerated().map { order, track in
                var record = Track(albumId: albumId, position: track.0, side: track.1, sortOrder: order, title: track.2, durationMs: 60_000, kind: .track)
                try record.insert(db)
                return record.id!
            }
        }
        return (albumId, ids)
    }
}

@Suite struct PlayerRouteTests {
    @Test func playAdvanceAndControlTheMiniPlayer() async throws {
        let server = try TestServer()
        let (albumId, _) = try server.seedKindOfBlueTracks()
        try await server.test { client in
            let idle = try await client.decoded(MiniPlayer.self, "/v1/player?scale=3", token: server.writeToken)
            #expect(idle.hasActiveTrack == false)

            let played = try await client.decoded(MiniPlayer.self, "/v1/player/play", method: .post, token: server.writeToken, json: "{\"albumId\": \(albumId)}")
            #expect(played.track?.position == "A1")
            #expect(played.isPlaying == true)
            #expect(played.trackCount == 2)
            let revision = played.revision

            server.clock.advance(byMs: 70_000)
            let later = try await client.decoded(MiniPlayer.self, "/v1/player", token: server.writeToken)
            #expect(later.track?.position == "A2")
            #expect(later.positionMs == 10_000)

            // A stale revision is refused with the current state.
            let stale = try await client.call(.post, "/v1/player/pause", token: server.writeToken, json: "{\"expectedRevision\": \(revision - 1)}")
            #expect(stale.status == .conflict)
            let refusal = try stale.decode(ErrorBody.self)
            #expect(refusal.error.code == "revision_conflict")
            #expect(refusal.current?.track?.position == "A2")

            #expect(try await client.call(.post, "/v1/player/pause", token: server.writeToken).status == .ok)
            let again = try await client.call(.post, "/v1/player/pause", token: server.writeToken)
            #expect(again.status == .conflict)
            #expect(again.error?.code == "not_playing")
            #expect(try await client.call(.post, "/v1/player/resume", token: server.writeToken, json: "{}").status == .ok)
            let seek = try await client.decoded(MiniPlayer.self, "/v1/player/seek", method: .post, token: server.writeToken, json: #"{"positionMs": 30000}"#)
            #expect(seek.positionMs == 30_000)
            let pastEnd = try await client.call(.post, "/v1/player/seek", token: server.writeToken, json: #"{"positionMs": 600000}"#)
            #expect(pastEnd.status == .unprocessableContent)
            #expect(pastEnd.error?.field == "positionMs")
            #expect(try await client.call(.post, "/v1/player/stop", token: server.writeToken).status == .ok)
            #expect(try await client.call(.post, "/v1/player/stop", token: server.writeToken).status == .conflict)
        }
    }

    @Test func historyAndAlbumPlayCount() async throws {
        let server = try TestServer()
        let (albumId, _) = try server.seedKindOfBlueTracks()
        try await server.test { client in
            _ = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: "{\"albumId\": \(albumId)}")
            server.clock.advance(byMs: 125_000)
            let history = try await client.decoded(HistoryPageDTO.self, "/v1/history?limit=10", token: server.writeToken)
            #expect(history.entries.map(\.trackPosition) == ["A2", "A1"])
            let album = try await client.decoded(AlbumDetailDTO.self, "/v1/albums/\(albumId)", token: server.writeToken)
            #expect(album.playCount == 1)
            #expect(album.lastPlayedAt != nil)
            // Alice's history is her own.
            let alices = try await client.decoded(HistoryPageDTO.self, "/v1/history", token: server.aliceToken)
            #expect(alices.entries.isEmpty)
            #expect(try await client.call(.get, "/v1/history?before=garbage", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/history?limit=0", token: server.writeToken).status == .badRequest)
        }
    }

    /// Each play in the history shows its album's cover at list-row size (60 points at `scale`), or
    /// null while the album has none.
    @Test func historyShowsEachPlaysCover() async throws {
        let server = try TestServer()
        let (albumId, _) = try server.seedKindOfBlueTracks()
        try await server.test { client in
            _ = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: "{\"albumId\": \(albumId)}")
            server.clock.advance(byMs: 125_000)
            let uncovered = try await client.call(.get, "/v1/history", token: server.writeToken)
            #expect(uncovered.status == .ok)
            #expect(String(decoding: uncovered.body, as: UTF8.self).components(separatedBy: #""artwork":null"#).count == 3)

            let front = "https://img.example/kind-of-blue.jpg"
            let key = try await server.database.writer.write { db in
                try db.insertImage(albumId: albumId, uri: front, uri150: "", width: 600)
                return try db.artworkKey(of: front)
            }
            for (query, width) in [("?scale=3", 192), ("?scale=1", 64), ("", 128), ("?scale=1.5", 96)] {
                let history = try await client.decoded(HistoryPageDTO.self, "/v1/history" + query, token: server.writeToken)
                #expect(history.entries.count == 2)
                #expect(history.entries.allSatisfy { $0.artwork?.url == "/v1/artwork/\(key)/\(width)" && $0.artwork?.width == width }, "\(query)")
            }
            for bad in ["0", "4", "two"] {
                let response = try await client.call(.get, "/v1/history?scale=\(bad)", token: server.writeToken)
                #expect(response.status == .badRequest, "scale=\(bad)")
                #expect(response.error?.field == "scale", "scale=\(bad)")
            }
        }
    }

    @Test func badPlayerRequests() async throws {
        let server = try TestServer()
        let (albumId, trackIds) = try server.seedKindOfBlueTracks()
        let alicesAlbum = try server.albumId(release: 777001)
        let noTracks = try server.albumId(release: 1002)
        try await server.test { client in
            let cases: [(String, HTTPResponse.Status, String?)] = [
                ("{}", .badRequest, "albumId"),
                ("{\"albumId\": \(albumId), \"crateId\": 1}", .badRequest, "crateId"),
                ("{\"albumId\": \(albumId), \"side\": \"B\", \"trackId\": \(trackIds[0])}", .badRequest, "trackId"),
                ("{\"albumId\": \(albumId), \"side\": \"side B\"}", .badRequest, "side"),
                ("{\"albumId\": \(albumId), \"side\": \"Z\"}", .unprocessableContent, "side"),
                ("{\"albumId\": \(alicesAlbum)}", .notFound, "albumId"),
                ("{\"albumId\": \(noTracks)}", .unprocessableContent, nil),
                ("{\"albumId\": \"\(albumId)\"}", .badRequest, "albumId"),
                ("{\"album\": \(albumId)}", .badRequest, "album"),
                ("{\"crateId\": 999999}", .notFound, "crateId"),
                // Below the document's minimum of 1: a bad body, not a missing album.
                ("{\"albumId\": 0}", .badRequest, "albumId"),
                ("{\"albumId\": -5}", .badRequest, "albumId"),
                ("{\"albumId\": \(albumId), \"trackId\": 0}", .badRequest, "trackId"),
                ("{\"crateId\": 0}", .badRequest, "crateId"),
            ]
            for (json, status, fieldName) in cases {
                let response = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: json)
                #expect(response.status == status, "\(json)")
                if let fieldName { #expect(response.error?.field == fieldName, "\(json)") }
            }
            #expect(try await client.call(.get, "/v1/player?scale=7", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/player?scale=0", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.post, "/v1/player/play", token: server.readToken, json: "{\"albumId\": \(albumId)}").status == .forbidden)
            #expect(try await client.call(.post, "/v1/player/pause", token: server.writeToken, json: "not json").status == .badRequest)
            #expect(try await client.call(.post, "/v1/player/seek", token: server.writeToken, json: "{}").status == .badRequest)
            #expect(try await client.call(.get, "/v1/player/events", token: nil).status == .unauthorized)
        }
    }

    /// Revoking a token ends the event streams opened with it within seconds; the user's other
    /// streams go on.
    @Test func revokingATokenEndsItsStreams() async throws {
        let server = try TestServer()
        let phoneToken = try server.database.createToken(userName: "collector", scope: .read, label: "phone")
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let phone = try SSEClient(port: port, path: "/v1/player/events", token: phoneToken.token)
            let tablet = try SSEClient(port: port, path: "/v1/player/events", token: server.writeToken)
            #expect(await phone.next() != nil)
            #expect(await tablet.next() != nil)
            _ = try server.database.revokeToken(phoneToken.record.tokenPrefix)
            let revokedAt = ContinuousClock.now
            while !phone.isClosed && ContinuousClock.now - revokedAt < .seconds(30) { _ = await phone.next(timeout: 0.2) }
            #expect(phone.isClosed, "the revoked token's stream is still open")
            _ = await tablet.next(timeout: 0.5)
            #expect(!tablet.isClosed)
        }
    }

    /// A user's event streams are capped: the one opened past the cap ends their oldest, the
    /// others and another user's stream go on.
    @Test func aStreamPastTheCapEndsTheUsersOldest() async throws {
        let server = try TestServer()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let alices = try SSEClient(port: port, path: "/v1/player/events", token: server.aliceToken)
            #expect(await alices.next() != nil)
            var streams: [SSEClient] = []
            for _ in 0..<PlaybackService.streamsPerUser {
                let stream = try SSEClient(port: port, path: "/v1/player/events", token: server.readToken)
                #expect(await stream.next() != nil)
                streams.append(stream)
            }
            let oldest = streams[0]
            #expect(await oldest.next(timeout: 0.3) == nil)
            #expect(!oldest.isClosed)

            let newest = try SSEClient(port: port, path: "/v1/player/events", token: server.readToken)
            #expect(await newest.next() != nil)
            let started = ContinuousClock.now
            while !oldest.isClosed && ContinuousClock.now - started < .seconds(30) { _ = await oldest.next(timeout: 0.2) }
            #expect(oldest.isClosed, "the user's oldest stream is still open")
            for stream in streams.dropFirst() + [newest, alices] {
                _ = await stream.next(timeout: 0.05)
                #expect(!stream.isClosed)
            }
        }
    }

    /// Two devices of one user hear a change made by a third request, in revision order; another
    /// user's device hears nothing; a reconnect with Last-Event-ID gets the current state.
    @Test func eventsStreamToEveryDeviceOfTheUserOverRealHTTP() async throws {
        let server = try TestServer()
        let (albumId, _) = try server.seedKindOfBlueTracks()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let phone = try SSEClient(port: port, path: "/v1/player/events?scale=3", token: server.writeToken)
            let tablet = try SSEClient(port: port, path: "/v1/player/events", token: server.writeToken)
            let alices = try SSEClient(port: port, path: "/v1/player/events", token: server.aliceToken)
            // Each stream opens with the current state.
            for stream in [phone, tablet, alices] {
                let first = try #require(await stream.next())
                #expect(first.event == "player")
                #expect(stream.status == 200)
            }
            let initial = 0
            _ = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: "{\"albumId\": \(albumId)}")
            _ = try await client.call(.post, "/v1/player/pause", token: server.writeToken)
            for stream in [phone, tablet] {
                let play = try #require(await stream.next())
                let pause = try #require(await stream.next())
                #expect(play.id == "\(initial + 1)")
                #expect(pause.id == "\(initial + 2)")
                #expect(play.data.contains("\"isPlaying\":true"))
                #expect(pause.data.contains("\"state\":\"paused\""))
            }
            #expect(await alices.next(timeout: 0.5) == nil)

            // Back after missing both events: the current state stands in for them.
            let returning = try SSEClient(port: port, path: "/v1/player/events", token: server.writeToken, lastEventId: "0")
            let caughtUp = try #require(await returning.next())
            #expect(caughtUp.id == "2")
            let upToDate = try SSEClient(port: port, path: "/v1/player/events", token: server.writeToken, lastEventId: "2")
            #expect(await upToDate.next(timeout: 0.5) == nil)
        }
    }
}
