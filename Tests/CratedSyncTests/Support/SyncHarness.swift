import CratedTestSupport
import CratedCore
import CratedImport
@testable import CratedSync
import Foundation
import GRDB
import Logging
import Synchronization
import Testing

/// The real Discogs responses in shared/fixtures/discogs (read where they are, never copied).
enum Fixtures {
    /// The package root: this file is Tests/CratedSyncTests/Support/SyncHarness.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// shared/ sits beside the checkout (CI), or at /work/shared on a developer's machine.
    static let discogsDirectory: URL? = {
        var candidates = [packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures/discogs")]
        if let override = ProcessInfo.processInfo.environment["CRATED_SHARED_FIXTURES"] {
            candidates.insert(URL(fileURLWithPath: override).appending(path: "discogs"), at: 0)
        }
        candidates.append(URL(fileURLWithPath: "/work/shared/fixtures/discogs"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appending(path: "README.md").path) }
    }()

    static var discogsAvailable: Bool { discogsDirectory != nil }
    static let absentMessage: Comment = "shared/fixtures/discogs is absent: the tests on real Discogs responses are skipped"

    static func discogs(_ name: String) throws -> [UInt8] {
        let directory = try #require(discogsDirectory, "shared/fixtures/discogs is absent")
        return Array(try Data(contentsOf: directory.appending(path: name)))
    }

    static var sampleCollectionCSV: String { packageRoot.appending(path: "Tests/Fixtures/sample-collection.csv").path }
}

/// A release of our own, for albums the real fixtures do not cover.
func syntheticRelease(id: Int64, title: String? = nil, trackCount: Int = 3) -> [UInt8] {
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
final class LogRecorder: Sendable {
    private let lines = Mutex<[String]>([])

    var all: [String] { lines.withLock { $0 } }

    func logger() -> Logger {
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
struct SyncHarness {
    let fake: FakeDiscogs
    let clock: VirtualClock
    let database: AppDatabase
    let directory: URL
    let logs = LogRecorder()
    /// Each harness has its own limiters, so tests do not share a rate budget.
    let rateLimiters = RateLimiterRegistry()

    static func run<T>(_ body: (SyncHarness) async throws -> T) async throws -> T {
        let clock = VirtualClock()
        let fake = try await FakeDiscogs.start(now: { clock.uptime })
        let directory = FileManager.default.temporaryDirectory.appending(path: "crated-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let database = try AppDatabase.open(path: directory.appending(path: "crated.sqlite").path)
            let result = try await body(SyncHarness(fake: fake, clock: clock, database: database, directory: directory))
            await fake.stop()
            return result
        } catch {
            await fake.stop()
            throw error
        }
    }

    func client(
        token: String = "",
        requestsPerMinute: Int = 6000,
        retry: RetryPolicy = RetryPolicy(maxAttempts: 4, initialBackoff: .seconds(2)),
        transport: CurlTransportOptions = CurlTransportOptions(connectTimeout: .seconds(5), totalTimeout: .seconds(10)),
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

    func runner(client: DiscogsClient? = nil, settings: ReleaseSyncSettings = ReleaseSyncSettings(concurrency: 1)) throws -> SyncRunner {
        SyncRunner(database: database, client: try client ?? self.client(), settings: settings, clock: clock, logger: logs.logger())
    }

    /// Imports Tests/Fixtures/sample-collection.csv (or another file) for user `collector`.
    @discardableResult
    func importCSV(_ path: String = Fixtures.sampleCollectionCSV) throws -> ImportSummary {
        try DiscogsImporter(database: database).importFile(at: path, options: ImportOptions(userName: "collector"))
    }

    /// Serves the three real release responses and a synthetic release for every other album.
    func serveCatalogue() async throws {
        fake.serveRelease(1, json: try Fixtures.discogs("joalla-discogs_client_releases_1.json"))
        fake.serveRelease(3329867, json: try Fixtures.discogs("joalla-discogs_client_releases_3329867.json"))
        fake.serveRelease(8138518, json: try Fixtures.discogs("go-discogs_release_8138518.json"))
        for album in try await allAlbums() where ![1, 3329867, 8138518].contains(album.discogsReleaseId!) {
            fake.serveRelease(album.discogsReleaseId!, json: syntheticRelease(id: album.discogsReleaseId!))
        }
    }

    func allAlbums() async throws -> [Album] {
        try await database.reader.read { db in try Album.order(Column("id")).fetchAll(db) }
    }

    func syncState(release: Int64) throws -> AlbumSyncState? {
        guard let album = try database.album(discogsReleaseId: release) else { return nil }
        return try database.syncState(ofAlbum: album.id!)
    }

    /// Creates albums for the given release ids (through a CSV import, as a user would).
    func importReleases(_ ids: [Int64]) throws {
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
