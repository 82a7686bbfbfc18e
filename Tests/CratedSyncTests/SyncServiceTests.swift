@testable import CratedSync
import CratedTestSupport
import CratedCore
import CratedImport
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// The background service as `crated serve` runs it: in a service group, on the real clock.
@Suite struct SyncServiceTests {
    /// Counting walks the catalogue: counts are kept for the state they were counted at, and counted
    /// again when the collection changes, a pass ends, or their lifetime passes.
    @Test func countsAreKeptUntilWhatTheyCountChanges() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1, 2])
            let clock = VirtualClock()
            let service = SyncService(runner: try h.runner(), interval: .seconds(3600), clock: clock, logger: h.logs.logger())
            #expect(try await service.status().albums.never == 2)
            // An import changes the listing generation: counted again, once a second has passed
            // since the last count (a client editing and asking in turn is not a recount each time).
            try h.importReleases([3])
            #expect(try await service.status().albums.never == 2)
            clock.advance(by: .seconds(SyncService.recountAfterEditsAtMostEvery))
            #expect(try await service.status().albums.never == 3)
            // A change no generation sees (a sync state written by hand) waits out the lifetime.
            let album = try #require(try h.database.album(discogsReleaseId: 3)).id!
            try await h.database.writer.write { db in
                try db.execute(sql: "INSERT INTO album_sync (album_id, status, attempts) VALUES (?, 'not_found', 1)", arguments: [album])
            }
            #expect(try await service.status().albums.never == 3)
            clock.advance(by: .seconds(SyncService.countsLifetime + 1))
            let counted = try await service.status().albums
            #expect(counted.never == 2 && counted.notFound == 1)
        }
    }

    /// What one user sees of sync is their own: the counts of their albums, and the failures among
    /// them only (another user's album and release ids are not theirs to know).
    @Test func statusShowsTheCallersOwnAlbumsAndFailures() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1, 2])
            let alicesFile = h.directory.appending(path: "alice.csv")
            try """
                Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added
                C3,Artist 3,Title 3,Label,LP,,1990,3,Uncategorized,2020-01-01 00:00:00
                """.write(to: alicesFile, atomically: true, encoding: .utf8)
            _ = try DiscogsImporter(database: h.database).importFile(at: alicesFile.path, options: ImportOptions(userName: "alice"))
            let users = Dictionary(uniqueKeysWithValues: try h.database.users().map { ($0.name, $0.id!) })
            for id: Int64 in 1...2 { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            h.fake.inject(.malformedJSON, on: "/releases/3")
            let service = SyncService(runner: try h.runner(), interval: .seconds(3600), clock: SystemSyncClock(), logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }
            try await waitUntil("the first pass") { try await service.status().lastRun != nil }

            // Unwrapped first: `status(userId:)` takes an optional, which #require would pass on as one.
            let (collector, alice) = (try #require(users["collector"]), try #require(users["alice"]))
            let collectors = try await service.status(userId: collector)
            #expect(collectors.albums.synced == 2 && collectors.albums.failed == 0 && collectors.albums.never == 0)
            #expect(collectors.lastRun?.failures.isEmpty == true)
            let alices = try await service.status(userId: alice)
            #expect(alices.albums.failed == 1 && alices.albums.synced == 0)
            #expect(alices.lastRun?.failures.map(\.releaseId) == [3])
            // The daemon's own view (a command's) is the whole catalogue's.
            #expect(try await service.status().albums.synced == 2)
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    /// A pass that brought one user's Discogs collection in step: its summary and its failure, which
    /// names their Discogs account, are theirs to see, not another user's.
    @Test func aCollectionPassIsSeenByItsOwnerAlone() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1])
            _ = try await h.database.resolveUser(named: "alice", defaultName: "alice", createIfMissing: true)
            let users = Dictionary(uniqueKeysWithValues: try h.database.users().map { ($0.name, $0.id!) })
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            let service = SyncService(runner: try h.runner(), interval: .seconds(3600), clock: SystemSyncClock(), logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }
            try await waitUntil("the first pass") { try await service.status().lastRun != nil }
            let firstPass = try #require(try await service.status().lastRun)

            // The fake has no collection for this Discogs user: the pass says so in its error.
            #expect(service.triggerPass(SyncPassOptions(userName: "collector", collectionUser: "nobody-here")) == .started)
            try await waitUntil("the collection pass") { try await service.status().lastRun?.error != nil }
            // Unwrapped first: `status(userId:)` takes an optional, which #require would pass on as one.
            let (collector, alice) = (try #require(users["collector"]), try #require(users["alice"]))
            let collectors = try await service.status(userId: collector)
            #expect(collectors.lastRun?.error?.contains("nobody-here") == true)
            let alices = try await service.status(userId: alice)
            // Alice's last pass is the last one that covered her albums, not the collector's own.
            #expect(alices.lastRun == firstPass)
            #expect(h.logs.all.contains { $0.contains("sync pass:") && $0.contains("nobody-here") }, "the log says why too")
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    /// A pass a user asked for covers their albums: its progress (whose totals are the size of
    /// their collection) is theirs and the operator's to follow; another user reads only that sync
    /// is running.
    @Test func aUsersOwnPassShowsItsProgressToThemAlone() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1, 2])
            _ = try await h.database.resolveUser(named: "alice", defaultName: "alice", createIfMissing: true)
            let users = Dictionary(uniqueKeysWithValues: try h.database.users().map { ($0.name, $0.id!) })
            let (collector, alice) = (try #require(users["collector"]), try #require(users["alice"]))
            for id: Int64 in 1...2 { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            let service = SyncService(runner: try h.runner(), interval: .seconds(3600), passAtStart: false, clock: SystemSyncClock(),
                                      logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }
            h.fake.inject(.slow(.seconds(3)), on: "/releases/1")
            h.fake.inject(.slow(.seconds(3)), on: "/releases/2")
            try await waitUntil("the service") { service.triggerPass(SyncPassOptions(userName: "collector")) == .started }
            try await waitUntil("the pass under way") { try await service.status(userId: collector).progress != nil }
            let alices = try await service.status(userId: alice)
            #expect(alices.running && alices.progress == nil)
            #expect(try await service.status().progress?.albumsTotal == 2, "the operator's view")
            try await waitUntil("the pass") { try await service.status().lastRun != nil }
            #expect(try await service.status(userId: alice).lastRun == nil, "no pass has covered Alice's albums yet")
            #expect(try await service.status(userId: collector).lastRun?.synced == 2)
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    /// The daemon's own passes bring every linked Discogs collection in step, each into its user's,
    /// before the releases; each user sees what became of their own collection alone.
    @Test func scheduledPassesBringTheLinkedCollectionsInStep() async throws {
        try await SyncHarness.run { h in
            for name in ["collector", "alice", "bob"] {
                _ = try await h.database.resolveUser(named: name, defaultName: name, createIfMissing: true)
            }
            _ = try h.database.linkDiscogsUser("dj", toUserNamed: "collector")
            _ = try h.database.linkDiscogsUser("gone-from-discogs", toUserNamed: "alice")
            let users = Dictionary(uniqueKeysWithValues: try h.database.users().map { ($0.name, $0.id!) })
            let (collector, alice, bob) = (try #require(users["collector"]), try #require(users["alice"]), try #require(users["bob"]))
            h.fake.serveCollection(of: "dj", releases: [FakeDiscogs.listedCopy(release: 21, dateAdded: "2021-05-02T10:00:00+02:00")])
            h.fake.serveRelease(21, json: syntheticRelease(id: 21))

            let service = SyncService(runner: try h.runner(), interval: .seconds(3600), clock: SystemSyncClock(), logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }
            try await waitUntil("the first pass") { try await service.status().lastRun != nil }

            // The linked collection came in, and its release after it, in the same pass.
            #expect(try h.database.copies(ofUser: collector).map(\.rating) == [4])
            #expect(try h.syncState(release: 21)?.status == .synced)
            let collectors = try #require(try await service.status(userId: collector).lastRun)
            #expect(collectors.collection?.copiesAdded == 1 && collectors.error == nil && collectors.synced == 1)
            // Alice's account is unknown to Discogs: she is told, and no one else is.
            let alices = try #require(try await service.status(userId: alice).lastRun)
            #expect(alices.collection == nil && alices.error == "collection of Discogs user 'gone-from-discogs': not found")
            let bobs = try #require(try await service.status(userId: bob).lastRun)
            #expect(bobs.collection == nil && bobs.error == nil)
            #expect(h.logs.all.contains { $0.contains("collection of Discogs user 'gone-from-discogs': not found") }, "the operator reads it in the log")
            // A pass a user asks for through the API covers their albums only.
            let before = h.fake.requests(to: "/users/").count
            #expect(service.triggerPass(SyncPassOptions(userName: "bob")) == .started)
            // Bob has no albums: his pass has none due, where the scheduled one had the linked release.
            try await waitUntil("bob's pass") { try await service.status().lastRun?.albumsDue == 0 }
            #expect(h.fake.requests(to: "/users/").count == before)
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    /// A pass a user asks for covers their albums alone: the daemon's own passes, which cover
    /// everyone's and bring the linked collections in, keep to their schedule. An app asking at
    /// every launch, more often than the interval, must not put them off.
    @Test func aPassAUserAsksForDoesNotPutOffTheScheduledOne() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1])
            _ = try h.database.linkDiscogsUser("dj", toUserNamed: "collector")
            h.fake.serveCollection(of: "dj")
            for id: Int64 in 1...2 { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            let listings = { h.fake.requests.filter { $0.path == "/users/dj/collection/folders" }.count }
            let service = SyncService(runner: try h.runner(), interval: .seconds(8), clock: SystemSyncClock(), logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }
            try await waitUntil("the first pass") { try await service.status().lastRun != nil && listings() == 1 }
            let scheduled = try #require(try await service.status().nextRunAt.flatMap(Timestamp.date(from:)))

            try await Task.sleep(for: .seconds(1))
            try h.importReleases([2])
            h.fake.inject(.slow(.milliseconds(500)), on: "/releases/2")
            #expect(service.triggerPass(SyncPassOptions(userName: "collector")) == .started)
            try await waitUntil("the pass asked for") {
                try await !service.status().running && h.syncState(release: 2)?.status == .synced
            }
            #expect(try await service.status().lastRun?.synced == 1)
            #expect(listings() == 1, "the pass asked for brought no collection in")
            let after = try #require(try await service.status().nextRunAt.flatMap(Timestamp.date(from:)))
            #expect(abs(after.timeIntervalSince(scheduled)) < 1, "the next scheduled pass is still at \(scheduled), not \(after)")

            try await waitUntil("the scheduled pass", timeout: .seconds(30)) { listings() == 2 }
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    /// Turned off (`sync.enabled`), the service runs no pass, at start or asked for, asks Discogs
    /// nothing, and says so in its status; it stops with the daemon as before.
    @Test func aServiceTurnedOffRunsNoPass() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1])
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            let service = SyncService(runner: try h.runner(), enabled: false, interval: .seconds(60), clock: SystemSyncClock(),
                                      logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }
            #expect(service.triggerPass() == .disabled)
            try await Task.sleep(for: .milliseconds(300))
            let status = try await service.status()
            #expect(!status.enabled && !status.running && status.lastRun == nil && status.nextRunAt == nil)
            #expect(h.fake.requests.isEmpty)
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    /// A pass asked for whose user cannot be read (the database failing) does not run: not knowing
    /// whose it is, its progress and report would show to every user.
    @Test func aPassWhoseUserCannotBeReadDoesNotRun() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1])
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            let service = SyncService(runner: try h.runner(), interval: .seconds(3600), passAtStart: false, clock: SystemSyncClock(),
                                      logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }
            try await h.database.writer.write { db in try db.execute(sql: "ALTER TABLE user RENAME TO user_away") }
            try await waitUntil("the service") { service.triggerPass(SyncPassOptions(userName: "collector")) == .started }
            try await waitUntil("the pass's end") { h.logs.all.contains { $0.contains("sync pass not started") } }
            try await h.database.writer.write { db in try db.execute(sql: "ALTER TABLE user_away RENAME TO user") }
            let status = try await service.status(userId: try #require(try h.database.user(named: "collector")?.id))
            #expect(status.lastRun?.error?.hasPrefix("not started: ") == true && status.lastRun?.albumsDue == 0, "\(status.lastRun?.error ?? "")")
            #expect(status.progress == nil && !status.running)
            #expect(h.fake.requests.isEmpty)
            await group.triggerGracefulShutdown()
            try await running.value
        }
    }

    /// Discogs failing as a host (refusing the token, say) while the linked collections come in ends
    /// the pass there: the releases would meet the same answer.
    @Test func aHostFailureWhileTheLinkedCollectionsComeInEndsThePass() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([31])
            h.fake.serveRelease(31, json: syntheticRelease(id: 31))
            _ = try h.database.linkDiscogsUser("dj", toUserNamed: "collector")
            h.fake.inject(.status(401), on: "/users/dj/collection/folders")

            let report = try await h.runner().runPass(SyncPassOptions(linkedCollections: true))

            #expect(report.error?.hasPrefix("Discogs failed while a collection was brought in step: HTTP 401") == true, "\(report.error ?? "")")
            #expect(report.synced == 0 && h.fake.requests(to: "/releases/").isEmpty)
            // The album due is left for the next pass, and counted as such, not as "0 due".
            #expect(report.albumsDue == 1 && report.skipped == 1)
            // Whose collection it was, the operator and its user read; anyone else, only that Discogs failed.
            let collector = try #require(try h.database.user(named: "collector")?.id)
            #expect(report.seen(byUser: nil).error?.contains("collection of Discogs user 'dj': HTTP 401") == true, "\(report.seen(byUser: nil).error ?? "")")
            #expect(report.seen(byUser: collector).error?.contains("collection of Discogs user 'dj'") == true)
            #expect(report.seen(byUser: collector + 1000).error?.contains("'dj'") == false)
        }
    }

    /// A 403 for a linked collection is that collection's: Discogs lists a private one to its owner's
    /// token alone. The other collections and the releases go on.
    @Test func aPrivateLinkedCollectionFailsForItsUserAlone() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([31])
            h.fake.serveRelease(31, json: syntheticRelease(id: 31))
            _ = try await h.database.resolveUser(named: "alice", defaultName: "alice", createIfMissing: true)
            _ = try h.database.linkDiscogsUser("private-dj", toUserNamed: "alice")
            _ = try h.database.linkDiscogsUser("dj", toUserNamed: "collector")
            h.fake.inject(.status(403), on: "/users/private-dj/collection/folders")
            h.fake.serveCollection(of: "dj")
            let users = Dictionary(uniqueKeysWithValues: try h.database.users().map { ($0.name, $0.id!) })
            let (alice, collector) = (try #require(users["alice"]), try #require(users["collector"]))

            let report = try await h.runner().runPass(SyncPassOptions(linkedCollections: true))

            #expect(report.error == nil && report.synced == 1)
            #expect(report.seen(byUser: alice).error?.contains("collection of Discogs user 'private-dj': Discogs refused it (HTTP 403)") == true)
            #expect(report.seen(byUser: collector).error == nil && report.seen(byUser: collector).collection?.instances == 0)
        }
    }

    /// A stop asked for while the linked collections come in is said, as a stop among the releases is.
    @Test func aStopAmongTheLinkedCollectionsIsSaid() async throws {
        try await SyncHarness.run { h in
            _ = try h.database.linkDiscogsUser("dj", toUserNamed: try await h.database.resolveUser(named: "collector", defaultName: "collector", createIfMissing: true).name)
            let report = try await h.runner().runPass(SyncPassOptions(linkedCollections: true), shouldStop: { true })
            #expect(report.stoppedEarly && report.collectionsByUser.isEmpty)
            #expect(h.fake.requests(to: "/users/").isEmpty)
        }
    }

    @Test func syncsOnStartOnTriggerAndFinishesTheAlbumInFlightOnShutdown() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1, 2, 3])
            for id: Int64 in 1...6 { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            let service = SyncService(runner: try h.runner(), interval: .seconds(3600), clock: SystemSyncClock(), logger: h.logs.logger())
            #expect(service.triggerPass() == .unavailable, "not running yet")
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }

            // A pass when the service starts.
            try await waitUntil("the first pass") { try await service.status().lastRun != nil }
            var status = try await service.status()
            #expect(status.lastRun?.synced == 3)
            #expect(status.albums.synced == 3 && status.albums.due == 0)
            #expect(!status.running && status.nextRunAt != nil && status.intervalSeconds == 3600)
            #expect(status.rateLimit.host == "http://127.0.0.1:\(h.fake.port)")
            #expect(status.rateLimit.usedInWindow == 3)

            // A pass on request, long before the interval.
            try h.importReleases([4])
            #expect(service.triggerPass() == .started)
            try await waitUntil("the triggered pass") { try await service.status().lastRun?.synced == 1 }

            // Shutdown while an album is in flight: it finishes, the next one does not start.
            try h.importReleases([5, 6])
            // Long enough for the checks below to run while the request is in flight.
            h.fake.inject(.slow(.seconds(2)), on: "/releases/5")
            #expect(service.triggerPass() == .started)
            try await waitUntil("the request for release 5") { !h.fake.requests(to: "/releases/5").isEmpty }
            status = try await service.status()
            #expect(status.running && status.progress?.albumsTotal == 2)
            #expect(service.triggerPass() == .alreadyRunning)
            await group.triggerGracefulShutdown()
            try await running.value

            #expect(try h.syncState(release: 5)?.status == .synced, "the album in flight finished")
            #expect(try h.syncState(release: 6) == nil, "no album started after the shutdown")
            #expect(h.fake.requests(to: "/releases/6").isEmpty)
            status = try await service.status()
            #expect(status.lastRun?.stoppedEarly == true && status.lastRun?.skipped == 1)
            #expect(service.triggerPass() == .unavailable)
        }
    }

    /// A 503 waits out a backoff in the client; a 429's Retry-After pauses the host's rate limiter.
    @Test(arguments: [FakeDiscogs.Fault.status(503), .status(429, retryAfter: "300")])
    func shutdownDoesNotWaitOutARetry(after fault: FakeDiscogs.Fault) async throws {
        try await SyncHarness.run { h in
            try h.importReleases([1])
            h.fake.serveRelease(1, json: syntheticRelease(id: 1))
            h.fake.inject(fault, on: "/releases/1")
            // On the real clock: a minute's backoff after the 503, five minutes after the 429.
            let client = try h.client(retry: RetryPolicy(maxAttempts: 4, initialBackoff: .seconds(60)), clock: SystemSyncClock())
            let service = SyncService(runner: try h.runner(client: client), interval: .seconds(3600), clock: SystemSyncClock(),
                                      logger: h.logs.logger())
            let group = ServiceGroup(services: [service], logger: h.logs.logger())
            let running = Task { try await group.run() }

            try await waitUntil("the 503") { h.fake.requests(to: "/releases/1").count == 1 }
            try await waitUntil("the backoff") { try await service.status().progress?.albumsDone == 0 }
            try await Task.sleep(for: .milliseconds(100))
            let shutdown = ContinuousClock.now
            await group.triggerGracefulShutdown()
            try await running.value

            #expect(ContinuousClock.now - shutdown < .seconds(20), "the backoff was not waited out")
            #expect(h.fake.requests(to: "/releases/1").count == 1, "no retry after the shutdown")
            #expect(try h.syncState(release: 1) == nil, "the album stays as it was, due at the next start")
            let status = try await service.status()
            #expect(status.lastRun?.stoppedEarly == true && status.lastRun?.failed == 0)
        }
    }

    @Test func waitsAreLoggedInTenthsOfASecond() {
        #expect(Duration.seconds(1.0101884048394734).logText == "1.0 s")
        #expect(Duration.milliseconds(95_349).logText == "95.3 s")
        #expect(Duration.milliseconds(960).logText == "1.0 s")
        #expect(Duration.zero.logText == "0.0 s")
    }

    @Test func statusEncodesAsTheAPIsJSON() throws {
        let status = SyncStatus(
            enabled: true, running: false, progress: nil, albums: SyncStateCounts(), covers: ArtworkCounts(), lastRun: nil, failedAlbums: [], nextRunAt: "2026-01-01T00:00:00Z",
            intervalSeconds: 3600,
            rateLimit: RateLimitStatus(host: "https://api.discogs.com", limit: 60, windowSeconds: 60, usedInWindow: 2,
                                       remainingInWindow: 58, hostRemaining: nil, pausedUntil: nil))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(status), as: UTF8.self)
        #expect(json.contains(#""enabled":true"#) && json.contains(#""nextRunAt":"2026-01-01T00:00:00Z""#))
        #expect(json.contains(#""remainingInWindow":58"#))
        #expect(json.contains(#""notFound":0"#))
        #expect(json.contains(#""failedAlbums":[]"#), "sent when empty: the document requires it")
        #expect(json.contains(#""covers":{"evicted":0,"failed":0,"pending":0,"stored":0,"unusable":0}"#))
    }
}
