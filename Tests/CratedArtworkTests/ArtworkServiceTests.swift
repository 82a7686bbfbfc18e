@testable import CratedArtwork
import CratedCore
import CratedSync
import CratedTestSupport
import Foundation
import GRDB
import Logging
import Testing

/// Covers fetched from a fake image host on 127.0.0.1 through libcurl, kept on disk, resized, evicted.
@Suite struct ArtworkServiceTests {
    /// A collection whose albums have covers on the fake host, and a service in a temporary directory.
    struct Fixture {
        let temporary: TemporaryDatabase
        let host: FakeDiscogs
        let service: ArtworkService
        let userId: Int64

        private init(maxBytes: Int, limits: ImageLimits, sizesAhead: Int, totalTimeout: Duration, attempts: Int, requestsPerMinute: Int) async throws {
            temporary = try TemporaryDatabase()
            host = try await FakeDiscogs.start()
            var logger = Logger(label: "artwork-tests")
            logger.logLevel = .critical
            let files = ArtworkFiles(root: temporary.directory.path("artwork"))
            let fetcher = ArtworkFetcher(
                database: temporary.database, files: files,
                transport: CurlHTTPTransport(options: CurlTransportOptions(totalTimeout: totalTimeout, maxResponseBytes: limits.maxSourceBytes)),
                settings: ArtworkFetchSettings(userAgent: "crated-tests", requestsPerMinute: requestsPerMinute, limits: limits,
                                               retry: RetryPolicy(maxAttempts: attempts)),
                rateLimiters: RateLimiterRegistry(), logger: logger)
            service = try ArtworkService(database: temporary.database, files: files, fetcher: fetcher, maxBytes: maxBytes,
                                         sizesAhead: sizesAhead, logger: logger)
            userId = try await temporary.database.writer.write { db in try db.insertUser("collector") }
        }

        /// Runs `body` with a fixture and stops its image host before returning (see `FakeDiscogs.with`).
        static func with(
            maxBytes: Int = 1 << 30, limits: ImageLimits = ImageLimits(), sizesAhead: Int = 0,
            totalTimeout: Duration = .seconds(30), attempts: Int = 1, requestsPerMinute: Int = 6000,
            _ body: (Fixture) async throws -> Void
        ) async throws {
            let fixture = try await Fixture(maxBytes: maxBytes, limits: limits, sizesAhead: sizesAhead, totalTimeout: totalTimeout,
                                            attempts: attempts, requestsPerMinute: requestsPerMinute)
            try await fixture.host.stopping { try await body(fixture) }
        }

        /// An album the collector owns whose cover is `path` on the fake host (or on `otherHost`);
        /// returns its artwork key.
        @discardableResult
        func album(_ title: String, cover path: String, width: Int? = 600, otherHost: String? = nil) throws -> String {
            let url = (otherHost ?? host.baseURL) + path
            return try temporary.database.writer.write { db in
                let albumId = try db.insertAlbum(title: title, artistId: try db.insertArtist("Artist of \(title)"))
                try db.insertImage(albumId: albumId, uri: url, uri150: "", width: width)
                _ = try db.insertCopy(userId: userId, albumId: albumId, dateAdded: "2024-01-01T00:00:00Z")
                return try db.artworkKey(of: url)
            }
        }

        /// Asks for a cover that must not be served: its 503's reason and `Retry-After`, or nil (with an
        /// issue recorded) when it was served.
        func unavailable(_ key: String, width: Int = 128) async throws -> (reason: String, retryAfter: Int)? {
            do throws(ArtworkServeError) {
                _ = try await service.variant(key: key, width: width, accept: nil)
                Issue.record("the cover \(key) was served")
                return nil
            } catch {
                guard case .unavailable(let reason, let retryAfter) = error else { throw error }
                return (reason, retryAfter)
            }
        }

        func record(_ key: String) throws -> ArtworkRecord {
            try #require(try service.database.artwork(key: key))
        }
    }

    static let red: [UInt8] = [200, 30, 40]

    @Test func aCoverIsFetchedOnceKeptByContentAndServedAsVariants() async throws {
        try await Fixture.with { fixture in
            let jpeg = TestImages.solid(Self.red, width: 600, height: 400, suffix: ".jpg[Q=95]")
            fixture.host.serve("/covers/red.jpg", bytes: jpeg, contentType: "image/jpeg")
            let key = try fixture.album("Red", cover: "/covers/red.jpg")

            let webp = try await fixture.service.variant(key: key, width: 192, accept: "image/avif,image/webp,*/*")
            #expect(webp.contentType == "image/webp")
            let webpHeader = try DecodedHeader(try fixture.service.files.read(webp.path))
            #expect((webpHeader.width, webpHeader.height) == (192, 128))
            #expect(webp.bytes == (try fixture.service.files.read(webp.path)).count)
            // Small and just served: kept in memory, and the next request is answered from there.
            #expect(webp.contents?.readableBytes == webp.bytes)
            let again = try await fixture.service.variant(key: key, width: 192, accept: "image/webp")
            #expect(again == webp)
            #expect(fixture.host.requests(to: "/covers/red.jpg").count == 1)

            let jpegVariant = try await fixture.service.variant(key: key, width: 1024, accept: nil)
            #expect(jpegVariant.contentType == "image/jpeg")
            // Never upscaled: the original is 600 pixels wide.
            let jpegHeader = try DecodedHeader(try fixture.service.files.read(jpegVariant.path))
            #expect((jpegHeader.width, jpegHeader.height) == (600, 400))

            // Fetched once; recorded with its size, colour and content hash, the file named by it.
            #expect(fixture.host.requests(to: "/covers/red.jpg").count == 1)
            let record = try fixture.record(key)
            #expect((record.width, record.height, record.format) == (600, 400, "jpeg"))
            let color = try #require(record.color)
            #expect(RGBColor(hex: color)?.distance(to: Self.red) ?? 99 <= 3)
            let sha256 = try #require(record.sha256)
            #expect(try fixture.service.files.read(fixture.service.files.originalPath(sha256: sha256)) == jpeg)
            #expect(webp.etag == "\"\(sha256.prefix(32))-192-webp\"")
            #expect(fixture.service.currentETag(key: key, width: 192, accept: "image/webp") == webp.etag)
        }
    }

