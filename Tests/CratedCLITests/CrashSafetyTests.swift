import CratedSync
import CratedTestSupport
import CratedCore
import Foundation
import GRDB
import Testing

/// A real `crated sync` process, killed with SIGKILL in the middle of a pass.
@Suite struct CrashSafetyTests {
    /// Tracks per release vary, so an album written in part could not pass for a whole one.
    static func trackCount(_ id: Int64) -> Int { 3 + Int(id % 5) }

    @Test func aKilledSyncLeavesEveryAlbumAsItWasOrFullySynced() async throws {
        let crated = URL(fileURLWithPath: Paths.cratedBinary)
        try await SyncHarness.run { h in
            let ids: [Int64] = Array(3000..<3040)
            try h.importReleases(ids)
            for id in ids {
                h.fake.serveRelease(id, json: syntheticRelease(id: id, trackCount: Self.trackCount(id)))
                // Release 3030 is never answered, so the pass cannot complete before the kill.
                h.fake.inject(id == 3030 ? .hold : .slow(.milliseconds(30)), on: "/releases/\(id)")
            }
            let before = try await catalogueSnapshot(h.database)
            let configuration = h.directory.appending(path: "crated.json")
            try """
                {"discogs": {"baseURL": "\(h.fake.baseURL)", "token": "", "requestsPerMinute": 100000,
                             "unauthenticatedRequestsPerMinute": 100000},
                 "log": {"level": "error"}}
                """.write(to: configuration, atomically: true, encoding: .utf8)

            let child = Process()
            child.executableURL = crated
            child.arguments = ["sync", "--database", h.directory.appending(path: "crated.sqlite").path, "--config", configuration.path]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            // Killed once a dozen albums are written, whatever the machine's load: the writer may trail
            // the fetches by a group, and release 3030 holds the pass open meanwhile.
            func syncedCount() throws -> Int {
                try h.database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_sync WHERE status = 'synced'") ?? 0 }
            }
            let deadline = ContinuousClock.now + .seconds(120)
            while try (h.fake.requests(to: "/releases/").count < 15 || syncedCount() < 12) && child.isRunning && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(child.isRunning, "crated sync ended before it was killed")
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal)

            var synced = 0
            var untouched = 0
            for id in ids {
                let album = try #require(try h.database.album(discogsReleaseId: id))
                let rows = try await catalogueRows(h.database, albumId: album.id!)
                if let state = try h.database.syncState(ofAlbum: album.id!) {
                    #expect(state.status == .synced, "release \(id): \(state.status)")
                    #expect(album.title == "Release \(id)" && album.artistCredit == "Artist \(id)")
                    #expect(rows.tracks.count == Self.trackCount(id), "release \(id) has \(rows.tracks.count) tracks")
                    #expect(rows.artists.count == 1 && rows.labels == ["Label|CAT \(id)|77"])
                    #expect(rows.genres == ["genre:Jazz", "style:Hard Bop"])
                    synced += 1
                } else {
                    #expect(rows == before[id], "release \(id) was changed without being marked synced")
                    untouched += 1
                }
            }
            #expect(synced >= 12, "at least the albums written before the kill")
            #expect(untouched >= 1, "release 3030 at least was never answered")
        }
    }
}
