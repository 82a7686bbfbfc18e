import HTTPTypes
import Hummingbird

/// A request whose path is a route's but whose method is not answers 405 `method_not_allowed`
/// with `Allow`, rather than Hummingbird's 404. Added to the router after every route, so it runs
/// only on the way to the not-found answer: routed requests never pass through it.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    /// Every route's path with the methods it answers.
    let routes: [(path: RouterPath, methods: Set<HTTPRequest.Method>)]

    init(routes: [Router<AppRequestContext>.RouteDescription]) {
        var methodsByPath: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in routes {
            methodsByPath[route.path.description, default: (route.path, [])].methods.insert(route.method)
            // The router answers HEAD for every GET route.
            if route.method == .get { methodsByPath[route.path.description]!.methods.insert(.head) }
        }
        self.routes = methodsByPath.keys.sorted().compactMap { methodsByPath[$0] }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: true)
        var allowed: Set<HTTPRequest.Method> = []
        for route in routes where Self.path(route.path, matches: segments) {
            allowed.formUnion(route.methods)
        }
        guard !allowed.isEmpty, !allowed.contains(request.method) else { return try await next(request, context) }
        let names = allowed.map(\.rawValue).sorted()
        var error = APIError(status: .methodNotAllowed, code: "method_not_allowed",
                             message: "\(request.uri.path) answers \(names.joined(separator: ", ")), not \(request.method.rawValue)")
        error.headers[.allow] = names.joined(separator: ", ")
        throw error
    }

    /// Whether the route's path, segment by segment, matches the request's (`{id}` matches any one).
    static func path(_ path: RouterPath, matches segments: [Substring]) -> Bool {
        guard path.components.count == segments.count else { return false }
        return zip(path.components, segments).allSatisfy { element, segment in element ~= segment }
    }
}