    @Test func manyRequestsForOneNewCoverFetchAndResizeOnce() async throws {
        try await Fixture.with { fixture in
            fixture.host.serve("/covers/slow.png", bytes: TestImages.solid([10, 200, 10], width: 300, height: 300, suffix: ".png"), contentType: "image/png")
            fixture.host.inject(.slow(.milliseconds(300)), on: "/covers/slow.png")
            let key = try fixture.album("Slow", cover: "/covers/slow.png")
            let served = try await withThrowingTaskGroup(of: ServedArtwork.self) { group in
                for _ in 0..<8 { group.addTask { try await fixture.service.variant(key: key, width: 128, accept: "image/webp") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(served.map(\.path)).count == 1)
            #expect(fixture.host.requests(to: "/covers/slow.png").count == 1)
            #expect(try fixture.service.database.artworkDiskUsage().variants == 1)
        }
    }

    /// Every fault of an image host fails its own cover, with a reason and a retry time; the good
    /// cover beside them is fetched; the bomb is refused from its header.
    @Test func eachBadCoverFailsAloneWithAReasonAndARetryTime() async throws {
        try await Fixture.with(limits: ImageLimits(maxSourceBytes: 200_000)) { fixture in
            let host = fixture.host
            let jpeg = TestImages.solid(Self.red, width: 400, height: 400, suffix: ".jpg")
            host.serve("/good.jpg", bytes: jpeg, contentType: "image/jpeg")
            host.serve("/page.jpg", bytes: Array("<!doctype html><title>Login</title>".utf8), contentType: "text/html; charset=utf-8")
            host.serve("/empty.jpg", bytes: [], contentType: "image/jpeg")
            host.serve("/truncated.jpg", bytes: Array(jpeg.prefix(jpeg.count / 2)), contentType: "image/jpeg")
            host.serve("/bomb.png", bytes: try Fixtures.bytes("bomb.png"), contentType: "image/png")
            host.serve("/mislabelled.jpg", bytes: jpeg, contentType: "application/octet-stream")
            host.serve("/limited.jpg", bytes: jpeg, contentType: "image/jpeg")
            host.inject(.status(429, retryAfter: "120"), on: "/limited.jpg")
            host.serve("/huge.jpg", bytes: jpeg, contentType: "image/jpeg")
            host.inject(.oversized(bytes: 300_000, declaredLength: false), on: "/huge.jpg")
            var keys: [String: String] = [:]
            // The 429 comes last: the host's Retry-After holds back its other covers, which a pass then
            // leaves for later (`hostBusyLeavesTheHostsOtherCoversForLater`).
            for path in ["/good.jpg", "/page.jpg", "/empty.jpg", "/truncated.jpg", "/bomb.png", "/mislabelled.jpg", "/huge.jpg", "/missing.jpg", "/limited.jpg"] {
                keys[path] = try fixture.album(path, cover: path)
            }

            let started = Date()
            let summary = await fixture.service.fetchCovers(userId: fixture.userId, staleAfter: 86_400) { false }
            #expect(summary.fetched == 1)
            #expect(summary.failed == 8)
            #expect(Date().timeIntervalSince(started) < 30, "no fault holds the pass")

            func failure(_ path: String) throws -> (error: String, retryIn: TimeInterval) {
                let record = try fixture.record(keys[path]!)
                #expect(record.sha256 == nil, "\(path) is not kept")
                let retryAt = try #require(record.retryAt.flatMap(Timestamp.date(from:)))
                return (try #require(record.lastError), retryAt.timeIntervalSince(started))
            }
            #expect(try fixture.record(keys["/good.jpg"]!).sha256 != nil)
            #expect(try failure("/page.jpg").error.contains("text/html"))
            #expect(try failure("/empty.jpg").error.contains("empty") || failure("/empty.jpg").error.contains("not an image"))
            #expect(try failure("/truncated.jpg").retryIn > 86_400)
            #expect(try failure("/bomb.png").error.contains("30000"))
            #expect(try failure("/mislabelled.jpg").error.contains("application/octet-stream"))
            let limited = try failure("/limited.jpg")
            #expect(limited.error.contains("429"))
            #expect(limited.retryIn >= 119 && limited.retryIn < 200, "the host's Retry-After")
            #expect(try failure("/huge.jpg").error.contains("larger than 200000 bytes"))
            #expect(try failure("/missing.jpg").error.contains("404"))
            // What the host will not fix shows as no cover; a host that asked to wait keeps its URL.
            for path in ["/page.jpg", "/empty.jpg", "/truncated.jpg", "/bomb.png", "/mislabelled.jpg", "/huge.jpg", "/missing.jpg"] {
                #expect(try fixture.record(keys[path]!).unusable, "\(path)")
            }
            #expect(try !fixture.record(keys["/limited.jpg"]!).unusable)

            // Asked for before its retry time, a failed cover answers at once, saying when to come back.
            await #expect(throws: ArtworkServeError.self) { try await fixture.service.variant(key: keys["/page.jpg"]!, width: 192, accept: nil) }
            #expect(host.requests(to: "/page.jpg").count == 1)
            // A second pass leaves them alone until then.
            let again = await fixture.service.fetchCovers(userId: fixture.userId, staleAfter: 86_400) { false }
            #expect(again == CoverFetchSummary())
            let counts = try fixture.service.database.artworkCounts(userId: fixture.userId)
            #expect((counts.stored, counts.failed, counts.pending) == (1, 8, 0))
        }
    }

    /// A cover refused for its size waits a week; once the operator raises `artwork.maxSourceBytes`
    /// past it, the daemon's next start makes it due and shows it as a cover again, and the next
    /// pass fetches it. Covers refused for other reasons, or still over the limit, stay as they were.
    @Test func raisingTheSourceLimitLetsInTheCoversItRefused() async throws {
        try await Fixture.with(limits: ImageLimits(maxSourceBytes: 200_000)) { fixture in
            let jpeg = TestImages.solid(Self.red, width: 400, height: 400, suffix: ".jpg")
            fixture.host.serve("/huge.jpg", bytes: jpeg, contentType: "image/jpeg")
            fixture.host.inject(.oversized(bytes: 300_000, declaredLength: false), on: "/huge.jpg")
            fixture.host.serve("/page.jpg", bytes: Array("<!doctype html>".utf8), contentType: "text/html")
            let huge = try fixture.album("Huge", cover: "/huge.jpg")
            let page = try fixture.album("Page", cover: "/page.jpg")
            _ = await fixture.service.fetchCovers(userId: fixture.userId, staleAfter: 86_400) { false }
            #expect(try fixture.record(huge).lastError == AppDatabase.SizeRefusal.overLimit(200_000))
            #expect(try fixture.record(huge).unusable && fixture.record(page).unusable)
            let database = fixture.temporary.database
            // A cover whose size is known (the transfer let it in, the check did not).
            let sized = try fixture.album("Sized", cover: "/sized.jpg")
            try await database.recordArtworkFailure(id: try fixture.record(sized).id!, error: AppDatabase.SizeRefusal.ofSize(250_000),
                                                    retryAt: Date().addingTimeInterval(7 * 86_400), unusable: true)

            // Restarted with the same limit, or with one the sized cover is still over: nothing changes.
            var configuration = try CratedConfiguration.defaults()
            configuration.artworkMaxSourceBytes = 200_000
            _ = try ArtworkService(database: database, configuration: configuration, directory: fixture.temporary.directory.path("artwork"))
            #expect(try fixture.record(huge).unusable && fixture.record(sized).unusable)
            #expect(try database.retryCoversRefusedForSize(maxSourceBytes: 249_999, now: Date()) == 1)
            #expect(try !fixture.record(huge).unusable && fixture.record(sized).unusable)

            configuration.artworkMaxSourceBytes = 400_000
            _ = try ArtworkService(database: database, configuration: configuration, directory: fixture.temporary.directory.path("artwork"))
            #expect(try !fixture.record(sized).unusable && fixture.record(page).unusable)
            // Due again as a cover never tried: the next start finds nothing more to do.
            #expect(try fixture.record(huge).lastError == nil && fixture.record(huge).failures == 0)
            #expect(try database.retryCoversRefusedForSize(maxSourceBytes: 400_000, now: Date()) == 0)
            let due = try #require(try fixture.record(huge).retryAt.flatMap(Timestamp.date(from:)))
            #expect(due <= Date())
            // The host sends the whole image this time (its fault was for one request): the next pass keeps it.
            let later = try ArtworkService(database: database, configuration: configuration, directory: fixture.temporary.directory.path("artwork"))
            let summary = await later.fetchCovers(userId: fixture.userId, staleAfter: 86_400) { false }
            #expect(summary.fetched == 1, "\(summary)")
            #expect(try fixture.record(huge).sha256 != nil)
        }
    }

    /// Of each cover a pass fetches, the sizes of which most variants were made are made ahead, as
    /// many as `sizesAhead` says; the others wait for a request.
    @Test(arguments: [0, 1, 2])
    func aPassMakesTheMostMadeSizesAhead(sizesAhead: Int) async throws {
        try await Fixture.with(sizesAhead: sizesAhead) { fixture in
            var keys: [String] = []
            for (index, colour) in [[200, 30, 40], [30, 200, 40], [30, 40, 200]].enumerated() {
                let path = "/covers/\(index).jpg"
                fixture.host.serve(path, bytes: TestImages.solid(colour.map(UInt8.init), width: 600, height: 600, suffix: ".jpg"), contentType: "image/jpeg")
                keys.append(try fixture.album("Album \(index)", cover: path))
            }
            // A device has drawn the first two covers at 320 px in WebP, and the first at 128 px in JPEG.
            _ = try await fixture.service.variant(key: keys[0], width: 320, accept: "image/webp")
            _ = try await fixture.service.variant(key: keys[1], width: 320, accept: "image/webp")
            _ = try await fixture.service.variant(key: keys[0], width: 128, accept: nil)

            let summary = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect(summary.fetched == 1)
            let sha256 = try #require(try fixture.record(keys[2]).sha256)
            func made(_ width: Int, _ format: String) throws -> Bool {
                let key = ArtworkVariantKey(sha256: sha256, width: width, format: format)
                let recorded = try fixture.service.database.artworkVariant(sha256: sha256, width: width, format: format) != nil
                #expect(recorded == fixture.service.files.exists(fixture.service.files.variantPath(key)))
                return recorded
            }
            #expect(try made(320, "webp") == (sizesAhead >= 1))
            #expect(try made(128, "jpeg") == (sizesAhead >= 2))
            #expect(try !made(640, "webp"))
            if sizesAhead >= 1 {
                let served = try await fixture.service.variant(key: keys[2], width: 320, accept: "image/webp")
                let info = try ImageProcessor.inspect(try Data(contentsOf: URL(fileURLWithPath: served.path)))
                #expect((info.format, info.width) == (.webp, 320))
            }
        }
    }

    /// A host that answers 429 with a long Retry-After holds neither the pass nor a request: its other
    /// covers are left for a later pass, and a request answers 503 with the wait.
    @Test func aBusyHostsOtherCoversAreLeftForLater() async throws {
        try await Fixture.with { fixture in
            let jpeg = TestImages.solid(Self.red, width: 200, height: 200, suffix: ".jpg")
            fixture.host.serve("/first.jpg", bytes: jpeg, contentType: "image/jpeg")
            fixture.host.serve("/second.jpg", bytes: jpeg, contentType: "image/jpeg")
            fixture.host.inject(.status(429, retryAfter: "600"), on: "/first.jpg")
            let first = try fixture.album("First", cover: "/first.jpg")
            let second = try fixture.album("Second", cover: "/second.jpg")
            // Albums added at the same moment: the first one is fetched first.
            let started = Date()
            let summary = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect(Date().timeIntervalSince(started) < 10)
            #expect((summary.fetched, summary.failed, summary.skipped) == (0, 1, 1))
            #expect(fixture.host.requests(to: "/second.jpg").isEmpty)
            #expect(try fixture.record(second).failures == 0)
            if let refused = try await fixture.unavailable(second) {
                #expect(refused.retryAfter > 500 && refused.retryAfter <= 602)
            }
            // Refused unsent while the host waits: a retry time, but no failure of its own, which
            // would lengthen its waits after the host's.
            let refusedUnsent = try fixture.record(second)
            #expect(refusedUnsent.failures == 0 && refusedUnsent.retryAt != nil)
            #expect(fixture.host.requests(to: "/second.jpg").isEmpty)
            #expect(try fixture.record(first).failures == 1)
        }
    }

    /// A cover that failed because its host failed every request (here a 503) is due again as soon as
    /// that host gives an image, not after its own quarter of an hour. A cover that failed alone (a
    /// 500 for that image) keeps its wait, and so does one whose own host is still down.
    @Test func coversThatFailedWithTheirHostAreDueWhenItAnswersAgain() async throws {
        try await Fixture.with { fixture in
            let jpeg = TestImages.solid(Self.red, width: 200, height: 200, suffix: ".jpg")
            for path in ["/first.jpg", "/down.jpg", "/broken.jpg", "/up.jpg"] {
                fixture.host.serve(path, bytes: jpeg, contentType: "image/jpeg")
            }
            let first = try fixture.album("First", cover: "/first.jpg")
            let down = try fixture.album("Down", cover: "/down.jpg")
            let broken = try fixture.album("Broken", cover: "/broken.jpg")
            let up = try fixture.album("Up", cover: "/up.jpg")
            // Refused while the socket is open: a host that cannot be reached.
            let (closed, port) = try LoopbackSocket.bound()
            defer { close(closed) }
            let elsewhere = try fixture.album("Elsewhere", cover: "/elsewhere.jpg", otherHost: "http://127.0.0.1:\(port)")

            // The host has given an image: from here on only a failure of its own marks it recovering.
            _ = try await fixture.service.variant(key: first, width: 128, accept: nil)
            fixture.host.inject(.status(503), on: "/down.jpg")
            fixture.host.inject(.status(500), on: "/broken.jpg")
            #expect(try await fixture.unavailable(down)?.retryAfter ?? 0 > 800)
            #expect(try await fixture.unavailable(broken)?.retryAfter ?? 0 > 800)
            #expect(try await fixture.unavailable(elsewhere)?.retryAfter ?? 0 > 800)
            #expect(try fixture.record(down).hostFailed && fixture.record(elsewhere).hostFailed && !fixture.record(broken).hostFailed)
            let elsewhereWait = try fixture.record(elsewhere).retryAt

            // Waits out the host's short pause after the 503, and is served: the host is back.
            _ = try await fixture.service.variant(key: up, width: 128, accept: nil)
            let served = try await fixture.service.variant(key: down, width: 128, accept: nil)
            #expect(try DecodedHeader(try fixture.service.files.read(served.path)).width == 128)
            #expect(fixture.host.requests(to: "/down.jpg").count == 2)
            #expect(try !fixture.record(down).hostFailed)

            #expect(try await fixture.unavailable(broken)?.retryAfter ?? 0 > 800)
            #expect(fixture.host.requests(to: "/broken.jpg").count == 1)
            #expect(try fixture.record(elsewhere).retryAt == elsewhereWait)
        }
    }

    /// A stale cover is asked for again conditionally: the host's 304 keeps the original (no request
    /// for the body, no new file) and dates the check.
    @Test func aStaleCoverIsCheckedAgainWithItsETag() async throws {
        try await Fixture.with { fixture in
            fixture.host.serve("/cover.jpg", bytes: TestImages.solid(Self.red, width: 200, height: 200, suffix: ".jpg"), contentType: "image/jpeg")
            let key = try fixture.album("Cover", cover: "/cover.jpg")
            let first = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect(first.fetched == 1)
            let fetched = try fixture.record(key)
            let etag = try #require(fetched.etag)
            try await fixture.temporary.database.writer.write { db in
                try db.execute(sql: "UPDATE artwork SET fetched_at = '2020-01-01T00:00:00Z' WHERE id = ?", arguments: [fetched.id])
            }

            let again = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect((again.fetched, again.unchanged, again.failed) == (0, 1, 0))
            let requests = fixture.host.requests(to: "/cover.jpg")
            #expect(requests.count == 2 && requests.last?.headers["if-none-match"] == etag)
            let checked = try fixture.record(key)
            #expect(checked.sha256 == fetched.sha256 && checked.fetchedAt != "2020-01-01T00:00:00Z")
            let originals = try FileManager.default.subpathsOfDirectory(atPath: fixture.service.files.root + "/originals")
                .filter { !$0.hasSuffix("/") && $0.count > 3 }
            #expect(originals.count == 1, "\(originals)")
        }
    }

    /// An image host's `Retry-After` no host means is a day at most: the cover's retry time, and the
    /// host's pause, end within a day (a wait of `Int.max` seconds overflowed the retry time).
    @Test func anAbsurdRetryAfterHoldsTheHostADayAtMost() async throws {
        try await Fixture.with { fixture in
            fixture.host.inject(.status(429, retryAfter: "9223372036854775807"), on: "/absurd.jpg")
            let key = try fixture.album("Absurd", cover: "/absurd.jpg")
            let summary = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect(summary.failed == 1)
            let retryAt = try #require(try fixture.record(key).retryAt)
            #expect(retryAt <= Timestamp.string(from: Date().addingTimeInterval(86_402)), "\(retryAt)")
        }
    }

    /// An original damaged on disk is forgotten and fetched again at its next attempt, instead of
    /// answering "the database is busy" at every request.
    @Test func anOriginalThatCannotBeResizedIsFetchedAgainLater() async throws {
        try await Fixture.with { fixture in
            fixture.host.serve("/cover.jpg", bytes: TestImages.solid(Self.red, width: 400, height: 400, suffix: ".jpg"), contentType: "image/jpeg")
            let key = try fixture.album("Damaged", cover: "/cover.jpg")
            _ = try await fixture.service.variant(key: key, width: 128, accept: nil)
            let sha256 = try #require(try fixture.record(key).sha256)
            let original = fixture.service.files.originalPath(sha256: sha256)
            // A JPEG's start with its data gone: read as an image, but not resized.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: original))
            try bytes.prefix(200).write(to: URL(fileURLWithPath: original))

            let refused = try await fixture.unavailable(key, width: 320)
            #expect(refused?.reason.contains("the stored image could not be resized") == true, "\(String(describing: refused))")
            #expect((refused?.retryAfter ?? 0) >= 900)
            let record = try fixture.record(key)
            #expect(record.sha256 == nil && record.failures == 1 && record.retryAt != nil)
            #expect(!FileManager.default.fileExists(atPath: original))
        }
    }

    /// A request for a cover not yet fetched does not wait out the image host's rate window (a pass
    /// may have spent it): it answers 503 with the wait, and the cover is fetched after it.
    @Test func aRequestDoesNotQueueForTheHostsRateWindow() async throws {
        try await Fixture.with(requestsPerMinute: 1) { fixture in
            let jpeg = TestImages.solid(Self.red, width: 200, height: 200, suffix: ".jpg")
            fixture.host.serve("/first.jpg", bytes: jpeg, contentType: "image/jpeg")
            fixture.host.serve("/second.jpg", bytes: jpeg, contentType: "image/jpeg")
            let first = try fixture.album("First", cover: "/first.jpg")
            let second = try fixture.album("Second", cover: "/second.jpg")
            _ = try await fixture.service.variant(key: first, width: 128, accept: nil)

            let started = Date()
            let refused = try await fixture.unavailable(second)
            #expect(Date().timeIntervalSince(started) < 5, "waited for the rate window")
            #expect(refused?.reason.contains("rate limit") == true, "\(String(describing: refused))")
            #expect((refused?.retryAfter ?? 0) > 10 && (refused?.retryAfter ?? 0) <= 64)
            #expect(fixture.host.requests(to: "/second.jpg").isEmpty)
            #expect(try fixture.record(second).failures == 0, "not sent: no failure of its own")
        }
    }

    @Test func unknownKeysAndWidthsAreNotFound() async throws {
        try await Fixture.with { fixture in
            let key = try fixture.album("Any", cover: "/any.jpg")
            for (key, width) in [(key, 100), (key, 0), (String(repeating: "0", count: 32), 192), ("../../etc/passwd", 192), (key.uppercased(), 192)] {
                await #expect(throws: ArtworkServeError.self) { try await fixture.service.variant(key: key, width: width, accept: nil) }
            }
            #expect(fixture.host.requests.isEmpty)
        }
    }

    /// Over budget, the least recently used variants go first; originals only when no variant is
    /// left. An evicted cover keeps its size and colour, and comes back when asked for.
    @Test func evictionTakesVariantsFirstThenOriginals() async throws {
        try await Fixture.with { fixture in
            for (name, shade) in [("a", UInt8(50)), ("b", UInt8(150))] {
                fixture.host.serve("/\(name).jpg", bytes: TestImages.solid([shade, 60, 70], width: 500, height: 500, suffix: ".jpg"), contentType: "image/jpeg")
            }
            let a = try fixture.album("A", cover: "/a.jpg")
            let b = try fixture.album("B", cover: "/b.jpg")
            _ = try await fixture.service.variant(key: a, width: 128, accept: nil)
            _ = try await fixture.service.variant(key: a, width: 256, accept: nil)
            try await fixture.service.flushUse()
            try await Task.sleep(for: .seconds(1.1))
            let recent = try await fixture.service.variant(key: a, width: 192, accept: nil)
            _ = try await fixture.service.variant(key: b, width: 192, accept: nil)
            try await fixture.service.flushUse()
            let usage = try fixture.service.database.artworkDiskUsage()
            #expect((usage.originals, usage.variants) == (2, 4))

            // Just under the total: the least recently used variant goes.
            let first = try await fixture.service.prune(target: usage.totalBytes - 1)
            #expect((first.variantsRemoved, first.originalsRemoved) == (1, 0))
            #expect(fixture.service.files.exists(recent.path))
            // Nothing may stay: every variant, then the original.
            let all = try await fixture.service.prune(target: 0)
            #expect((all.variantsRemoved, all.originalsRemoved) == (3, 2))
            #expect(try fixture.service.database.artworkDiskUsage() == ArtworkDiskUsage())
            #expect(try fixture.record(a).color != nil && fixture.record(a).width == 500)
            #expect(try fixture.service.database.artworkCounts().evicted == 2)

            let back = try await fixture.service.variant(key: a, width: 192, accept: nil)
            #expect(fixture.service.files.exists(back.path))
            #expect(fixture.host.requests(to: "/a.jpg").count == 2)
        }
    }

    /// Widths past the original's share one variant (crated does not upscale): one file on disk and
    /// one ETag, whichever of them is asked for, as the answers' URLs already name only that one.
    @Test func widthsWiderThanTheOriginalShareOneVariant() async throws {
        try await Fixture.with { fixture in
            fixture.host.serve("/small.jpg", bytes: TestImages.solid([90, 20, 160], width: 300, height: 300, suffix: ".jpg"), contentType: "image/jpeg")
            let key = try fixture.album("Small", cover: "/small.jpg", width: 300)
            var etags: Set<String> = []
            for width in [320, 512, 1024, 1440] {
                let served = try await fixture.service.variant(key: key, width: width, accept: nil)
                etags.insert(served.etag)
                #expect(fixture.service.currentETag(key: key, width: width, accept: nil) == served.etag)
            }
            #expect(etags.count == 1)
            #expect(try fixture.service.database.artworkDiskUsage().variants == 1)
            let narrower = try await fixture.service.variant(key: key, width: 256, accept: nil)
            #expect(!etags.contains(narrower.etag))
            #expect(ArtworkReference(key: key, original: (300, 300), color: nil, pixels: 1440).url == "/v1/artwork/\(key)/320")
        }
    }

    /// `crated sync` is no service: it keeps the budget once, at the end (`pruneIfOverBudget`).
    @Test func aCommandPrunesOnlyWhenOverTheBudget() async throws {
        try await Fixture.with(maxBytes: 1) { fixture in
            fixture.host.serve("/a.jpg", bytes: TestImages.solid([50, 60, 70], width: 500, height: 500, suffix: ".jpg"), contentType: "image/jpeg")
            try fixture.album("A", cover: "/a.jpg")
            #expect(try await fixture.service.pruneIfOverBudget() == nil)
            let summary = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect(summary.fetched == 1)

            let pruned = try #require(try await fixture.service.pruneIfOverBudget())
            #expect(pruned.originalsRemoved == 1 && pruned.bytesFreed > 0)
            #expect(try fixture.service.database.artworkDiskUsage().totalBytes == 0)
            #expect(try await fixture.service.pruneIfOverBudget() == nil)
        }
    }

    /// Files are written whole or not at all: what a killed process left in `tmp/` is cleared at
    /// start (what a running one is writing is not), a file the database never recorded is swept,
    /// and a recorded variant whose file is gone is made again rather than served.
    @Test func nothingHalfWrittenIsEverServed() async throws {
        try await Fixture.with { fixture in
            fixture.host.serve("/c.jpg", bytes: TestImages.solid([1, 2, 3], width: 300, height: 300, suffix: ".jpg"), contentType: "image/jpeg")
            let key = try fixture.album("C", cover: "/c.jpg")
            let served = try await fixture.service.variant(key: key, width: 128, accept: nil)
            let root = fixture.service.files.root
            try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: root + "/tmp/partial-from-a-kill"))
            // No process has this id (it is above any pid_max).
            try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: root + "/tmp/\(Int32.max).from-a-process-that-ended"))
            // A file this process, still running, is writing.
            let inProgress = "\(getpid()).being-written"
            try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: root + "/tmp/" + inProgress))
            let stray = root + "/variants/ab/" + String(repeating: "ab", count: 32) + "-192.jpg"
            try FileManager.default.createDirectory(atPath: root + "/variants/ab", withIntermediateDirectories: true)
            try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: stray))

            try fixture.service.files.prepare()
            #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/tmp") == [inProgress])
            let report = try await fixture.service.prune(target: Int.max, sweep: true)
            #expect(report.strayFilesRemoved == 1)
            #expect(!FileManager.default.fileExists(atPath: stray))

            try FileManager.default.removeItem(atPath: served.path)
            let again = try await fixture.service.variant(key: key, width: 128, accept: nil)
            #expect(try DecodedHeader(try fixture.service.files.read(again.path)).width == 128)
        }
    }

    /// A cover that takes the transfer's whole time is not asked for again at once: a request for it
    /// would wait as long again for each attempt (three attempts of 30 s and their pauses held a
    /// client 94 s before its 503). The host is paused as an unreachable one is.
    @Test func aTransferThatTimesOutIsNotRetried() async throws {
        try await Fixture.with(totalTimeout: .milliseconds(300), attempts: 3) { fixture in
            fixture.host.serve("/drip.jpg", bytes: TestImages.solid(Self.red, width: 200, height: 200, suffix: ".jpg"), contentType: "image/jpeg")
            fixture.host.inject(.slow(.seconds(3)), on: "/drip.jpg")
            let key = try fixture.album("Drip", cover: "/drip.jpg")
            if let refused = try await fixture.unavailable(key) {
                #expect(refused.reason.contains("timed out"))
                #expect(refused.retryAfter > 0)
            }
            #expect(fixture.host.requests(to: "/drip.jpg").count == 1)
            #expect(try fixture.record(key).failures == 1)
        }
    }

    /// A host that cannot be reached fails its first cover after the attempts, and for a minute its
    /// other covers at once: a pass does not spend the attempts on each again, nor does a request.
    @Test func anUnreachableHostsOtherCoversFailAtOnce() async throws {
        try await Fixture.with { fixture in
            // Nothing listens on port 1.
            try fixture.album("First", cover: "/first.jpg", otherHost: "http://127.0.0.1:1")
            let second = try fixture.album("Second", cover: "/second.jpg", otherHost: "http://127.0.0.1:1")

            let summary = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect((summary.fetched, summary.failed, summary.skipped) == (0, 1, 1))
            #expect(try fixture.record(second).failures == 0)
            // Failed by the host's pause, without an attempt of its own.
            if let refused = try await fixture.unavailable(second) {
                #expect(refused.reason.hasPrefix("the image host is not asked for another"))
                #expect(refused.retryAfter > 50 && refused.retryAfter <= 62)
            }
        }
    }

    /// An artwork directory that cannot be written while serving is the server's problem, not the
    /// cover's: nothing is recorded against the cover, the answer names no path, and the cover is
    /// served as soon as the directory can be written again.
    @Test func aDirectoryThatCannotBeWrittenLaterFailsNoCover() async throws {
        try await Fixture.with { fixture in
            let jpeg = TestImages.solid(Self.red, width: 200, height: 200, suffix: ".jpg")
            fixture.host.serve("/a.jpg", bytes: jpeg, contentType: "image/jpeg")
            fixture.host.serve("/b.jpg", bytes: jpeg, contentType: "image/jpeg")
            let first = try fixture.album("A", cover: "/a.jpg")
            let second = try fixture.album("B", cover: "/b.jpg")
            let originals = fixture.service.files.root + "/originals"
            try FileManager.default.removeItem(atPath: originals)
            try Data("in the way".utf8).write(to: URL(fileURLWithPath: originals))

            let summary = await fixture.service.fetchCovers(userId: nil, staleAfter: 86_400) { false }
            #expect((summary.fetched, summary.failed, summary.skipped) == (0, 0, 2))
            #expect(summary.error?.contains(originals) == true)
            #expect(fixture.host.requests(to: "/b.jpg").isEmpty, "the other covers wait for a later pass")
            do throws(ArtworkServeError) {
                _ = try await fixture.service.variant(key: first, width: 128, accept: nil)
                Issue.record("a cover was served without its file")
            } catch {
                guard case .storage(let reason) = error else { throw error }
                #expect(reason == "the server cannot write its artwork directory")
            }
            #expect(try fixture.record(first).failures == 0 && fixture.record(first).retryAt == nil)

            try FileManager.default.removeItem(atPath: originals)
            try FileManager.default.createDirectory(atPath: originals, withIntermediateDirectories: true)
            let served = try await fixture.service.variant(key: second, width: 128, accept: nil)
            #expect(try DecodedHeader(try fixture.service.files.read(served.path)).width == 128)
        }
    }

    /// A collector clearing the cover cache while serve runs removes `tmp/` with the rest: covers are
    /// fetched and made again, each once, not refused until a restart.
    @Test func aCoverCacheRemovedWhileServingIsFilledAgain() async throws {
        try await Fixture.with { fixture in
            fixture.host.serve("/a.jpg", bytes: TestImages.solid(Self.red, width: 200, height: 200, suffix: ".jpg"), contentType: "image/jpeg")
            let key = try fixture.album("A", cover: "/a.jpg")
            let first = try await fixture.service.variant(key: key, width: 128, accept: nil)
            #expect(fixture.host.requests(to: "/a.jpg").count == 1)

            try FileManager.default.removeItem(atPath: fixture.service.files.root)
            let again = try await fixture.service.variant(key: key, width: 192, accept: nil)
            #expect(try DecodedHeader(try fixture.service.files.read(again.path)).width == 192)
            #expect(fixture.host.requests(to: "/a.jpg").count == 2, "the original, gone with the folder, fetched once more")
            #expect(first.path != again.path)
        }
    }

    /// A prune may remove a file between a request's look and its read: the request makes the
    /// variant, or fetches the original, again, rather than answering that the disk is failing.
    @Test func coversPrunedWhileTheyAreServedAreMadeAgain() async throws {
        try await Fixture.with { fixture in
            var keys: [String] = []
            for (index, shade) in [UInt8(40), 90, 140, 190].enumerated() {
                fixture.host.serve("/\(index).jpg", bytes: TestImages.solid([shade, 60, 70], width: 600, height: 600, suffix: ".jpg"), contentType: "image/jpeg")
                keys.append(try fixture.album("Album \(index)", cover: "/\(index).jpg"))
            }
            let widths = ArtworkSize.widths.filter { $0 <= 600 }
            for round in 0..<12 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, key) in keys.enumerated() {
                        let width = widths[(round + index) % widths.count]
                        group.addTask { _ = try await fixture.service.variant(key: key, width: width, accept: index % 2 == 0 ? "image/webp" : nil) }
                    }
                    group.addTask { _ = try await fixture.service.prune(target: 0) }
                    try await group.waitForAll()
                }
            }
            let gone = fixture.service.files.root + "/nothing-here"
            #expect(throws: ArtworkStorageError.missing(path: gone)) { try fixture.service.files.read(gone) }
        }
    }

    @Test func aDirectoryThatCannotBeWrittenIsAClearErrorAtStart() throws {
        let temporary = try TemporaryDatabase()
        let blocker = try temporary.directory.write("not-a-directory", "a file")
        let files = ArtworkFiles(root: blocker + "/artwork")
        #expect(throws: ArtworkStorageError.self) { try files.prepare() }
        do {
            try files.prepare()
        } catch {
            #expect(error.description.contains("cannot be written"))
            #expect(error.description.contains("\(blocker) is a file, not a directory"), "\(error)")
        }
    }

    @Test func acceptHeadersChooseWebPOnlyWhenAccepted() {
        #expect(ArtworkService.acceptsWebP("image/webp,*/*"))
        #expect(ArtworkService.acceptsWebP("image/avif, image/webp;q=0.9, image/apng"))
        #expect(!ArtworkService.acceptsWebP("image/webp;q=0"))
        #expect(!ArtworkService.acceptsWebP("*/*"))
        #expect(!ArtworkService.acceptsWebP(nil))
    }
}

