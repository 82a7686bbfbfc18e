import CratedArtwork
@testable import CratedAPI
import CratedTestSupport
import CratedCore
import CratedImport
import CratedPlayback
import CratedSync
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing

/// A daemon on a temporary database holding the sample collection for `collector`, and a small
/// collection of someone else's (`alice`), with tokens for both.
struct TestServer {
    let directory: TemporaryDirectory
    let database: AppDatabase
    let writeToken: String
    let readToken: String
    let aliceToken: String
    let clock = ManualPlaybackClock()
    /// A registry of this server's own, which `GET /metrics` reads (the API token is its token).
    let metrics = AppMetrics()
    let services: AppServices

    init(busyTimeoutMs: Int = TemporaryDirectory.busyTimeoutMs, maxRequestsPerUser: Int? = nil, syncEnabled: Bool = true) throws {
        directory = try TemporaryDirectory()
        database = try AppDatabase.open(path: directory.path("crated.sqlite"), busyTimeoutMs: busyTimeoutMs).recordingMetrics(metrics.instruments)
        let importer = DiscogsImporter(database: database)
        _ = try importer.importFile(at: Paths.ownFixture("sample-collection.csv"), options: ImportOptions(userName: "collector"))
        let alicesFile = try directory.write("alice.csv", """
            Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added
            X1,Alice Band,Only Alice Has This,Alice Records,LP,,2001,777001,Alice Crate,2021-01-01 00:00:00
            CL 1355,Miles Davis,Kind Of Blue,Columbia,"LP, Album, Mono",5,1959,1,Alice Crate,2021-01-02 00:00:00
            """)
        _ = try importer.importFile(at: alicesFile, options: ImportOptions(userName: "alice"))
        writeToken = try database.createToken(userName: "collector", scope: .write, label: "tests").token
        readToken = try database.createToken(userName: "collector", scope: .read, label: "read").token
        aliceToken = try database.createToken(userName: "alice", scope: .write, label: "alice").token
        var logger = Logger(label: "crated-tests")
        logger.logLevel = .warning
        // Sync talks to a fake Discogs that knows no release, and waits for a trigger.
        let configuration = try CratedConfiguration.defaults()
        // A limiter of its own: the process-wide one would make this server wait out the 25
        // requests a minute that other tests' servers spent.
        let client = try DiscogsClient(settings: DiscogsClientSettings(configuration: configuration), transport: NotFoundTransport(),
                                       rateLimiters: RateLimiterRegistry(), logger: logger)
        let runner = SyncRunner(database: database, client: client, settings: ReleaseSyncSettings(configuration: configuration), logger: logger)
        let sync = SyncService(runner: runner, enabled: syncEnabled, interval: .seconds(3600), passAtStart: false, logger: logger)
        let artwork = try ArtworkService(database: database, configuration: configuration, directory: directory.path("artwork"), logger: logger)
        var services = try AppServices(database: database, configuration: configuration, playbackClock: clock, sync: sync, artwork: artwork,
                                       keepAliveInterval: .milliseconds(200), metrics: metrics, logger: logger)
        if let maxRequestsPerUser { services.requestsInFlight = RequestsInFlight(limit: maxRequestsPerUser) }
        self.services = services
    }

    func makeApplication(logger: Logger? = nil) throws -> some ApplicationProtocol {
        var configuration = try CratedConfiguration.defaults()
        configuration.serverPort = 0
        // A live test's client connects before the test's body runs and may send its first request
        // only after streams have opened; under the whole suite's load that can pass the 10 s head
        // timeout, or the 30 s idle one that also runs from the start. ConnectionTests checks the
        // timeouts with servers of its own.
        configuration.serverHeadTimeoutSeconds = 300
        configuration.serverIdleTimeoutSeconds = 300
        let logger = logger ?? {
            var logger = Logger(label: "crated-tests")
            logger.logLevel = .warning
            return logger
        }()
        return buildApplication(configuration: configuration, services: services, logger: logger)
    }

    /// Runs `body` against the router in-process.
    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await makeApplication().test(.router, body)
    }

    func albumId(release: Int64) throws -> Int64 {
        try database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE discogs_release_id = ?", arguments: [release])! }
    }

    func copyIds(user: String) throws -> [Int64] {
        try database.reader.read { db in
            try Int64.fetchAll(db, sql: "SELECT collection_item.id FROM collection_item JOIN user ON user.id = user_id WHERE user.name = ? ORDER BY collection_item.id", arguments: [user])
        }
    }
}

/// An answer of the API: its status, its header fields, and its body to decode as the DTO it is.
struct APIResponse: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: Data

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: body)
    }

    /// The keys of a JSON object body, for the wire-format checks decoding cannot make (a key left
    /// out reads as nil, as does a null).
    var objectKeys: Set<String> {
        Set(((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?.keys.map { $0 } ?? [])
    }

    /// The `error` object of an error answer; nil for any other.
    var error: ErrorBody.Detail? { try? decode(ErrorBody.self).error }
}

extension TestClientProtocol {
    /// One request with a bearer token and an optional JSON body.
    @discardableResult
    func call(_ method: HTTPRequest.Method, _ uri: String, token: String?, json: String? = nil) async throws -> APIResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) }) { response in
            APIResponse(status: response.status, headers: response.headers, body: Data(buffer: response.body))
        }
    }

    /// One request whose answer must be `expected` (200 unless given), decoded as `T`.
    func decoded<T: Decodable>(
        _ type: T.Type, _ uri: String, method: HTTPRequest.Method = .get, token: String?, json: String? = nil,
        expecting expected: HTTPResponse.Status = .ok, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> T {
        let response = try await call(method, uri, token: token, json: json)
        #expect(response.status == expected, "\(method) \(uri): \(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        return try response.decode(T.self)
    }
}

/// A Discogs that answers 404 to everything, at once.
struct NotFoundTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> HTTPTransportResponse {
        HTTPTransportResponse(status: 404, body: Array(#"{"message": "Release not found."}"#.utf8), url: request.url?.absoluteString ?? "")
    }
}
