import CratedCore
import CratedTestSupport
import Foundation
import Testing

@Suite struct SyncCommandTests {
    /// `--collection` with a `--user` that does not exist makes that user for the copies, as import
    /// does, and says so: a mistyped name must not fill a new user unseen.
    @Test func aCollectionForAUserThatDoesNotExistSaysItMadeThem() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([21])
            h.fake.serve("/users/dj/collection/folders", json: #"{"folders": [{"id": 0, "name": "All", "count": 0}]}"#)
            h.fake.serve("/users/dj/collection/fields", json: #"{"fields": []}"#)
            h.fake.serve("/users/dj/collection/folders/0/releases?page=1&per_page=100",
                         json: #"{"pagination": {"page": 1, "pages": 1, "items": 0}, "releases": []}"#)
            h.fake.serveRelease(21, json: syntheticRelease(id: 21))
            let configuration = h.directory.appending(path: "crated.json")
            try #"{"discogs": {"baseURL": "\#(h.fake.baseURL)"}, "artwork": {"fetchDuringSync": false}}"#
                .write(to: configuration, atomically: true, encoding: .utf8)
            let database = h.directory.appending(path: "crated.sqlite").path
            let arguments = ["sync", "--collection", "dj", "--database", database, "--config", configuration.path]

            let mistyped = try await runOnItsOwnThread(Paths.cratedBinary, arguments + ["--user", "colector"])
            #expect(mistyped.status == 0, "\(mistyped.stderr)")
            #expect(mistyped.stderr.contains("user 'colector' did not exist and was created for the copies"), "\(mistyped.stderr)")
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
