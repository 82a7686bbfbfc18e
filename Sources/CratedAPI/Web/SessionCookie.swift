import CratedCore
import Foundation
import HTTPTypes
import Hummingbird

/// The web client's session cookie and its CSRF rule, shared by the sign-in routes and
/// `BearerAuthMiddleware` (the API takes the cookie beside bearer tokens).
enum SessionCookie {
    static let name = "crated_session"
    /// The header a write made with the cookie must carry: the session's CSRF token. Another site
    /// cannot read it (no CORS), so it cannot make such a write even if a browser sent the cookie.
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// The cookie's value in the request's `Cookie` fields, if any.
    static func value(in request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                return String(trimmed[trimmed.index(after: equals)...])
            }
        }
        return nil
    }

    /// The session the request's cookie opens, or nil when it has none or it opens nothing.
    static func session(of request: Request, database: AppDatabase) throws -> SessionPrincipal? {
        guard let value = value(in: request) else { return nil }
        return try database.authenticate(sessionSecret: value)
    }

    /// GET and HEAD change nothing; anything else made with the cookie needs the session's CSRF token.
    static func requireCSRFToken(_ request: Request, session: SessionPrincipal) throws {
        guard request.method != .get, request.method != .head else { return }
        guard let presented = request.headers[csrfHeader], constantTimeEquals(presented, session.csrfToken) else {
            throw APIError(status: .forbidden, code: "csrf_failed",
                           message: "a change made with the session cookie must carry the session's X-CSRF-Token header")
        }
    }

    /// Whether the client reached crated over TLS: a reverse proxy in front says so. The cookie is
    /// then `Secure`. crated itself serves plain HTTP on loopback.
    static func isTLS(_ request: Request) -> Bool {
        if request.uri.scheme == .https { return true }
        if request.headers[.init("X-Forwarded-Proto")!]?.lowercased().split(separator: ",").first?.trimmingCharacters(in: .whitespaces) == "https" {
            return true
        }
        if let forwarded = request.headers[.init("Forwarded")!]?.lowercased(), forwarded.contains("proto=https") { return true }
        return false
    }

    /// `Set-Cookie` for a new session.
    static func setting(_ secret: String, maxAge: TimeInterval, secure: Bool) -> String {
        "\(name)=\(secret); Path=/; Max-Age=\(Int(maxAge)); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// `Set-Cookie` that removes the cookie (sign-out).
    static func clearing(secure: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
