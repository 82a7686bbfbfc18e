@testable import CratedAPI
import CratedCore
import CratedSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct SyncRouteTests {
    @Test func startAPassAndWatchItsStatus() async throws {
        let server = try TestServer()
        try await server.test { client in
            let status = try await client.decoded(SyncStatus.self, "/v1/sync", token: server.readToken)
            // The caller's own albums: the sample's 18 (the catalogue has Alice's too), none synced yet.
            #expect(status.albums.never == 18)
            #expect(status.running == false)

            #expect(try await client.call(.post, "/v1/sync", token: server.readToken).status == .forbidden)
            #expect(try await client.call(.post, "/v1/sync", token: server.writeToken, json: #"{"limit": 0}"#).status == .unprocessableContent)
            #expect(try await client.call(.post, "/v1/sync", token: server.writeToken, json: #"{"collection": "me"}"#).status == .badRequest)
            let start = try await client.call(.post, "/v1/sync", token: server.writeToken)
            #expect(start.status == .accepted)

            // The fake Discogs knows none of the releases: the pass marks the caller's 18 albums not found.
            var counts = SyncStateCounts()
            // Up to a minute: the whole suite may be loading the machine.
            for _ in 0..<1200 {
                let now = try await client.decoded(SyncStatus.self, "/v1/sync", token: server.readToken)
                counts = now.albums
                if !now.running, counts.notFound == 18 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(counts.notFound == 18)
            #expect(counts.never == 0)
            // Alice sees her two albums only: the one she shares with the caller, now not found, and her own.
            let alices = try await client.decoded(SyncStatus.self, "/v1/sync", token: server.aliceToken).albums
            #expect(alices.notFound == 1 && alices.never == 1 && alices.synced == 0)
        }
    }

    /// With sync turned off by the operator, asking for a pass is refused for good (`sync_disabled`,
    /// not the `sync_unavailable` of a daemon starting), and the status says sync is off.
    @Test func aServerWithSyncTurnedOffRefusesPasses() async throws {
        let server = try TestServer(syncEnabled: false)
        try await server.test { client in
            let refused = try await client.call(.post, "/v1/sync", token: server.writeToken)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.error?.code == "sync_disabled" && refused.error?.message.contains("sync.enabled") == true)
            let status = try await client.decoded(SyncStatus.self, "/v1/sync", token: server.readToken)
            #expect(!status.enabled && !status.running && status.nextRunAt == nil)
        }
    }

    /// Each user's status lists the albums of theirs whose last attempt failed, whichever pass
    /// failed them, with why and when they are tried again.
    @Test func eachUserSeesTheirOwnFailedAlbums() async throws {
        let server = try TestServer()
        let (collectors, alicesOnly) = try await server.database.writer.write { db in
            let alice = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'alice'")!
            let collectors = try Int64.fetchOne(db, sql: """
                SELECT album_id FROM collection_album WHERE user_id != ? AND album_id NOT IN (SELECT album_id FROM collection_album WHERE user_id = ?)
                ORDER BY album_id LIMIT 1
                """, arguments: [alice, alice])!
            let alicesOnly = try Int64.fetchOne(db, sql: """
                SELECT album_id FROM collection_album WHERE user_id = ? AND album_id NOT IN (SELECT album_id FROM collection_album WHERE user_id != ?)
                """, arguments: [alice, alice])!
            for (album, error) in [(collectors, "HTTP 500"), (alicesOnly, "could not connect")] {
                try db.execute(sql: """
                    INSERT INTO album_sync (album_id, status, attempts, last_error, next_attempt_at, last_attempt_at)
                    VALUES (?, 'failed', 2, ?, '2030-01-01T00:15:00Z', '2030-01-01T00:00:00Z')
                    """, arguments: [album, error])
            }
            return (collectors, alicesOnly)
        }
        try await server.test { client in
            let mine = try await client.decoded(SyncStatus.self, "/v1/sync", token: server.readToken)
            #expect(mine.failedAlbums.map(\.albumId) == [collectors])
            #expect(mine.failedAlbums.first?.error == "HTTP 500" && mine.failedAlbums.first?.attempts == 2)
            #expect(mine.failedAlbums.first?.nextAttemptAt == "2030-01-01T00:15:00Z")
            #expect(mine.albums.failed == 1)
            let alices = try await client.decoded(SyncStatus.self, "/v1/sync", token: server.aliceToken)
            #expect(alices.failedAlbums.map(\.albumId) == [alicesOnly])
        }
    }

    /// A collection pass reads the collection with the server's Discogs token, which lists private
    /// collections and their owner's notes: a user may ask only for the Discogs user the operator
    /// linked to them, whatever its case.
    @Test func aCollectionPassIsOnlyForTheDiscogsUserLinkedToTheCaller() async throws {
        let server = try TestServer()
        try await server.test { client in
            func start(_ name: String, token: String) async throws -> (status: HTTPResponse.Status, body: String) {
                let response = try await client.call(.post, "/v1/sync", token: token, json: #"{"collectionUser": "\#(name)"}"#)
                return (response.status, String(decoding: response.body, as: UTF8.self))
            }
            let unlinked = try await start("dj-k", token: server.writeToken)
            #expect(unlinked.status == .unprocessableContent)
            #expect(unlinked.body.contains(#""field":"collectionUser""#))
            #expect(unlinked.body.contains("(none yet)") && unlinked.body.contains("crated user link collector DISCOGS_USER"))
            // A name the shell would split comes quoted, so the hint can be pasted.
            _ = try server.database.addUser(named: "DJ Kool")
            let kool = try server.database.createToken(userName: "DJ Kool", scope: .write, label: "kool").token
            #expect(try await start("kool-records", token: kool).body.contains("crated user link 'DJ Kool' DISCOGS_USER"))

            // Absent, not null, when none is linked, as the document says.
            let unlinkedMe = String(decoding: try await client.call(.get, "/v1/me", token: server.readToken).body, as: UTF8.self)
            #expect(unlinkedMe.contains(#""scope":"read""#) && !unlinkedMe.contains("discogsUser"), "\(unlinkedMe)")
            _ = try server.database.linkDiscogsUser("DJ-K", toUserNamed: "collector")
            _ = try server.database.linkDiscogsUser("alices-records", toUserNamed: "alice")
            // The client learns which account it may ask for.
            #expect(try await client.decoded(MeDTO.self, "/v1/me", token: server.readToken).discogsUser == "DJ-K")
            #expect(try await client.decoded(MeDTO.self, "/v1/me", token: server.aliceToken).discogsUser == "alices-records")
            let someoneElses = try await start("alices-records", token: server.writeToken)
            #expect(someoneElses.status == .unprocessableContent)
            #expect(someoneElses.body.contains("('DJ-K')"))
            #expect(try await start("alices-records", token: server.aliceToken).status == .accepted)
            // Once alice's pass is over (409 until then).
            var mine = try await start("dj-k", token: server.writeToken)
            for _ in 0..<200 where mine.status == .conflict {
                try await Task.sleep(for: .milliseconds(50))
                mine = try await start("dj-k", token: server.writeToken)
            }
            #expect(mine.status == .accepted, "\(mine.body)")
            // The pass asks Discogs for the linked spelling (the test's Discogs knows no collection).
            var error: String?
            for _ in 0..<1200 where error == nil {
                error = try await client.decoded(SyncStatus.self, "/v1/sync", token: server.readToken).lastRun?.error
                if error == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let statusBody = String(decoding: try await client.call(.get, "/v1/sync", token: server.readToken).body, as: UTF8.self)
            #expect(error?.contains("collection of Discogs user 'DJ-K'") == true, "\(statusBody)")
        }
    }
}
