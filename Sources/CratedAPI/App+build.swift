import CratedArtwork
import CratedCore
import CratedGrid
import CratedPlayback
import CratedSync
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// What the daemon is made of, beyond its configuration. `crated serve` uses the defaults; tests
/// pass a manual clock or shorter intervals.
public struct AppServices: Sendable {
    public var database: AppDatabase
    public var playback: PlaybackService
    public var sync: SyncService
    public var grids: GridService
    public var artwork: ArtworkService
    public var keepAliveInterval: Duration
    /// Slows failed web sign-ins per user name and address; tests give it a manual clock.
    public var signInThrottle = SignInThrottle()
    /// Checks sign-ins' passwords one at a time.
    var passwordChecks = PasswordCheckQueue()
    /// How long a web sign-in lasts (`web.sessionDays`).
    public var sessionLifetime: TimeInterval
    /// When API tokens stop (`tokens.signInIdleDays`, and each token's own expiry date).
    public var tokenExpiry: TokenExpiry
    /// The reverse proxies whose `X-Forwarded-For` names the client the throttle counts.
    public var trustedProxies: TrustedProxies
    /// Each user's API requests under way, capped at `server.maxRequestsPerUser`.
    public var requestsInFlight: RequestsInFlight
    /// What `GET /metrics` reports; its instruments are the database's (`AppDatabase.metrics`).
    public var metrics: AppMetrics

    /// - Parameters:
    ///   - sync: the metadata sync service; by default libcurl to the configured Discogs, fetching
    ///     covers through `artwork` when `artwork.fetchDuringSync` is on.
    ///   - artwork: covers; by default libcurl to the image hosts and the configured directory.
    ///     Throws `ArtworkStorageError` when that directory cannot be written.
    ///   - metrics: by default none (no `/metrics` route). Services passed in record into the
    ///     metrics of the database they were given.
    public init(database: AppDatabase, configuration: CratedConfiguration, playbackClock: any PlaybackClock = SystemPlaybackClock(),
                sync: SyncService? = nil, artwork: ArtworkService? = nil, keepAliveInterval: Duration = .seconds(15),
                metrics: AppMetrics = .disabled, logger: Logger) throws {
        let database = database.recordingMetrics(metrics.instruments)
        self.metrics = metrics
        self.database = database
        self.playback = PlaybackService(database: database, clock: playbackClock, logger: logger)
        let artwork = try artwork ?? ArtworkService(database: database, configuration: configuration, logger: logger)
        self.artwork = artwork
        self.sync = try sync ?? SyncService(database: database, configuration: configuration,
                                            covers: configuration.artworkFetchDuringSync ? artwork : nil, logger: logger)
        self.grids = GridService(database: database)
        self.keepAliveInterval = keepAliveInterval
        self.sessionLifetime = configuration.webSessionLifetime
        self.tokenExpiry = configuration.tokenExpiry
        self.trustedProxies = configuration.trustedProxies
        self.requestsInFlight = RequestsInFlight(limit: configuration.serverMaxRequestsPerUser)
    }
}

/// Builds the whole daemon: the router and the background services on one database. `crated serve`
/// and the tests both call this, so what is tested is what runs.
public func buildApplication(
    configuration: CratedConfiguration,
    services: AppServices,
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    Application(
        router: buildRouter(services: services),
        // A connection that sends nothing for the idle timeout, or too slowly for the head and body
        // timeouts, or stops reading its answer for the write timeout, is closed, and past the
        // connection limit the oldest waiting one makes way: a flood of half-open or unread
        // connections cannot exhaust the process's files, nor hold SIGTERM.
        server: .guardedHTTP1(
            idleTimeout: .seconds(Int64(configuration.serverIdleTimeoutSeconds)),
            limits: ConnectionLimits(
                maxConnections: configuration.serverMaxConnections,
                headTimeout: .seconds(Int64(configuration.serverHeadTimeoutSeconds)),
                bodyTimeout: .seconds(Int64(configuration.serverBodyTimeoutSeconds)),
                writeTimeout: .seconds(Int64(configuration.serverWriteTimeoutSeconds)))),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.serverHost, port: configuration.serverPort),
            serverName: "crated/\(CratedVersion.current)"
        ),
        // Shut down in reverse order after the server: sync finishes the album in flight.
        services: [services.sync, PlaybackScheduler(playback: services.playback),
                   TokenUseRecorder(database: services.database, expiry: services.tokenExpiry, logger: logger),
                   services.artwork, WALCheckpointer(database: services.database, logger: logger)],
        onServerRunning: { channel in
            services.sync.serverIsListening()
            await onServerRunning(channel.localAddress?.port ?? configuration.serverPort)
        },
        logger: logger
    )
}

