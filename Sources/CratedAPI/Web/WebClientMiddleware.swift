import Foundation
import Hummingbird
import NIOCore

/// Serves the web client: the page at `/` and at every path of its tabs (`/collection/...`,
/// `/crates/...`; the page reads the path), and its files at `/assets/<hashed name>`. A
/// middleware rather than routes: these are not API operations (the OpenAPI document lists those),
/// and a tab's paths have any depth.
struct WebClientMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let assets: WebAssets

    /// The first path segments the page answers for: its tabs, and its sign-in form.
    static let pagePrefixes: Set<Substring> = ["collection", "crates", "discover", "search", "history", "signin"]

    /// No script or style but the page's own files (no inline script, no style attribute), nothing
    /// from another origin: the page works offline, and injected markup can run nothing. Covers are
    /// crated's own `/v1/artwork/...` variants, so images are `'self'` too.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
        "manifest-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static let immutable = "public, max-age=31536000, immutable"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else { return try await next(request, context) }
        let path = request.uri.path
        if path.hasPrefix("/assets/") {
            guard let asset = assets.assets[String(path.dropFirst("/assets/".count))] else {
                throw APIError.notFound("no asset \(path); the page names its files by content hash, so an old name is gone")
            }
            return response(request, body: asset.body, gzipped: asset.gzipped, headers: [
                .contentType: asset.contentType, .cacheControl: Self.immutable, .init("X-Content-Type-Options")!: "nosniff",
            ])
        }
        guard Self.isPagePath(path) else { return try await next(request, context) }
        return response(request, body: ByteBuffer(string: assets.page), gzipped: assets.gzippedPage, headers: Self.pageHeaders)
    }

    static func isPagePath(_ path: String) -> Bool {
        path == "/" || path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true).first.map(pagePrefixes.contains) == true
    }

    /// The route `/metrics` counts a request this middleware answers under (the router matched none):
    /// the page at any of its paths is `/`, a file `/assets/{name}`; nil for anything else.
    static func metricsRoute(method: HTTPRequest.Method, path: String) -> String? {
        guard method == .get || method == .head else { return nil }
        if path.hasPrefix("/assets/") { return "/assets/{name}" }
        return isPagePath(path) ? "/" : nil
    }

    static let pageHeaders: HTTPFields = [
        .contentType: "text/html; charset=utf-8",
        // Revalidated on every visit: it names the current files.
        .cacheControl: "no-cache",
        .contentSecurityPolicy: contentSecurityPolicy,
        .init("X-Content-Type-Options")!: "nosniff",
        .init("Referrer-Policy")!: "no-referrer",
        .init("X-Frame-Options")!: "DENY",
    ]

    /// `gzipped` when there is one and the request accepts it, else `body`.
    private func response(_ request: Request, body: ByteBuffer, gzipped: ByteBuffer?, headers: HTTPFields) -> Response {
        var headers = headers
        var body = body
        if let gzipped {
            // Caches between keep one copy per encoding.
            headers[.vary] = "Accept-Encoding"
            if ResponseCompressionMiddleware<Context>.acceptsGzip(request) {
                body = gzipped
                headers[.contentEncoding] = "gzip"
            }
        }
        headers[.contentLength] = "\(body.readableBytes)"
        return Response(status: .ok, headers: headers, body: request.method == .head ? .init() : .init(byteBuffer: body))
    }
}
