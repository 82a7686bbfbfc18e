import CratedCore
import CratedImport
import CratedSync
import Foundation
import GRDB
import Logging
import Synchronization

public func syntheticRelease(id: Int64, title: String? = nil, trackCount: Int = 3) -> [UInt8] {
    let tracks = (1...trackCount).map { number in
        #"{"position": "\#(number <= (trackCount + 1) / 2 ? "A" : "B")\#(number)", "type_": "track", "title": "Track \#(number) of \#(id)", "duration": "3:0\#(number % 10)"}"#
    }
    return Array("""
        {"id": \(id), "title": "\(title ?? "Release \(id)")", "year": 1990,
         "artists": [{"id": \(900_000 + id), "name": "Artist \(id)", "anv": "", "join": ""}],
         "genres": ["Jazz"], "styles": ["Hard Bop"],
         "labels": [{"id": 77, "name": "Label", "catno": "CAT \(id)"}],
         "formats": [{"name": "Vinyl", "qty": "1", "descriptions": ["LP"]}],
         "tracklist": [\(tracks.joined(separator: ", "))]}
        """.utf8)
}

/// Log lines, kept so that tests can look for what must never be logged.
public final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    public var all: [String] { lines.withLock { $0 } }

    public func logger() -> Logger {
        var logger = Logger(label: "crated.sync.test") { _ in RecordingHandler(recorder: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct RecordingHandler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.append("\(event.level) \(event.message) \(event.metadata ?? [:]) \(metadata)")
        }
    }
}

/// A fake Discogs, a temporary database, a virtual clock and a log, for one test.
public struct SyncHarness {
    public let fake: FakeDiscogs
    public let clock: VirtualClock
    public let database: AppDatabase
    public let directory: URL
    public let logs = LogRecorder()
    /// Each harness has its own limiters, so tests do not share a rate budget.
    public let rateLimiters = RateLimiterRegistry()

    public static func run<T>(_ body: (SyncHarness) async throws -> T) async throws -> T {
        let clock = VirtualClock()
        let fake = try await FakeDiscogs.start(now: { clock.uptime })
        let directory = FileManager.default.temporaryDirectory.appending(path: "crated-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await fake.stopping {
            let database = try AppDatabase.open(path: directory.appending(path: "crated.sqlite").path, busyTimeoutMs: TemporaryDirectory.busyTimeoutMs)
            return try await body(SyncHarness(fake: fake, clock: clock, database: database, directory: directory))
        }
    }

    /// The transport's timeouts are long: under the whole suite's load a fake's answer can take over
    /// 10 s, and a request that timed out would be retried and spend an answer meant for the next.
    /// Tests of timeouts set their own.
    public func client(
        token: String = "",
        requestsPerMinute: Int = 6000,
        retry: RetryPolicy = RetryPolicy(maxAttempts: 4, initialBackoff: .seconds(2)),
        transport: CurlTransportOptions = CurlTransportOptions(connectTimeout: .seconds(30), totalTimeout: .seconds(60)),
        jitter: @escaping @Sendable () -> Double = { 0.5 },
        clock: (any SyncClock)? = nil
    ) throws -> DiscogsClient {
        try DiscogsClient(
            settings: DiscogsClientSettings(
                baseURL: fake.baseURL, token: token, userAgent: "crated/test +https://example.invalid/crated",
                requestsPerMinute: requestsPerMinute, retry: retry),
            transport: CurlHTTPTransport(options: transport),
            rateLimiters: rateLimiters,
            clock: clock ?? self.clock,
            logger: logs.logger(),
            jitter: jitter)
    }

    public func runner(client: DiscogsClient? = nil, settings: ReleaseSyncSettings = ReleaseSyncSettings(concurrency: 1)) throws -> SyncRunner {
        SyncRunner(database: database, client: try client ?? self.client(), settings: settings, clock: clock, logger: logs.logger())
    }

    /// Imports Tests/Fixtures/sample-collection.csv (or another file) for user `collector`.
    @discardableResult
    public func importCSV(_ path: String = Paths.ownFixture("sample-collection.csv")) throws -> ImportSummary {
        try DiscogsImporter(database: database).importFile(at: path, options: ImportOptions(userName: "collector"))
    }

    /// Serves the three real release responses and a synthetic release for every other album.
    public func serveCatalogue() async throws {
        fake.serveRelease(1, json: try Paths.sharedDiscogs("joalla-discogs_client_releases_1.json"))
        fake.serveRelease(3329867, json: try Paths.sharedDiscogs("joalla-discogs_client_releases_3329867.json"))
        fake.serveRelease(8138518, json: try Paths.sharedDiscogs("go-discogs_release_8138518.json"))
        for album in try await allAlbums() where ![1, 3329867, 8138518].contains(album.discogsReleaseId!) {
            fake.serveRelease(album.discogsReleaseId!, json: syntheticRelease(id: album.discogsReleaseId!))
        }
    }

    public func allAlbums() async throws -> [Album] {
        try await database.reader.read { db in try Album.order(Column("id")).fetchAll(db) }
    }

    public func syncState(release: Int64) throws -> AlbumSyncState? {
        guard let album = try database.album(discogsReleaseId: release) else { return nil }
        return try database.syncState(ofAlbum: album.id!)
    }

    /// Creates albums for the given release ids (through a CSV import, as a user would).
    public func importReleases(_ ids: [Int64]) throws {
        let csv = directory.appending(path: "releases-\(UUID().uuidString).csv")
        var text = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added\n"
        for (index, id) in ids.enumerated() {
            text += "C\(id),Artist \(id),Title \(id),Label,\"LP, Album\",,1990,\(id),Uncategorized,2020-01-01 00:00:\(String(format: "%02d", index % 60))\n"
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try text.write(to: csv, atomically: true, encoding: .utf8)
        try importCSV(csv.path)
    }
}