/// The routes: `/healthz`, the OpenAPI document, the web client and sign-in open to all, everything
/// else under `/v1` behind a bearer token or a signed-in session cookie.
public func buildRouter(services: AppServices) -> Router<AppRequestContext> {
    let database = services.database
    // HEAD answers wherever GET does (RFC 9110), with GET's status and headers and no body.
    let router = Router(context: AppRequestContext.self, options: .autoGenerateHeadEndpoints)
    // First, so that it sees every route and the status the error middleware answered with.
    if services.metrics.isEnabled { router.add(middleware: HTTPMetricsMiddleware(metrics: services.metrics.instruments)) }
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: ResponseCompressionMiddleware())
    router.add(middleware: JSONErrorMiddleware())

    router.get("healthz") { _, _ in HealthDTO(status: "ok", version: CratedVersion.current) }
    router.get("v1/openapi.json") { _, _ in OpenAPIDocument.response() }
    if let registry = services.metrics.registry {
        let metrics = MetricsController(registry: registry, instruments: services.metrics.instruments, token: services.metrics.token,
                                        database: database, tokenExpiry: services.tokenExpiry, sync: services.sync)
        router.get("metrics", use: metrics.metrics)
    }
    router.get("v1/openapi.yaml") { _, _ in OpenAPIDocument.yamlResponse() }
    // Covers answer without a token, so that `<img>` tags and image caches can load them: their
    // URLs carry random keys that reveal nothing and cannot be guessed.
    router.addRoutes(ArtworkController(artwork: services.artwork).endpoints, atPath: "v1/artwork")
    // The web client's page and files, and its sign-in (which reads the session cookie itself).
    router.add(middleware: WebClientMiddleware(assets: .shared))
    // Sign-in, for the web client (a cookie) and for apps (a token), reads no credential.
    let passwords = PasswordCheck(database: database, throttle: services.signInThrottle, queue: services.passwordChecks,
                                  trustedProxies: services.trustedProxies)
    router.addRoutes(SessionController(database: database, passwords: passwords, lifetime: services.sessionLifetime).endpoints, atPath: "v1/session")
    let tokens = TokensController(database: database, passwords: passwords, expiry: services.tokenExpiry)
    router.addRoutes(tokens.signInEndpoints, atPath: "v1/tokens")

    router.group("v1/tokens").add(middleware: BearerAuthMiddleware(database: database, expiry: services.tokenExpiry, readScopeMayChange: true))
        .addRoutes(tokens.signOutEndpoints)

    let v1 = router.group("v1").add(middleware: BearerAuthMiddleware(database: database, expiry: services.tokenExpiry))
        .add(middleware: UserRequestLimitMiddleware(requestsInFlight: services.requestsInFlight))
    v1.addRoutes(CatalogueController(database: database, playback: services.playback).endpoints)
    v1.addRoutes(CratesController(database: database, playback: services.playback).endpoints, atPath: "crates")
    v1.addRoutes(CopiesController(database: database).endpoints, atPath: "copies")
    v1.addRoutes(PlayerController(playback: services.playback, database: database, keepAliveInterval: services.keepAliveInterval).endpoints)
    v1.addRoutes(SyncController(sync: services.sync, database: database).endpoints, atPath: "sync")
    v1.addRoutes(GridController(grids: services.grids).endpoints)
    // Last, so that it is on the way to the not-found answer only.
    router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes))
    return router
}

/// Runs the playback scheduler (auto-advance, side ends, expiry) until graceful shutdown.
struct PlaybackScheduler: Service {
    let playback: PlaybackService

    func run() async throws {
        await cancelWhenGracefulShutdown { await playback.run() }
    }
}

/// Writes the token uses the bearer check noted, every few seconds and once more at shutdown, so
/// that no request waits on the write lock to record one; and at start and hourly, stops the apps'
/// sign-ins gone unused for too long for good (`settleIdleSignInTokens`).
struct TokenUseRecorder: Service {
    let database: AppDatabase
    let expiry: TokenExpiry
    let logger: Logger
    var interval: Duration = .seconds(5)
    /// Rounds between settlings of idle tokens: 720 of 5 s, an hour.
    var settleEvery = 720

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var round = 0
            repeat {
                if round % settleEvery == 0 { await settleIdleTokens() }
                round += 1
                await database.recordTokenUses()
            } while (try? await Task.sleep(for: interval)) != nil
        }
        await database.recordTokenUses()
    }

    private func settleIdleTokens() async {
        do {
            let stopped = try await database.settleIdleSignInTokens(expiry: expiry)
            if stopped > 0 { logger.info("stopped \(stopped) app sign-in token(s) unused for longer than tokens.signInIdleDays") }
        } catch is CancellationError {
            // The daemon is stopping (a failed start included): nothing to report.
        } catch {
            // Tried again within the hour; meanwhile the bearer check refuses them all the same.
            logger.warning("could not mark idle app tokens as expired: \(error)")
        }
    }
}

/// Checkpoints the WAL every second, on a connection of its own, with the write connection's
/// automatic checkpoints off: no request's write pays for copying the WAL into the database file.
struct WALCheckpointer: Service {
    let database: AppDatabase
    let logger: Logger
    var interval: Duration = .seconds(1)

    func run() async throws {
        // A PRAGMA on the write connection as the daemon starts: no write waits yet.
        try database.stopAutomaticCheckpoints()
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: interval)) != nil { await checkpoint() }
        }
        await checkpoint()
    }

    private func checkpoint() async {
        do {
            try await database.checkpointWAL()
        } catch is CancellationError {
            // The daemon is stopping without a graceful shutdown (it could not start): nothing to say.
        } catch {
            logger.warning("cannot checkpoint the database's WAL", metadata: ["error": "\(error)"])
        }
    }
}

/// The OpenAPI 3.1 document (Resources/openapi.json), compiled into the binary.
public enum OpenAPIDocument {
    public static let json = EmbeddedResources.text(named: "openapi.json") ?? "{}"

    static func response() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: json)))
    }
}
