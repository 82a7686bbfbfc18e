import CratedCore
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// Builds the whole daemon: database-backed router, middleware, background services. `crated serve`
/// and the tests both call this, so what is tested is what runs.
public func buildApplication(
    configuration: CratedConfiguration,
    database: AppDatabase,
    services: [any Service] = [],
    logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = buildRouter(database: database, logger: logger)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.serverHost, port: configuration.serverPort),
            serverName: "crated/\(CratedVersion.current)"
        ),
        services: services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.serverPort) },
        logger: logger
    )
}

/// The routes: `/healthz` and the OpenAPI document open to all, everything else under `/v1`
/// behind a bearer token.
public func buildRouter(database: AppDatabase, logger: Logger) -> Router<AppRequestContext> {
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: LogRequestsMiddleware(.info))
    router.add(middleware: JSONErrorMiddleware())

    router.get("healthz") { _, _ in HealthDTO(status: "ok", version: CratedVersion.current) }
    router.get("v1/openapi.json") { _, _ in OpenAPIDocument.response() }

    let v1 = router.group("v1").add(middleware: BearerAuthMiddleware(database: database))
    v1.addRoutes(CatalogueController(database: database).endpoints)
    v1.addRoutes(CratesController(database: database).endpoints, atPath: "crates")
    v1.addRoutes(CopiesController(database: database).endpoints, atPath: "copies")
    return router
}

/// The OpenAPI 3.1 document (Resources/openapi.json), compiled into the binary.
public enum OpenAPIDocument {
    public static let json = EmbeddedResources.text(named: "openapi.json") ?? "{}"

    static func response() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: json)))
    }
}