/// Sync fetches covers after releases, on real Discogs release responses.
@Suite(.needsSharedFixtures)
struct CoverSyncTests {
    static let orange: [UInt8] = [230, 120, 20]
    static let releaseOneCover = "/image/R-1-1193812031.jpeg"
    static let otherCover = "/image/R-3329867-1326034108.jpeg"

    /// A sync runner with covers, for releases 1 and 3329867 as the real responses give them; their
    /// images are relative to the API's host, as older Discogs gave them.
    static func runnerWithCovers(_ harness: SyncHarness) throws -> SyncRunner {
        try harness.importReleases([1, 3329867])
        harness.fake.serveRelease(1, json: try Paths.sharedDiscogs("joalla-discogs_client_releases_1.json"))
        harness.fake.serveRelease(3329867, json: try Paths.sharedDiscogs("joalla-discogs_client_releases_3329867.json"))
        let files = ArtworkFiles(root: harness.directory.appending(path: "artwork").path)
        let fetcher = ArtworkFetcher(
            database: harness.database, files: files, transport: CurlHTTPTransport(),
            settings: ArtworkFetchSettings(userAgent: "crated/test", requestsPerMinute: 6000, retry: RetryPolicy(maxAttempts: 1),
                                           relativeBase: harness.fake.baseURL),
            rateLimiters: harness.rateLimiters, clock: harness.clock, logger: harness.logs.logger())
        let covers = try ArtworkService(database: harness.database, files: files, fetcher: fetcher, maxBytes: 1 << 30)
        return SyncRunner(database: harness.database, client: try harness.client(), settings: ReleaseSyncSettings(concurrency: 1),
                          covers: covers, clock: harness.clock, logger: harness.logs.logger())
    }

