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
        }
    }
}
