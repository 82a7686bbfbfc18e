@testable import CratedAPI
import CratedCore
import CratedImport
import CratedTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import Testing

/// `GET /metrics`: behind a token, in Prometheus's text format, with the daemon's instruments.
/// Every `TestServer` has a registry of its own, so these run in parallel with anything.
@Suite struct MetricsRouteTests {
    /// The value of the sample whose line begins `series ` (name and labels as Prometheus writes them).
    static func sample(_ series: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    static func scrape(_ client: any TestClientProtocol, token: String) async throws -> String {
        let response = try await client.call(.get, "/metrics", token: token)
        #expect(response.status == .ok)
        return String(decoding: response.body, as: UTF8.self)
    }

    @Test func needsAnAPITokenAndAnswersInPrometheusTextFormat() async throws {
        let server = try TestServer()
        try await server.test { client in
            #expect(try await client.call(.get, "/metrics", token: nil).status == .unauthorized)
            #expect(try await client.call(.get, "/metrics", token: "crated_notatoken").status == .unauthorized)
            let response = try await client.call(.get, "/metrics", token: server.readToken)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(String(decoding: response.body, as: UTF8.self).contains("# TYPE crated_http_requests_total counter"))
        }
    }

    @Test func aConfiguredMetricsTokenIsTheOnlyOneTaken() async throws {
        let server = try TestServer()
        var services = server.services
        services.metrics = AppMetrics(token: "scraper-secret")
        var configuration = try CratedConfiguration.defaults()
        configuration.serverPort = 0
        let app = buildApplication(configuration: configuration, services: services, logger: Logger(label: "crated-tests"))
        try await app.test(.router) { client async throws in
            #expect(try await client.call(.get, "/metrics", token: server.writeToken).status == .unauthorized)
            #expect(try await client.call(.get, "/metrics", token: "scraper-secret").status == .ok)
            // The metrics token opens nothing else.
            #expect(try await client.call(.get, "/v1/me", token: "scraper-secret").status == .unauthorized)
        }
    }

    @Test func offMeansNoRoute() async throws {
        let server = try TestServer()
        var services = server.services
        services.metrics = .disabled
        var configuration = try CratedConfiguration.defaults()
        configuration.serverPort = 0
        let app = buildApplication(configuration: configuration, services: services, logger: Logger(label: "crated-tests"))
        try await app.test(.router) { client async throws in
            #expect(try await client.call(.get, "/metrics", token: server.writeToken).status == .notFound)
        }
    }

    /// Requests count by the route's pattern and their status, with a latency histogram by route;
    /// the ids in the paths appear nowhere. The reads they made show in the database's histogram.
    @Test func requestsCountByRoutePatternAndStatus() async throws {
        let server = try TestServer()
        let albumId = try server.albumId(release: 1)
        try await server.test { client in
            for _ in 0..<3 { #expect(try await client.call(.get, "/v1/albums/\(albumId)", token: server.readToken).status == .ok) }
            #expect(try await client.call(.get, "/v1/albums/987654321", token: server.readToken).status == .notFound)
            #expect(try await client.call(.get, "/v1/albums/\(albumId)", token: nil).status == .unauthorized)

            let text = try await Self.scrape(client, token: server.readToken)
            let route = #"method="GET",route="/v1/albums/{id}""#
            #expect(Self.sample(#"crated_http_requests_total{\#(route),status="200"}"#, in: text) == 3)
            #expect(Self.sample(#"crated_http_requests_total{\#(route),status="404"}"#, in: text) == 1)
            #expect(Self.sample(#"crated_http_requests_total{\#(route),status="401"}"#, in: text) == 1)
            #expect(Self.sample(#"crated_http_request_duration_seconds_count{\#(route)}"#, in: text) == 5)
            #expect(Self.sample(#"crated_http_request_duration_seconds_bucket{\#(route),le="+Inf"}"#, in: text) == 5)
            #expect(!text.contains("987654321"))
            #expect(!text.contains("/v1/albums/\(albumId)"))
            let reads = try #require(Self.sample("crated_db_read_duration_seconds_count", in: text))
            #expect(reads >= 4)
        }
    }

    /// A path no route matches counts as `NotFound` (Hummingbird's name for it), whatever it was.
    @Test func unmatchedPathsShareOneSeries() async throws {
        let server = try TestServer()
        try await server.test { client in
            _ = try await client.call(.get, "/v1/no-such-thing-1", token: server.readToken)
            _ = try await client.call(.get, "/v1/no-such-thing-2", token: server.readToken)
            let text = try await Self.scrape(client, token: server.readToken)
            #expect(!text.contains("no-such-thing"))
            #expect(Self.sample(#"crated_http_requests_total{method="GET",route="NotFound",status="404"}"#, in: text) == 2)
        }
    }

    /// The web client's page, at any of its paths, and its files have series of their own, apart
    /// from the paths nothing answers.
    @Test func theWebClientsPageAndFilesAreCountedByWhatTheyAre() async throws {
        let server = try TestServer()
        try await server.test { client in
            let asset = try #require(WebAssets.shared.assets.keys.first)
            for path in ["/", "/collection", "/crates/3", "/search"] {
                #expect(try await client.call(.get, path, token: nil).status == .ok)
            }
            #expect(try await client.call(.get, "/assets/\(asset)", token: nil).status == .ok)
            #expect(try await client.call(.get, "/assets/gone.js", token: nil).status == .notFound)
            let text = try await Self.scrape(client, token: server.readToken)
            #expect(Self.sample(#"crated_http_requests_total{method="GET",route="/",status="200"}"#, in: text) == 4)
            #expect(Self.sample(#"crated_http_requests_total{method="GET",route="/assets/{name}",status="200"}"#, in: text) == 1)
            #expect(Self.sample(#"crated_http_requests_total{method="GET",route="/assets/{name}",status="404"}"#, in: text) == 1)
            #expect(!text.contains(#"route="NotFound""#))
        }
    }

    /// Writes record their time; sync's gauges are read when scraped.
    @Test func writesAndSyncGaugesShow() async throws {
        let server = try TestServer()
        try await server.test { client in
            let created = try await client.call(.post, "/v1/crates", token: server.writeToken, json: #"{"name": "Metrics"}"#)
            #expect(created.status == .created)
            let text = try await Self.scrape(client, token: server.readToken)
            let writes = try #require(Self.sample("crated_db_write_duration_seconds_count", in: text))
            #expect(writes >= 1)
            let due = try #require(Self.sample(#"crated_sync_albums{state="due"}"#, in: text))
            #expect(due > 0, "the sample's albums were never synced")
            #expect(Self.sample("crated_sync_rate_limit_remaining", in: text) != nil)
            #expect(!text.contains("crated_sync_rate_limit_host_remaining"), "Discogs has reported nothing yet")
        }
    }

    /// What Discogs reports remaining is exported once it has reported, 0 included.
    @Test func theHostsRemainingShowsFromItsFirstReport() {
        let registry = PrometheusCollectorRegistry()
        let instruments = CratedMetrics(factory: PrometheusMetricsFactory(registry: registry))
        func exported() -> String { String(decoding: registry.emitToBuffer(), as: UTF8.self) }
        #expect(!exported().contains("crated_sync_rate_limit_host_remaining"))
        instruments.sync.rateLimitHostRemaining.set(0)
        #expect(Self.sample("crated_sync_rate_limit_host_remaining", in: exported()) == 0)
        instruments.sync.rateLimitHostRemaining.set(57)
        #expect(Self.sample("crated_sync_rate_limit_host_remaining", in: exported()) == 57)
    }

    /// Rows imported by `crated import`, a process of its own, show in the daemon's counter: read from
    /// the database when scraped, each row counted once however often it is scraped; a dry run adds
    /// nothing.
    @Test func importRowsComeFromTheDatabase() async throws {
        // The test server imported the sample (20 rows) and alice's file (2 rows) through the importer.
        let server = try TestServer()
        let file = try server.directory.write("more.csv", [exportHeader, exportRow(releaseId: "9001"), exportRow(releaseId: "9002"),
                                                           exportRow(releaseId: "9003")].joined(separator: "\n"))
        try await server.makeApplication().test(.router) { client in
            #expect(Self.sample("crated_import_rows_total", in: try await Self.scrape(client, token: server.readToken)) == 22)
            #expect(Self.sample("crated_import_rows_total", in: try await Self.scrape(client, token: server.readToken)) == 22)
            // As `crated import` does it: a connection of its own, without the daemon's instruments.
            let importer = DiscogsImporter(database: try AppDatabase.open(path: server.directory.path("crated.sqlite")))
            #expect(try importer.importFile(at: file, options: ImportOptions(userName: "collector")).rowsRead == 3)
            #expect(try importer.importFile(at: file, options: ImportOptions(userName: "collector", dryRun: true)).rowsRead == 3)
            #expect(Self.sample("crated_import_rows_total", in: try await Self.scrape(client, token: server.readToken)) == 25)
        }
    }

    /// A scrape whose read of the imported rows fails still answers, with the count it had.
    @Test func aFailedReadOfImportedRowsKeepsTheCount() async throws {
        let server = try TestServer()
        try await server.makeApplication().test(.router) { client in
            #expect(Self.sample("crated_import_rows_total", in: try await Self.scrape(client, token: server.readToken)) == 22)
            try await server.database.writer.write { db in try db.execute(sql: "DROP TABLE import_run") }
            #expect(throws: DatabaseError.self) { try server.database.importedRows() }
            // `scrape` expects 200.
            #expect(Self.sample("crated_import_rows_total", in: try await Self.scrape(client, token: server.readToken)) == 22)
        }
    }

    /// The gauge of open event streams goes up when one opens and down when it closes.
    @Test func eventStreamGaugeFollowsOpenStreams() async throws {
        let server = try TestServer()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let before = try await Self.scrape(client, token: server.readToken)
            #expect(Self.sample("crated_event_streams_open", in: before) == 0)
            var stream: SSEClient? = try SSEClient(port: port, path: "/v1/player/events", token: server.readToken)
            #expect(await stream?.next() != nil)
            let during = try await Self.scrape(client, token: server.readToken)
            #expect(Self.sample("crated_event_streams_open", in: during) == 1)
            stream = nil
            // The server notices the closed socket at its next write (a keep-alive, every 200 ms here).
            var open: Double? = 1
            let closedAt = ContinuousClock.now
            while open != 0 && ContinuousClock.now - closedAt < .seconds(30) {
                try await Task.sleep(for: .milliseconds(100))
                open = Self.sample("crated_event_streams_open", in: try await Self.scrape(client, token: server.readToken))
            }
            #expect(open == 0)
        }
    }

    /// A cover served twice: fetched and resized once, then answered from memory.
    @Test func artworkCountsFetchesVariantsMemoryHitsAndBytes() async throws {
        try await ArtworkRouteTests.Fixture.with { fixture in
            let server = fixture.server
            try await server.test { client in
                let artwork = try await fixture.gridArtwork(client)
                let first = try await client.execute(uri: artwork.url, method: .get, headers: [:]) { $0 }
                let second = try await client.execute(uri: artwork.url, method: .get, headers: [:]) { $0 }
                #expect(first.status == .ok && second.status == .ok)
                let text = try await Self.scrape(client, token: server.readToken)
                #expect(Self.sample("crated_artwork_originals_fetched_total", in: text) == 1)
                #expect(Self.sample("crated_artwork_variants_made_total", in: text) == 1)
                #expect(Self.sample(#"crated_artwork_memory_cache_total{result="miss"}"#, in: text) == 1)
                #expect(Self.sample(#"crated_artwork_memory_cache_total{result="hit"}"#, in: text) == 1)
                #expect(Self.sample("crated_artwork_served_bytes_total", in: text) == Double(first.body.readableBytes + second.body.readableBytes))
                #expect(Self.sample("crated_artwork_fetch_failures_total", in: text) == 0)
                #expect(Self.sample(#"crated_http_requests_total{method="GET",route="/v1/artwork/{key}/{width}",status="200"}"#, in: text) == 2)
            }
        }
    }
}