    /// What a screen 256 pixels wide shows of a release's cover, as every answer reads it.
    static func artwork(release: Int64, _ harness: SyncHarness) throws -> ArtworkReference? {
        let album = try #require(try harness.database.album(discogsReleaseId: release))
        let cover = try #require(try harness.database.reader.read { db in try AlbumCover.of(albumId: album.id!, db) })
        return cover.artwork(pixels: 256)
    }

    @Test func aPassFetchesTheCoversOfTheReleasesItBringsAndOneFailingCoverFailsAlone() async throws {
        try await SyncHarness.run { harness in
            let runner = try Self.runnerWithCovers(harness)
            let orange = Self.orange
            harness.fake.serve(Self.releaseOneCover, bytes: TestImages.solid(orange, width: 600, height: 600, suffix: ".jpg"),
                               contentType: "image/jpeg")

            let report = try await runner.runPass()
            #expect(report.synced == 2)
            #expect(report.covers?.fetched == 1)
            #expect(report.covers?.failed == 1)
            #expect(report.covers?.failures.first?.url == "/image/R-3329867-1326034108.jpeg")
            #expect(report.covers?.failures.first?.error.contains("404") == true)
            let counts = try harness.database.artworkCounts(userId: nil)
            #expect((counts.stored, counts.failed) == (1, 1))

            let album = try #require(try harness.database.album(discogsReleaseId: 1))
            let cover = try #require(try await harness.database.reader.read { db in try AlbumCover.of(albumId: album.id!, db) })
            #expect(cover.source?.width == 600)
            #expect(try #require(cover.source?.color.flatMap(RGBColor.init(hex:))).distance(to: orange) <= 3)
            // The next pass has nothing to fetch: the failed cover waits for its retry time.
            let again = try await runner.runPass()
            #expect(again.covers == CoverFetchSummary())
            #expect(harness.fake.requests(to: "/image/").count == 2)
        }
    }

