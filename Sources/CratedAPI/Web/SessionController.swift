import CratedCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOPosix

/// Sign-in for the web client: `POST /v1/session` with a user name and password sets the session
/// cookie, `GET /v1/session` tells the page who is signed in and its CSRF token, `DELETE
/// /v1/session` signs out. These routes read the cookie themselves: they sit outside the bearer
/// check, since signing in is how a browser gets a credential.
struct SessionController {
    let database: AppDatabase
    let throttle: SignInThrottle
    /// Whose `X-Forwarded-For` says which client a sign-in came from (`server.trustedProxies`).
    let trustedProxies: TrustedProxies
    /// How long a sign-in lasts (`web.sessionDays`).
    let lifetime: TimeInterval

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .post(use: signIn)
            .get(use: current)
            .delete(use: signOut)
    }

    @Sendable func signIn(request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionDTO> {
        // A form on another site can post `text/plain` that reads as JSON without a CORS preflight,
        // and sign the browser in to the sender's account; `application/json` needs the preflight,
        // which crated never grants.
        guard Self.isJSON(request.headers[.contentType]) else {
            throw APIError(status: .unsupportedMediaType, code: "unsupported_media_type", message: "sign in with a JSON body (Content-Type: application/json)")
        }
        var request = request
        let body = try await request.decodeStrict(SignInBody.self, context: context)
        let name = body.name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 64 else { throw APIError.unprocessable("name must be a user name of 1 to 64 characters", field: "name") }
        guard !body.password.isEmpty, body.password.utf8.count <= 1024 else {
            throw APIError.unprocessable("password must be given, at most 1024 bytes", field: "password")
        }
        let address = trustedProxies.clientAddress(peer: context.remoteAddress?.ipAddress,
                                                   forwardedFor: request.headers[values: .xForwardedFor])
        if let wait = throttle.admit(user: name, address: address) {
            var error = APIError(status: .tooManyRequests, code: "too_many_attempts",
                                 message: "too many failed sign-ins for this user or from this address; try again in \(Int(wait.rounded(.up))) s")
            error.headers[.retryAfter] = "\(Int(wait.rounded(.up)))"
            throw error
        }
        let database = self.database
        let password = body.password
        // bcrypt takes a quarter of a second of CPU on purpose: on the thread pool, as covers are
        // resized, not on the event loops.
        let user = try await NIOThreadPool.singleton.runIfActive { try database.verifyPassword(userName: name, password: password) }
        guard let user, let userId = user.id else {
            context.logger.notice("failed web sign-in", metadata: ["name": "\(name)", "address": "\(address ?? "-")"])
            // One answer for a wrong password, an unknown user and a user without a password.
            throw APIError(status: .unauthorized, code: "sign_in_failed", message: "the user name or the password is wrong, or the user has no password (crated user passwd)")
        }
        throttle.recordSuccess(user: name, address: address)
        let session = try await database.createSession(userId: userId, lifetime: lifetime)
        let cookie = SessionCookie.setting(session.secret, maxAge: lifetime, secure: SessionCookie.isTLS(request))
        return EditedResponse(
            status: .created, headers: [.setCookie: cookie, .cacheControl: "no-store"],
            response: SessionDTO(user: .init(name: user.name), csrfToken: session.csrfToken, expiresAt: Timestamp.string(from: session.expiresAt)))
    }

    @Sendable func current(request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionDTO> {
        guard let session = try SessionCookie.session(of: request, database: database) else {
            throw APIError.unauthorized("not signed in: no session cookie, or it has ended")
        }
        return EditedResponse(
            headers: [.cacheControl: "no-store"],
            response: SessionDTO(user: .init(name: session.principal.userName), csrfToken: session.csrfToken, expiresAt: session.expiresAt))
    }

    /// Ends the cookie's session. Without a session there is nothing to end and the answer is the
    /// same 204; with one, the CSRF token is required like any other write made with the cookie.
    @Sendable func signOut(request: Request, context: AppRequestContext) async throws -> Response {
        if let session = try SessionCookie.session(of: request, database: database) {
            try SessionCookie.requireCSRFToken(request, session: session)
            try await database.endSession(id: session.sessionId)
        }
        return Response(status: .noContent, headers: [.setCookie: SessionCookie.clearing(secure: SessionCookie.isTLS(request)), .cacheControl: "no-store"])
    }
}

extension SessionController {
    static func isJSON(_ contentType: String?) -> Bool {
        guard let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return mediaType == "application/json"
    }
}

struct SignInBody: StrictBody {
    static let fields: Set<String> = ["name", "password"]
    var name: String
    var password: String
}

/// Who is signed in, and the token every write made with the cookie must carry in `X-CSRF-Token`.
struct SessionDTO: ResponseCodable {
    struct UserDTO: Codable, Sendable { var name: String }
    var user: UserDTO
    var csrfToken: String
    var expiresAt: String
}

extension HTTPField.Name {
    /// The addresses a request came through, each proxy appending the one it was reached from.
    static let xForwardedFor = Self("X-Forwarded-For")!
}
