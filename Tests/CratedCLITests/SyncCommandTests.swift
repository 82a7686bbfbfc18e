import CratedCore
import CratedTestSupport
import Foundation
import Testing

@Suite struct SyncCommandTests {
    /// `--collection` with a `--user` that does not exist makes that user for the copies, as import
    /// does, and says so: a mistyped name must not fill a new user unseen. A name that looks like a
    /// user's mistyped is refused, naming the user meant, as import refuses it.
    @Test func aCollectionForAUserThatDoesNotExistSaysItMadeThem() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([21])
            h.fake.serveCollection(of: "dj")
            h.fake.serveRelease(21, json: syntheticRelease(id: 21))
            let configuration = h.directory.appending(path: "crated.json")
            try #"{"discogs": {"baseURL": "\#(h.fake.baseURL)"}, "artwork": {"fetchDuringSync": false}}"#
                .write(to: configuration, atomically: true, encoding: .utf8)
            let database = h.directory.appending(path: "crated.sqlite").path
            let arguments = ["sync", "--collection", "dj", "--database", database, "--config", configuration.path]

            let mistyped = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "colector"])
            #expect(mistyped.status != 0 && mistyped.stderr.contains("no user named 'colector'; did you mean 'collector'?"), "\(mistyped.stderr)")
            let new = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "dj-shelf"])
            #expect(new.status == 0, "\(new.stderr)")
            #expect(new.stderr.contains("user 'dj-shelf' did not exist and was created for the copies"), "\(new.stderr)")
            let existing = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "collector"])
            #expect(existing.status == 0, "\(existing.stderr)")
            #expect(!existing.stderr.contains("was created"), "\(existing.stderr)")
            // Without a Discogs token, the operator is told why covers will not come.
            #expect(existing.stderr.contains("no Discogs token (discogs.token, or CRATED_DISCOGS_TOKEN)"), "\(existing.stderr)")
            let withToken = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "collector"],
                                                        environment: ["CRATED_DISCOGS_TOKEN": "collector-token"])
            #expect(withToken.status == 0, "\(withToken.stderr)")
            #expect(!withToken.stderr.contains("no Discogs token"), "\(withToken.stderr)")
        }
    }

    /// `crated sync` brings the linked collections in step as `serve`'s passes do, and says what
    /// became of each; `--user` narrows it to that user's, `--no-linked` leaves them.
    @Test func syncBringsTheLinkedCollectionsInStep() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([21])
            _ = try await h.database.resolveUser(named: "alice", defaultName: "alice", createIfMissing: true)
            _ = try h.database.linkDiscogsUser("dj", toUserNamed: "collector")
            _ = try h.database.linkDiscogsUser("private-dj", toUserNamed: "alice")
            h.fake.inject(.status(403), on: "/users/private-dj/collection/folders")
            // The listing's copy is the imported one: the same release, added at the time the export gives.
            h.fake.serveCollection(of: "dj", releases: [FakeDiscogs.listedCopy(release: 21, dateAdded: "2020-01-01T00:00:00-08:00")])
            h.fake.serveRelease(21, json: syntheticRelease(id: 21))
            let configuration = h.directory.appending(path: "crated.json")
            try #"{"discogs": {"baseURL": "\#(h.fake.baseURL)"}, "artwork": {"fetchDuringSync": false}}"#
                .write(to: configuration, atomically: true, encoding: .utf8)
            let arguments = ["sync", "--database", h.directory.appending(path: "crated.sqlite").path, "--config", configuration.path]

            let skipped = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--no-linked"])
            #expect(skipped.status == 0, "\(skipped.stderr)")
            let bob = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "bob"])
            #expect(bob.status != 0, "no user bob: \(bob.stderr)")
            _ = try await h.database.resolveUser(named: "bob", defaultName: "bob", createIfMissing: true)
            let unlinked = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "bob"])
            #expect(unlinked.status == 0 && unlinked.stderr.contains("no Discogs collection is linked to 'bob'"), "\(unlinked.stderr)")
            #expect(h.fake.requests(to: "/users/").isEmpty && !skipped.stdout.contains("collection of"))

            let collectorsOnly = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "collector"])
            #expect(collectorsOnly.status == 0, "\(collectorsOnly.stderr)")
            #expect(collectorsOnly.stdout.contains("""
                  collection of Discogs user 'dj' for 'collector'
                    collection      1 copies on Discogs: 0 added, 1 matched to imported copies, 0 updated, 0 removed
                """), "\(collectorsOnly.stdout)")
            #expect(h.fake.requests(to: "/users/private-dj/").isEmpty)
            #expect(collectorsOnly.stderr.contains("crated: reading the Discogs collection of 'dj'"), "\(collectorsOnly.stderr)")
            #expect(try h.database.copies(ofUser: try #require(try h.database.user(named: "collector")?.id)).map(\.rating) == [4])

            // Every link: Alice's private collection fails hers alone, and the command says so.
            let all = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--json"])
            #expect(all.status != 0)
            #expect(all.stderr.contains("collection of Discogs user 'private-dj': Discogs refused it (HTTP 403)"), "\(all.stderr)")
            let output = try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [String: Any]
            #expect(output?["synced"] as? Int == 0 && output?["albumsDue"] != nil, "the report's own keys beside the collections")
            let linked = try #require(output?["linkedCollections"] as? [[String: Any]])
            #expect(linked.map { $0["user"] as? String } == ["collector", "alice"])
            #expect(linked.map { $0["discogsUser"] as? String } == ["dj", "private-dj"])
            #expect((linked[0]["summary"] as? [String: Any])?["instances"] as? Int == 1 && linked[0]["error"] == nil)
            #expect(linked[1]["summary"] == nil && (linked[1]["error"] as? String)?.contains("HTTP 403") == true)
        }
    }

    /// A name Discogs could not have is refused before anything is opened, as `POST /v1/sync` and
    /// `crated user link` refuse it.
    @Test func aCollectionNameDiscogsCouldNotHaveIsRefused() throws {
        let directory = try TemporaryDirectory()
        for name in ["  ", String(repeating: "x", count: 101)] {
            let refused = try run(Paths.cratedBinary, ["sync", "--collection", name, "--database", directory.path("crated.sqlite")])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("--collection needs a Discogs user name of 1 to 100 characters"), "\(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("crated.sqlite")))
    }

    /// An album that fails makes the command fail (a cron job sees it), after the summary that names
    /// the release and why; the albums that synced are kept.
    @Test func aFailedAlbumFailsTheCommandAndIsNamed() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([21, 22])
            h.fake.serveRelease(21, json: syntheticRelease(id: 21))
            h.fake.serveRelease(22, json: syntheticRelease(id: 22))
            h.fake.inject(.malformedJSON, on: "/releases/22")
            let configuration = h.directory.appending(path: "crated.json")
            try #"{"discogs": {"baseURL": "\#(h.fake.baseURL)"}, "artwork": {"fetchDuringSync": false}}"#
                .write(to: configuration, atomically: true, encoding: .utf8)
            let result = try await runOnItsOwnThread(Paths.cratedBinary, [
                "sync", "--database", h.directory.appending(path: "crated.sqlite").path, "--config", configuration.path])
            #expect(result.status != 0)
            #expect(result.stderr.contains("1 album failed; each is tried again at its next attempt time"), "\(result.stderr)")
            #expect(result.stdout.contains("  synced            1\n") && result.stdout.contains("  failed            1\n"), "\(result.stdout)")
            #expect(result.stdout.contains("  failures:\n    release 22 (album "), "\(result.stdout)")
            #expect(result.stdout.contains("not valid JSON"), "\(result.stdout)")
            #expect(try h.syncState(release: 21)?.status == .synced)
            #expect(try h.syncState(release: 22)?.status == .failed)
        }
    }

    /// The first Ctrl-C stops a pass that waits out a host's `Retry-After` of minutes at once, not
    /// after it: the album waiting is left as it was, due at the next pass.
    @Test func ctrlCDuringARetryAfterStopsAtOnce() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([22])
            h.fake.inject(.status(429, retryAfter: "300"), on: "/releases/22")
            h.fake.serveRelease(22, json: syntheticRelease(id: 22))
            let configuration = h.directory.appending(path: "crated.json")
            try #"{"discogs": {"baseURL": "\#(h.fake.baseURL)"}, "artwork": {"fetchDuringSync": false}}"#
                .write(to: configuration, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
            process.arguments = ["sync", "--database", h.directory.appending(path: "crated.sqlite").path, "--config", configuration.path]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()

            var deadline = Date().addingTimeInterval(15)
            while h.fake.requests(to: "/releases/22").isEmpty && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(h.fake.requests(to: "/releases/22").count == 1, "asked once, answered 429 with Retry-After: 300")
            try await Task.sleep(for: .milliseconds(300))
            kill(process.processIdentifier, SIGINT)
            deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
            let stoppedInTime = !process.isRunning
            if !stoppedInTime {
                process.terminate()
                process.waitUntilExit()
            }

            #expect(stoppedInTime, "still waiting out the Retry-After 10 s after Ctrl-C")
            #expect(process.terminationStatus == 0)
            let summary = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(summary.contains("left for later    1 (stopped on request)"), "\(summary)")
            #expect(h.fake.requests(to: "/releases/22").count == 1)
            #expect(try h.syncState(release: 22) == nil, "never tried as far as the database knows")
        }
    }
}