    /// A cover its host has none of (a 404) shows as no cover, `artwork` null as for an album without
    /// one, rather than a URL that answers 503 for a week; sync asks again at its retry time, and the
    /// cover shows once the host has it. A transient failure (a 500) keeps the URL: a request may be
    /// served it minutes later.
    @Test func aCoverItsHostHasNoneOfShowsAsNoCoverUntilTheHostHasIt() async throws {
        try await SyncHarness.run { harness in
            let runner = try Self.runnerWithCovers(harness)
            harness.fake.serve(Self.otherCover, bytes: TestImages.solid([20, 90, 160], width: 600, height: 600, suffix: ".jpg"),
                               contentType: "image/jpeg")
            harness.fake.inject(.status(500), on: Self.otherCover)

            let first = try await runner.runPass()
            #expect(first.covers?.failed == 2)
            let counts = try harness.database.artworkCounts(userId: nil)
            #expect((counts.failed, counts.unusable) == (2, 1))
            #expect(try Self.artwork(release: 1, harness) == nil)
            #expect(try Self.artwork(release: 3329867, harness) != nil)

            harness.fake.serve(Self.releaseOneCover, bytes: TestImages.solid(Self.orange, width: 600, height: 600, suffix: ".jpg"),
                               contentType: "image/jpeg")
            harness.clock.advance(by: .seconds(ArtworkFetcher.permanentFailureWait + 1))
            let later = try await runner.runPass()
            #expect(later.covers?.fetched == 2)
            #expect(try harness.database.artworkCounts(userId: nil).unusable == 0)
            let shown = try #require(try Self.artwork(release: 1, harness))
            #expect(try #require(shown.color.flatMap(RGBColor.init(hex:))).distance(to: Self.orange) <= 3)
            #expect(try Self.artwork(release: 3329867, harness)?.color != nil)
        }
    }
}
