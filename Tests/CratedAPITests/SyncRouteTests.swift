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
            for _ in 0..<100 {
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
}
