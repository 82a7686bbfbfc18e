@testable import CratedAPI
import CratedCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct SyncRouteTests {
    @Test func startAPassAndWatchItsStatus() async throws {
        let server = try TestServer()
        try await server.test { client in
            let (status, body, _) = try await client.call(.get, "/v1/sync", token: server.readToken)
            #expect(status == .ok)
            let albums = try #require((body as? [String: Any])?["albums"] as? [String: Any])
            // Nineteen albums in the catalogue (the sample's 18 and Alice's own), none synced yet.
            #expect(albums["never"] as? Int == 19)
            #expect((body as? [String: Any])?["running"] as? Bool == false)

            #expect(try await client.call(.post, "/v1/sync", token: server.readToken).status == .forbidden)
            #expect(try await client.call(.post, "/v1/sync", token: server.writeToken, json: #"{"limit": 0}"#).status == .unprocessableContent)
            #expect(try await client.call(.post, "/v1/sync", token: server.writeToken, json: #"{"collection": "me"}"#).status == .badRequest)
            let start = try await client.call(.post, "/v1/sync", token: server.writeToken)
            #expect(start.status == .accepted)

            // The fake Discogs knows none of the releases: the pass marks the caller's 18 albums not found.
            var counts: [String: Any] = [:]
            for _ in 0..<100 {
                let now = try await client.call(.get, "/v1/sync", token: server.readToken).body as? [String: Any]
                counts = now?["albums"] as? [String: Any] ?? [:]
                if now?["running"] as? Bool == false, counts["notFound"] as? Int == 18 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(counts["notFound"] as? Int == 18)
            #expect(counts["never"] as? Int == 1)
        }
    }
}
