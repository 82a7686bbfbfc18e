import CratedCore
import CratedSync
import Hummingbird
import Prometheus

/// `GET /metrics`: the registry in Prometheus's text format, behind a bearer token (`metrics.token`
/// when set, else any valid API token); never open on the main port.
struct MetricsController {
    let registry: PrometheusCollectorRegistry
    let instruments: CratedMetrics
    let token: String
    let database: AppDatabase
    let tokenExpiry: TokenExpiry
    let sync: SyncService

    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    @Sendable func metrics(request: Request, context: AppRequestContext) async throws -> Response {
        try authorize(request)
        await readGauges()
        return Response(status: .ok, headers: [.contentType: Self.contentType, .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }

    private func authorize(_ request: Request) throws {
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("/metrics needs an Authorization: Bearer <token> header")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthorized("the Authorization header must be 'Bearer <token>'")
        }
        let presented = String(parts[1].drop { $0 == " " })
        let valid = token.isEmpty ? try BearerAuthMiddleware.authenticate(presented, database: database, expiry: tokenExpiry) != nil
                                  : SessionCookie.constantTimeEquals(presented, token)
        guard valid else { throw APIError.invalidToken(token.isEmpty ? "the token is not valid or has been revoked" : "the token is not the metrics token") }
    }

    /// The values read from their sources when scraped, rather than kept current on every change:
    /// rows imported (by `crated import`, another process), sync's albums by state (a count over the
    /// database) and the Discogs rate limiter's headroom.
    private func readGauges() async {
        if let imported = try? database.importedRows() { instruments.countImportedRows(total: imported) }
        guard let status = try? await sync.status() else { return }
        let gauges = instruments.sync
        gauges.albumsDue.set(Double(status.albums.due))
        gauges.albumsNeverSynced.set(Double(status.albums.never))
        gauges.albumsFailedState.set(Double(status.albums.failed))
        gauges.rateLimitRemaining.set(Double(status.rateLimit.remainingInWindow))
        if let hostRemaining = status.rateLimit.hostRemaining { gauges.rateLimitHostRemaining.set(Double(hostRemaining)) }
    }
}
