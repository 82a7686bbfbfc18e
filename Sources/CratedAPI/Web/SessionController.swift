import CratedCore
import Foundation
import HTTPTypes
import Hummingbird

/// Sign-in for the web client: `POST /v1/session` with a user name and password sets the session
/// cookie, `GET /v1/session` tells the page who is signed in and its CSRF token, `DELETE
/// /v1/session` signs out. These routes read the cookie themselves: they sit outside the bearer
/// check, since signing in is how a browser gets a credential.
struct SessionController {
    let database: AppDatabase
    let passwords: PasswordCheck
    /// How long a sign-in lasts (`web.sessionDays`).
    let lifetime: TimeInterval

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .post(use: signIn)
            .get(use: current)
            .delete(use: signOut)
    }

    @Sendable func signIn(request: Request, context: AppRequestContext) async throws -> EditedResponse<SessionDTO> {
        // A cookie set by a form on another site would sign the browser in to the sender's account.
        try PasswordCheck.requireJSON(request)
        var request = request
        let body = try await request.decodeStrict(SignInBody.self, context: context)
        let user = try await passwords.user(name: body.name, password: body.password, request: request, context: context, kind: "web sign-in")
        let session = try await database.createSession(userId: user.id, lifetime: lifetime)
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
