import CoreMetrics
import CratedCore
import Hummingbird
import Synchronization

/// Counts every request by method, route pattern and status, and records its time to the response
/// head by method and route (`crated_http_requests_total`, `crated_http_request_duration_seconds`).
///
/// The route is the pattern the router matched (`/v1/albums/{id}`), never the path itself (a path no
/// route matches is Hummingbird's `NotFound`; the web client's page and files, which no route serves,
/// are `/` and `/assets/{name}`), and an unknown method counts as `OTHER`: no id, key or client's
/// whim makes a new series. Hummingbird's
/// own `MetricsMiddleware` records through the `MetricsSystem` global with dotted names that
/// Prometheus does not accept, and builds its cache key per request; here the instruments of a
/// route are made on its first request and found in a dictionary after.
struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let cache: HTTPInstrumentCache

    init(metrics: CratedMetrics) {
        cache = HTTPInstrumentCache(factory: metrics.factory)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context: context, status: response.status.code, since: start)
            return response
        } catch {
            record(request, context: context, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start)
            throw error
        }
    }

    private func record(_ request: Request, context: Context, status: Int, since start: ContinuousClock.Instant) {
        let route = context.endpointPath ?? WebClientMiddleware.metricsRoute(method: request.method, path: request.uri.path)
        let instruments = cache.instruments(method: request.method, route: route, status: status)
        instruments.requests.increment()
        instruments.duration.record(ContinuousClock.now - start)
    }
}

/// The counter and timer of each method, route and status seen, made on first use.
final class HTTPInstrumentCache: Sendable {
    struct Key: Hashable {
        var method: HTTPRequest.Method
        var route: String?
        var status: Int
    }

    struct Instruments: Sendable {
        let requests: Counter
        let duration: CoreMetrics.Timer
    }

    private let factory: any MetricsFactory
    private let made = Mutex<[Key: Instruments]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// The methods counted by name; anything else is `OTHER`.
    static let knownMethods: Set<HTTPRequest.Method> = [.get, .head, .post, .put, .patch, .delete, .options]

    func instruments(method: HTTPRequest.Method, route: String?, status: Int) -> Instruments {
        let method = Self.knownMethods.contains(method) ? method : HTTPRequest.Method("OTHER")!
        let key = Key(method: method, route: route, status: status)
        if let instruments = made.withLock({ $0[key] }) { return instruments }
        // Made outside the lock: the registry takes its own. Two requests racing both make the same
        // instruments, which the registry hands back as one.
        let methodLabel = ("method", method.rawValue)
        let routeLabel = ("route", route ?? "NotFound")
        let instruments = Instruments(
            requests: Counter(label: "crated_http_requests_total", dimensions: [methodLabel, routeLabel, ("status", String(status))], factory: factory),
            duration: CoreMetrics.Timer(label: "crated_http_request_duration_seconds", dimensions: [methodLabel, routeLabel], factory: factory))
        made.withLock { $0[key] = instruments }
        return instruments
    }
}
