@testable import CratedSync
import CratedTestSupport
import CratedCore
import Foundation
import Synchronization
import GRDB
import Testing

/// Release sync of an imported collection through the real transport, against real responses
/// (the tests that need shared/fixtures are skipped, with a message, when it is absent).
@Suite struct ReleaseSyncTests {
    @Test(.needsSharedFixtures)
    func aFullSyncOfTheImportedCollectionFillsEveryAlbum() async throws {
        try await SyncHarness.run { h in
            try h.importCSV()
            try await h.serveCatalogue()
            let albums = try await h.allAlbums()
            #expect(albums.count == 18)

            let report = try await h.runner().runPass()

            #expect(report.albumsDue == 18)
            #expect(report.synced == 18 && report.failed == 0 && report.error == nil)
            #expect(h.fake.requests(to: "/releases/").count == 18)
            for album in albums {
                #expect(try h.syncState(release: album.discogsReleaseId!)?.status == .synced)
            }
            let counts = try h.runner().counts()
            #expect(counts.synced == 18 && counts.never == 0 && counts.due == 0)

            // joalla/discogs_client releases/1: 2x12", sides A to D, `released` with day 00.
            let stockholm = try #require(try h.database.album(discogsReleaseId: 1))
            #expect(stockholm.title == "Stockholm")
            #expect(stockholm.artistCredit == "The Persuader")
            #expect(stockholm.artistSortName == "persuader")
            #expect(stockholm.year == 1999)
            #expect(stockholm.released == "1999-03")
            #expect(stockholm.country == "Sweden")
            #expect(stockholm.discogsMasterId == 5427)
            let tracks = try h.database.tracks(ofAlbum: stockholm.id!)
            #expect(tracks.map(\.position) == ["A", "B1", "B2", "C1", "C2", "D"])
            #expect(tracks.map(\.side) == ["A", "B", "B", "C", "C", "D"])
            #expect(tracks.map(\.sortOrder) == [0, 1, 2, 3, 4, 5])
            #expect(tracks.map(\.durationMs) == [285_000, 371_000, 169_000, 338_000, 292_000, 316_000])
            #expect(tracks.first?.title == "Östermalm")
            #expect(tracks.allSatisfy { $0.kind == .track && $0.artistCredit == nil }, "tracks without artists of their own")
            let artists = try h.database.artists(ofAlbum: stockholm.id!)
            #expect(artists.map(\.artist.name) == ["The Persuader"])
            #expect(artists.map(\.artist.discogsName) == ["Persuader, The"])
            #expect(artists.map(\.artist.discogsId) == [1])
            let catalogue = try await catalogueRows(h.database, albumId: stockholm.id!)
            #expect(catalogue.genres == ["genre:Electronic", "style:Deep House"])
            #expect(catalogue.labels == ["Svek|SK032|5"])
            #expect(catalogue.formats == [#"Vinyl|2|["12\""]|"#])
            #expect(catalogue.images.count == 4)
            #expect(catalogue.images.first == "primary|/image/R-1-1193812031.jpeg|/image/R-150-1-1193812031.jpeg|600x600")
            #expect(catalogue.credits == ["Music By [All Tracks By]|Jesper Dahlbäck||239||0"])

            // releases/3329867: two artists joined by `&`, numeric positions (no sides), catno `none`.
            let darwinia = try #require(try h.database.album(discogsReleaseId: 3329867))
            #expect(darwinia.artistCredit == "Trash80 & Dma-Sc")
            let darwiniaArtists = try h.database.artists(ofAlbum: darwinia.id!)
            #expect(darwiniaArtists.map(\.artist.discogsId) == [95780, 216524])
            #expect(darwiniaArtists.map(\.joinPhrase) == [" & ", ""])
            let darwiniaTracks = try h.database.tracks(ofAlbum: darwinia.id!)
            #expect(darwiniaTracks.map(\.position) == ["1", "2", "3", "4", "5", "6"])
            #expect(darwiniaTracks.allSatisfy { $0.side == nil })
            // A split: each track is credited to one of the two album artists.
            #expect(darwiniaTracks.map(\.artistCredit) == ["Dma-Sc", "Trash80", "Trash80", "Trash80", "Trash80", "Trash80"])
            // Kept as the album's artist rows too; the album is theirs, so not one they only appear on.
            let trackArtistIds = try await h.database.reader.read { db in
                try Int64.fetchAll(db, sql: """
                    SELECT artist.discogs_id FROM track JOIN track_artist ta ON ta.track_id = track.id JOIN artist ON artist.id = ta.artist_id
                    WHERE track.album_id = ? ORDER BY track.sort_order, ta.position
                    """, arguments: [darwinia.id!])
            }
            #expect(trackArtistIds == [216524, 95780, 95780, 95780, 95780, 95780])
            let collector = try #require(try h.database.user(named: "collector")).id!
            let dmaSc = try #require(try h.database.artistAlbums(artistId: darwiniaArtists[1].artist.id!, userId: collector))
            #expect(dmaSc.albums.map(\.albumId) == [darwinia.id!] && dmaSc.appearsOn.isEmpty)
            #expect(try await catalogueRows(h.database, albumId: darwinia.id!).labels == ["Not On Label||1818"])

            // go-discogs releases/8138518: unauthenticated (blank image URLs), no durations, a name variation.
            let riddim = try #require(try h.database.album(discogsReleaseId: 8138518))
            #expect(riddim.artistCredit == "SPB Ska-Jazz Review")
            #expect(try h.database.artists(ofAlbum: riddim.id!).first?.artist.name == "St. Petersburg Ska-Jazz Review")
            #expect(riddim.released == "2016-02-18")
            #expect(try h.database.tracks(ofAlbum: riddim.id!).allSatisfy { $0.durationMs == nil && $0.side != nil })
            #expect(try await catalogueRows(h.database, albumId: riddim.id!).images.isEmpty)
            // Its credits beyond the artists: the sleeve's artwork and design.
            #expect(try await catalogueRows(h.database, albumId: riddim.id!).credits
                        == ["Artwork By|Michael Gavrichkov||4540627||0", "Design|Stu Allotropia||4894261||0"])

            // The search index follows: a track title and a Discogs artist id's name are searchable.
            let found = try await h.database.reader.read { db in
                try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH ?", arguments: ["ostermalm"])
            }
            #expect(found == [stockholm.id!])
            // The artist credited under a name variation is found by its own name too.
            let user = try #require(try h.database.user(named: "collector")).id!
            for text in ["petersburg", "St. Petersburg Ska-Jazz", "SPB ska"] {
                #expect(try h.database.searchAlbums(userId: user, text: text, limit: 5).map(\.albumId) == [riddim.id!], "\(text)")
            }
            // The CSV's whole-credit artist that nothing names any more is gone.
            let orphans = try await h.database.reader.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM artist WHERE NOT EXISTS (SELECT 1 FROM album_artist WHERE artist_id = artist.id)")
            }
            #expect(orphans == 0)
        }
    }

    @Test(.needsSharedFixtures)
    func runningSyncTwiceFetchesNothingNew() async throws {
        try await SyncHarness.run { h in
            try h.importCSV()
            try await h.serveCatalogue()
            let runner = try h.runner()
            _ = try await runner.runPass()
            let requestsAfterFirstPass = h.fake.requests.count

            let second = try await runner.runPass()

            #expect(second.albumsDue == 0 && second.synced == 0)
            #expect(h.fake.requests.count == requestsAfterFirstPass)
        }
    }

    @Test(.needsSharedFixtures)
    func staleAlbumsAreAskedConditionallyAndA304RewritesNothing() async throws {
        try await SyncHarness.run { h in
            try h.importCSV()
            try await h.serveCatalogue()
            let runner = try h.runner(settings: ReleaseSyncSettings(staleAfter: 30 * 86_400, concurrency: 1))
            _ = try await runner.runPass()
            let before = try await catalogueSnapshot(h.database)
            let firstSync = try #require(try h.syncState(release: 1))

            h.clock.advance(by: .seconds(31 * 86_400))
            let firstRequestOfSecondPass = h.fake.requests.count
            let report = try await runner.runPass()

            #expect(report.albumsDue == 18 && report.notModified == 18 && report.synced == 0)
            let conditional = h.fake.requests[firstRequestOfSecondPass...]
            #expect(conditional.count == 18)
            #expect(conditional.allSatisfy { $0.headers["if-none-match"] != nil })
            #expect(try await catalogueSnapshot(h.database) == before, "a 304 must not rewrite the album")
            let refreshed = try #require(try h.syncState(release: 1))
            #expect(refreshed.etag == firstSync.etag)
            #expect(refreshed.lastSyncedAt == Timestamp.string(from: h.clock.date))
            #expect(try runner.counts().stale == 0)
        }
    }

    @Test func aChangedReleaseIsRewrittenWhenStale() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([500])
            h.fake.serveRelease(500, json: syntheticRelease(id: 500, title: "Old Title", trackCount: 4))
            let runner = try h.runner()
            _ = try await runner.runPass()
            h.fake.serveRelease(500, json: syntheticRelease(id: 500, title: "New Title", trackCount: 2))
            h.clock.advance(by: .seconds(31 * 86_400))

            let report = try await runner.runPass()

            #expect(report.synced == 1)
            let album = try #require(try h.database.album(discogsReleaseId: 500))
            #expect(album.title == "New Title")
            #expect(try h.database.tracks(ofAlbum: album.id!).count == 2)
        }
    }

    /// A body that is not JSON, and a real MusicBrainz release (picard's test data: JSON, with a
    /// `title`, but no Discogs release) where a Discogs release should be.
    @Test(.needsSharedFixtures,
          arguments: ["not JSON", "a MusicBrainz release"])
    func aMalformedReleaseFailsThatAlbumOnly(body: String) async throws {
        try await SyncHarness.run { h in
            try h.importCSV()
            try await h.serveCatalogue()
            if body == "not JSON" {
                h.fake.inject(.malformedJSON, on: "/releases/3329867")
            } else {
                h.fake.serveRelease(3329867, json: try Paths.sharedDiscogs("picard_ws_data_release.json"))
            }
            let before = try await catalogueSnapshot(h.database, release: 3329867)

            let report = try await h.runner().runPass()

            #expect(report.synced == 17 && report.failed == 1 && report.error == nil)
            #expect(report.failures.map(\.releaseId) == [3329867])
            let state = try #require(try h.syncState(release: 3329867))
            #expect(state.status == .failed && state.attempts == 1)
            #expect(state.lastError?.hasPrefix("malformed response") == true)
            #expect(state.nextAttemptAt == Timestamp.string(from: h.clock.date.addingTimeInterval(15 * 60)))
            #expect(try await catalogueSnapshot(h.database, release: 3329867) == before, "the failed album stays as it was")
            // A malformed body is not retried within the pass.
            #expect(h.fake.requests(to: "/releases/3329867").count == 1)
        }
    }

    @Test func aFailedAlbumWaitsForItsNextAttemptThenRecovers() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([700])
            h.fake.serveRelease(700, json: syntheticRelease(id: 700))
            h.fake.inject(.status(500), .status(500), on: "/releases/700")
            let runner = try h.runner(client: h.client(retry: RetryPolicy(maxAttempts: 2)))

            #expect(try await runner.runPass().failed == 1)
            #expect(try h.syncState(release: 700)?.lastError == "HTTP 500")
            #expect(try await runner.runPass().albumsDue == 0, "not due before its next attempt")

            h.clock.advance(by: .seconds(15 * 60))
            let report = try await runner.runPass()

            #expect(report.synced == 1)
            let state = try #require(try h.syncState(release: 700))
            #expect(state.status == .synced && state.attempts == 0 && state.lastError == nil)
        }
    }

    /// A CSV credit's artist, replaced by the release's own artists, is gone, and its id leads on
    /// to the first of them: an app that kept it finds that artist's page, not a 404.
    @Test func aReplacedCreditsIdLeadsToTheArtistThatTookItsPlace() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([720])
            let album = try #require(try h.database.album(discogsReleaseId: 720)).id!
            let credit = try #require(try h.database.artists(ofAlbum: album).first?.artist.id)
            h.fake.serveRelease(720, json: Array("""
                {"id": 720, "title": "Title 720", "year": 1990, "genres": [], "styles": [], "labels": [], "formats": [],
                 "artists": [{"id": 5001, "name": "Rebel MC", "anv": "", "join": "&"}, {"id": 5002, "name": "Serial Killaz", "anv": "", "join": ""}],
                 "tracklist": [{"position": "A1", "type_": "track", "title": "One", "duration": "3:00"}]}
                """.utf8))

            #expect(try await h.runner().runPass().synced == 1)
            let artists = try h.database.artists(ofAlbum: album).map(\.artist)
            #expect(artists.map(\.name) == ["Rebel MC", "Serial Killaz"])
            let creditRow = try await h.database.reader.read { db in try Artist.fetchOne(db, key: credit) }
            #expect(creditRow == nil, "the credit's own row is gone")
            #expect(try h.database.currentArtistId(credit) == artists[0].id)
            #expect(try h.database.currentArtistId(artists[1].id!) == artists[1].id, "an artist that is there is itself")
            #expect(try h.database.currentArtistId(987_654) == 987_654, "an id never given stays unknown")
            let user = try #require(try h.database.user(named: "collector")).id!
            #expect(try h.database.artistAlbums(artistId: try h.database.currentArtistId(credit), userId: user)?.albums.map(\.albumId) == [album])
        }
    }

    /// A pass someone asked for (`POST /v1/sync`, `crated sync`) tries a failed album at once, its
    /// backoff not yet over; an album Discogs does not have waits all the same. The status lists
    /// the failed albums whichever pass failed them.
    @Test func aPassAskedForTriesTheFailedAlbumsAtOnce() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([710, 711, 712])
            for id in [710, 711] as [Int64] { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            h.fake.inject(.status(500), .status(500), on: "/releases/710")
            let runner = try h.runner(client: h.client(retry: RetryPolicy(maxAttempts: 2)))

            let first = try await runner.runPass()
            #expect(first.failed == 1 && first.notFound == 1 && first.synced == 1)
            let failed = try h.database.failedAlbumSyncs(userId: nil, limit: 20)
            #expect(failed.map(\.releaseId) == [710])
            #expect(failed.first?.error == "HTTP 500" && failed.first?.attempts == 1)
            #expect(failed.first?.nextAttemptAt == Timestamp.string(from: h.clock.date.addingTimeInterval(15 * 60)))
            #expect(failed.first?.title == "Title 710")

            #expect(try await runner.runPass().albumsDue == 0, "a scheduled pass waits out the backoff")
            let asked = try await runner.runPass(SyncPassOptions(retryFailed: true))
            #expect(asked.albumsDue == 1 && asked.synced == 1, "not found (712) waits for its week")
            #expect(try h.database.failedAlbumSyncs(userId: nil, limit: 20).isEmpty)
        }
    }

    /// A database that cannot take a write (a full disk) stops the pass: what it committed before
    /// stays counted in its report, and the albums it could not write stay as they were.
    @Test func aFullDatabaseStopsThePassAndKeepsCountingWhatItCommitted() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([730, 731, 732])
            h.fake.serveRelease(730, json: syntheticRelease(id: 730))
            h.fake.serveRelease(731, json: syntheticRelease(id: 731, trackCount: 6000))
            h.fake.serveRelease(732, json: syntheticRelease(id: 732))
            // Room for a small album's rows, not for a tracklist of 6,000 (`max_page_count` holds
            // for the writer's connection, as a full disk would).
            try await h.database.writer.writeWithoutTransaction { db in
                let pages = try Int.fetchOne(db, sql: "PRAGMA page_count")!
                try db.execute(sql: "PRAGMA max_page_count = \(pages + 40)")
            }
            let runner = try h.runner(settings: ReleaseSyncSettings(concurrency: 1, maxGroupSize: 1))

            let report = try await runner.runPass()

            #expect(report.synced == 1 && report.failed == 0 && report.skipped == 2)
            #expect(report.error?.hasPrefix("stopped: database error: ") == true, "\(report.error ?? "no error")")
            #expect(try h.syncState(release: 730)?.status == .synced)
            #expect(try h.syncState(release: 731) == nil && h.syncState(release: 732) == nil, "left as they were")
            #expect(h.fake.requests(to: "/releases/732").count <= 1)
        }
    }

    /// A compilation's tracks keep their artists, and the album is found by them.
    @Test func aCompilationIsFoundByItsTracksArtists() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([710])
            h.fake.serveRelease(710, json: Array("""
                {"id": 710, "title": "Soul Sides", "artists": [{"id": 194, "name": "Various", "join": ""}],
                 "tracklist": [
                   {"position": "A1", "type_": "track", "title": "Feeling Good", "duration": "2:53",
                    "artists": [{"id": 31, "name": "Nina Simone", "anv": "", "join": ""}]},
                   {"position": "A2", "type_": "track", "title": "Untitled", "duration": "3:00"}]}
                """.utf8))
            #expect(try await h.runner().runPass().synced == 1)

            let user = try #require(try h.database.user(named: "collector")).id!
            let album = try #require(try h.database.album(discogsReleaseId: 710)).id!
            #expect(try h.database.tracks(ofAlbum: album).map(\.artistCredit) == ["Nina Simone", nil])
            // Her page lists the compilation as one she appears on.
            let nina = try await h.database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE discogs_id = 31") }
            let ninaId = try #require(nina)
            let page = try #require(try h.database.artistAlbums(artistId: ninaId, userId: user))
            #expect(page.artist.name == "Nina Simone" && page.albums.isEmpty && page.appearsOn.map(\.albumId) == [album])
            for text in ["nina simone", "simone"] {
                #expect(try h.database.searchAlbums(userId: user, text: text, limit: 5).map(\.albumId) == [album], "\(text)")
            }
        }
    }

    /// A captive portal or a proxy answering every request with an HTML page stops the pass after a
    /// few albums, as an unreachable host does, instead of failing the whole collection.
    @Test func anHTMLPageForEveryRequestStopsThePass() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = [720, 721, 722, 723, 724, 725]
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            h.fake.injectOnEveryRequest(.htmlPage)
            let report = try await h.runner().runPass()

            #expect(report.failed == 3 && report.synced == 0 && report.skipped == 3)
            #expect(report.error?.contains("stopped after 3 albums in a row failed: an HTML page, not JSON") == true, "\(report.error ?? "")")

            // Two at a time, the fourth is in flight when the third fails: the stop is still said at three.
            h.clock.advance(by: .seconds(86_400))
            let twoAtATime = try await h.runner(settings: ReleaseSyncSettings(concurrency: 2)).runPass()
            #expect(twoAtATime.failed == 4)
            #expect(twoAtATime.error?.contains("stopped after 3 albums in a row failed") == true, "\(twoAtATime.error ?? "")")
        }
    }

    /// A 429 asking for an hour stops the pass with nothing more sent. The album it failed is not
    /// tried again before the hour is over; the albums whose requests were never sent are not failed
    /// (their attempts and retry times would grow with every pass during the pause).
    @Test func anHoursRetryAfterStopsThePassAndHoldsItsAlbumBack() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = [710, 711, 712, 713, 714]
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            h.fake.inject(.status(429, retryAfter: "3600"), on: "/releases/710")
            let runner = try h.runner()

            let report = try await runner.runPass()

            #expect(h.fake.requests.count == 1)
            #expect(report.failed == 1 && report.synced == 0 && report.skipped == 4)
            #expect(report.error == "stopped: not sent: Discogs asked every request to wait (3600 s left)", "\(report.error ?? "")")
            let failed = try #require(try h.syncState(release: 710))
            #expect(failed.status == .failed && failed.attempts == 1)
            #expect(failed.nextAttemptAt! >= Timestamp.string(from: h.clock.date.addingTimeInterval(3600)))
            for id in ids.dropFirst() { #expect(try h.syncState(release: id) == nil, "release \(id) was never asked for") }

            // Passes within the hour send nothing, and fail nothing.
            for _ in 1...2 {
                h.clock.advance(by: .seconds(60))
                let within = try await runner.runPass()
                #expect(within.failed == 0 && within.skipped == 4 && within.error?.hasPrefix("stopped: not sent") == true)
            }
            #expect(h.fake.requests.count == 1)
            #expect(try h.syncState(release: 710)?.attempts == 1)
            for id in ids.dropFirst() { #expect(try h.syncState(release: id) == nil) }

            // After it, the pass goes through.
            h.clock.advance(by: .seconds(3600))
            #expect(try await runner.runPass().synced == 5)
        }
    }

    @Test func aReleaseTheSchemaRefusesFailsAloneAndThePassGoesOn() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = [900, 901, 902]
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            // Stands for whatever rule of the schema a real release may break one day.
            try await h.database.writer.write { db in
                try db.execute(sql: """
                    CREATE TRIGGER refuse_901 BEFORE INSERT ON track
                    WHEN NEW.album_id = (SELECT id FROM album WHERE discogs_release_id = 901)
                    BEGIN SELECT RAISE(ABORT, 'a rule release 901 breaks'); END
                    """)
            }
            let runner = try h.runner(settings: ReleaseSyncSettings(concurrency: 1, maxGroupSize: 3))

            let report = try await runner.runPass()

            #expect(report.synced == 2 && report.failed == 1 && !report.stoppedEarly)
            #expect(report.failures.map(\.releaseId) == [901])
            #expect(try h.syncState(release: 900)?.status == .synced)
            #expect(try h.syncState(release: 902)?.status == .synced)
            let refused = try #require(try h.syncState(release: 901))
            #expect(refused.status == .failed && refused.attempts == 1)
            #expect(refused.lastError == "could not store the release: a rule release 901 breaks")
            let album = try #require(try h.database.album(discogsReleaseId: 901))
            #expect(album.title != "Release 901", "nothing of the refused release was kept")
            #expect(try await runner.runPass().albumsDue == 0, "it waits for its next attempt like any failure")
        }
    }

    @Test func repeatedFailuresBackOffUpToADay() {
        let settings = ReleaseSyncSettings()
        #expect(settings.failureRetryDelay(attempts: 1) == 15 * 60)
        #expect(settings.failureRetryDelay(attempts: 2) == 30 * 60)
        #expect(settings.failureRetryDelay(attempts: 3) == 60 * 60)
        #expect(settings.failureRetryDelay(attempts: 20) == 86_400)
    }

    @Test func a404MarksTheAlbumNotFound() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([800, 801])
            h.fake.serveRelease(801, json: syntheticRelease(id: 801))

            let report = try await h.runner().runPass()

            #expect(report.notFound == 1 && report.synced == 1 && report.failed == 0)
            let state = try #require(try h.syncState(release: 800))
            #expect(state.status == .notFound)
            #expect(h.fake.requests(to: "/releases/800").count == 1, "a 404 is an answer, not retried")
            #expect(try await h.runner().counts().notFound == 1)
        }
    }

    @Test func aSlowTruncatedOrOversizedReleaseFailsAfterItsRetries() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([901, 902, 903, 904])
            for id: Int64 in [901, 902, 903, 904] { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            h.fake.inject(.slow(.seconds(20)), .slow(.seconds(20)), on: "/releases/901")
            h.fake.inject(.truncated, .truncated, on: "/releases/902")
            h.fake.inject(.oversized(bytes: 1 << 20, declaredLength: false), on: "/releases/903")
            let client = try h.client(
                retry: RetryPolicy(maxAttempts: 2),
                transport: CurlTransportOptions(connectTimeout: .seconds(5), totalTimeout: .seconds(1), maxResponseBytes: 256 * 1024))

            let report = try await h.runner(client: client).runPass()

            #expect(report.failed == 3 && report.synced == 1)
            #expect(try h.syncState(release: 901)?.lastError == "timed out")
            #expect(try h.syncState(release: 902)?.lastError?.hasPrefix("connection lost") == true)
            #expect(try h.syncState(release: 903)?.lastError == "response larger than 262144 bytes")
            #expect(h.fake.requests(to: "/releases/901").count == 2)
            #expect(h.fake.requests(to: "/releases/903").count == 1, "an oversized body is not retried")
            #expect(try h.syncState(release: 904)?.status == .synced)
        }
    }

    @Test func aRedirectLoopFailsTheAlbum() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([950])
            h.fake.inject(.redirectLoop, .redirectLoop, .redirectLoop, .redirectLoop, .redirectLoop, .redirectLoop, on: "/releases/950")

            let report = try await h.runner().runPass()

            #expect(report.failed == 1)
            #expect(try h.syncState(release: 950)?.lastError == "more than 5 redirects")
        }
    }

    @Test func theServerDyingMidSyncStopsThePassAndLeavesTheRestUntouched() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = Array(1000...1019)
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            // The sixth request never gets an answer: the host goes away while it waits.
            h.fake.inject(.hold, on: "/releases/1005")
            let runner = try h.runner(client: h.client(retry: RetryPolicy(maxAttempts: 2)))

            let pass = Task { try await runner.runPass() }
            try await waitUntil("the request for release 1005") { !h.fake.requests(to: "/releases/1005").isEmpty }
            h.fake.die()
            let report = try await pass.value

            #expect(report.synced == 5)
            #expect(report.failed == 3, "three albums in a row fail, then the pass stops")
            #expect(report.error?.contains("3 albums in a row failed") == true)
            #expect(report.skipped == 12)
            for id in ids.prefix(5) { #expect(try h.syncState(release: id)?.status == .synced) }
            for id in ids[5..<8] { #expect(try h.syncState(release: id)?.status == .failed) }
            for id in ids.suffix(12) { #expect(try h.syncState(release: id) == nil, "release \(id) was never tried") }
        }
    }

    @Test(.needsSharedFixtures)
    func limitAndUserBoundThePass() async throws {
        try await SyncHarness.run { h in
            try h.importCSV()
            try await h.serveCatalogue()
            _ = try h.database.addUser(named: "other")

            let limited = try await h.runner().runPass(SyncPassOptions(limit: 4))
            #expect(limited.albumsDue == 4 && limited.synced == 4)

            await #expect(throws: SyncError.user("no user named 'nobody'")) {
                try await h.runner().runPass(SyncPassOptions(userName: "nobody"))
            }
            let others = try await h.runner().runPass(SyncPassOptions(userName: "other"))
            #expect(others.albumsDue == 0, "the other user owns no copies")
            let collectors = try await h.runner().runPass(SyncPassOptions(userName: "collector"))
            #expect(collectors.synced == 14)
        }
    }

    @Test func aStopRequestFinishesTheAlbumInFlightAndStartsNoMore() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = Array(2000...2009)
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            let stop = StopAfter(albums: 3)
            // One album per group, so that exactly one is in flight whenever one is written.
            let runner = try h.runner(settings: ReleaseSyncSettings(concurrency: 1, maxGroupSize: 1))

            let report = try await runner.runPass(shouldStop: { stop.shouldStop }, progress: { stop.record($0) })

            // The fetch of the fourth album starts while the third is written: it is in flight when
            // the stop comes, so it finishes too. Nothing after it starts.
            #expect(report.synced == 4 && report.skipped == 6 && report.stoppedEarly)
            #expect(report.error == nil)
            #expect(h.fake.requests.count == 4)
        }
    }

    @Test func aStopRequestInAGroupedPassWritesEveryAlbumAlreadyFetchedAndStartsNoMore() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = Array(2100...2159)
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id)) }
            let stop = StopAfter(albums: 3)
            let runner = try h.runner(settings: ReleaseSyncSettings(concurrency: 2, maxGroupSize: 8))

            let report = try await runner.runPass(shouldStop: { stop.shouldStop }, progress: { stop.record($0) })

            // How many were fetched ahead of the writer when the stop came depends on timing; every
            // one of them is written, and none starts after.
            let requested = Set(h.fake.requests(to: "/releases/").map(\.path))
            #expect(report.stoppedEarly && report.error == nil)
            #expect(report.synced == requested.count && report.synced + report.skipped == ids.count)
            #expect(requested.count < ids.count, "the stop came before the end")
            for id in ids {
                let state = try h.syncState(release: id)
                #expect((state?.status == .synced) == requested.contains("/releases/\(id)"), "release \(id)")
            }
        }
    }

    @Test func fetchesThatOutpaceTheWriterAreCommittedInGroupsEachAlbumWhole() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = Array(2200...2239)
            try h.importReleases(ids)
            for id in ids { h.fake.serveRelease(id, json: syntheticRelease(id: id, trackCount: 2 + Int(id % 4))) }
            let steps = ProgressSteps()
            // A long wait for company: groups fill up to their size, or end with the pass.
            let runner = try h.runner(settings: ReleaseSyncSettings(concurrency: 4, maxGroupSize: 16, maxGroupWait: .seconds(5)))

            let report = try await runner.runPass(progress: { steps.record($0) })

            #expect(report.synced == ids.count && report.failed == 0)
            #expect(steps.largest > 1 && steps.largest <= 16, "groups of \(steps.all)")
            for id in ids {
                let album = try #require(try h.database.album(discogsReleaseId: id))
                #expect(album.title == "Release \(id)")
                #expect(try h.database.tracks(ofAlbum: album.id!).count == 2 + Int(id % 4))
                #expect(try h.syncState(release: id)?.status == .synced)
            }
            // The search index was refreshed for every album of every group.
            let indexed = try await h.database.reader.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_search WHERE album_search MATCH ?", arguments: ["\"Track 2 of\"*"])
            }
            #expect(indexed == ids.count)
        }
    }
}

/// Asks a pass to stop once it has finished a number of albums.
private final class StopAfter: Sendable {
    private let albums: Int
    private let done = Mutex(0)
    init(albums: Int) { self.albums = albums }
    var shouldStop: Bool { done.withLock { $0 >= albums } }
    func record(_ progress: SyncProgress) { done.withLock { $0 = progress.albumsDone } }
}

/// The albums each progress report added: the groups a pass committed.
private final class ProgressSteps: Sendable {
    private let state = Mutex((done: 0, steps: [Int]()))
    func record(_ progress: SyncProgress) {
        state.withLock { state in
            if progress.albumsDone > state.done { state.steps.append(progress.albumsDone - state.done) }
            state.done = progress.albumsDone
        }
    }
    var all: [Int] { state.withLock { $0.steps } }
    var largest: Int { all.max() ?? 0 }
}
