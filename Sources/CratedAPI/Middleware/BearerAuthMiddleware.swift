import CratedCore
import Hummingbird

/// Requires `Authorization: Bearer <token>` (or the web client's session cookie) on every route it
/// guards, and write scope for anything but GET and HEAD. Its answers are one user's: no shared
/// cache may keep them, and a client's own cache asks again before using one.
struct BearerAuthMiddleware: RouterMiddleware {
    let database: AppDatabase
    let expiry: TokenExpiry
    /// Lets a read-scope token make the changes of the routes behind it: for the route a token
    /// revokes itself with, which changes nothing else.
    var readScopeMayChange = false
    static let cacheControl = "private, no-cache"

    func handle(_ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            // The web client's session cookie stands in for a token; a write made with it needs
            // the session's CSRF token (SessionCookie).
            if let session = try SessionCookie.session(of: request, database: database) {
                try SessionCookie.requireCSRFToken(request, session: session)
                var context = context
                context.principal = session.principal
                context.logger[metadataKey: "user"] = "\(session.principal.userName)"
                return try await Self.privately(request, context, next)
            }
            throw APIError.unauthorized("this route needs an Authorization: Bearer <token> header or a signed-in session cookie")
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError.unauthorized("the Authorization header must be 'Bearer <token>'")
        }
        // Trimmed by hand: Foundation's `trimmingCharacters` bridged through NSString on every request.
        let presented = parts[1]
        let start = presented.firstIndex { !$0.isWhitespace } ?? presented.endIndex
        let end = presented.lastIndex { !$0.isWhitespace }.map(presented.index(after:)) ?? start
        guard let principal = try Self.authenticate(String(presented[start..<end]), database: database, expiry: expiry) else {
            throw APIError.invalidToken("the token is not valid or has been revoked")
        }
        if request.method != .get && request.method != .head && principal.scope != .write && !readScopeMayChange {
            throw APIError.forbidden("this token has read scope; changes need a token with write scope")
        }
        var context = context
        context.principal = principal
        context.logger[metadataKey: "user"] = "\(principal.userName)"
        return try await Self.privately(request, context, next)
    }

    /// The principal of a bearer token; nil for one unknown or revoked; 401 `token_expired` for one
    /// expired, so that an app can tell its user to sign in again rather than that something failed.
    static func authenticate(_ token: String, database: AppDatabase, expiry: TokenExpiry) throws -> Principal? {
        do {
            return try database.authenticate(bearer: token, expiry: expiry)
        } catch let error as TokenError {
            throw APIError.invalidToken(error.description, code: "token_expired")
        }
    }

    /// The route's answer, or its error's (a refused player command carries the user's state), marked
    /// private. A grid page's `ETag` still spares a client the page it has; a route may say otherwise.
    private static func privately(
        _ request: Request, _ context: AppRequestContext, _ next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any APIErrorResponse {
            response = try error.response(from: request, context: context)
        }
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = cacheControl }
        return response
    }
}
