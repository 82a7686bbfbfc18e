import CratedCore
import Hummingbird

/// An app's sign-in and sign-out: `POST /v1/tokens` trades a user's name and password (`crated user
/// passwd`) for a new API token, so that the iOS app need not be given one by hand; `DELETE
/// /v1/tokens/current` revokes the token the request carries. Signing in sits outside the bearer
/// check: it is how an app gets its credential.
struct TokensController {
    let database: AppDatabase
    let passwords: PasswordCheck
    let expiry: TokenExpiry

    var signInEndpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .post(use: signIn)
    }

    /// Behind a bearer check that lets a read-scope token through: revoking itself changes nothing else.
    var signOutEndpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .delete("current", use: signOut)
    }

    @Sendable func signIn(request: Request, context: AppRequestContext) async throws -> EditedResponse<IssuedTokenDTO> {
        try PasswordCheck.requireJSON(request)
        var request = request
        let body = try await request.decodeStrict(TokenSignInBody.self, context: context)
        let label = body.label?.trimmingCharacters(in: .whitespacesAndNewlines) ?? Self.defaultLabel
        guard TokenLabel.isAcceptable(label) else {
            throw APIError.unprocessable("label names the device in \(TokenLabel.rule) (crated token list shows it)", field: "label")
        }
        guard let scope = TokenScope(rawValue: body.scope ?? TokenScope.write.rawValue) else {
            throw APIError.unprocessable("scope must be read or write", field: "scope")
        }
        let user = try await passwords.user(name: body.name, password: body.password, request: request, context: context, kind: "app sign-in")
        let issued = try await database.createSignInToken(userId: user.id, scope: scope, label: label)
        return EditedResponse(
            status: .created, headers: [.cacheControl: "no-store"],
            response: IssuedTokenDTO(token: issued.token, scope: scope.rawValue, label: label, user: .init(name: user.name),
                                     unusedDaysUntilExpiry: expiry.signInIdleLimit.map { Int(($0 / 86_400).rounded()) }))
    }

    static let defaultLabel = "signed in from an app"

    /// A web session's cookie is no token: the web client signs out with `DELETE /v1/session`.
    @Sendable func signOut(request: Request, context: AppRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        guard request.headers[.authorization] != nil else {
            throw APIError.badBody("this request carries no token to revoke: a web session signs out with DELETE /v1/session")
        }
        try await database.revokeToken(id: principal.tokenId)
        return Response(status: .noContent)
    }
}

struct TokenSignInBody: StrictBody {
    static let fields: Set<String> = ["name", "password", "label", "scope"]
    var name: String
    var password: String
    /// The device, as `crated token list` shows it (`Ann's iPhone`).
    var label: String?
    var scope: String?
}

/// A token issued at sign-in: shown this once, as `crated token create` shows one.
struct IssuedTokenDTO: ResponseCodable {
    struct UserDTO: Codable, Sendable { var name: String }
    var token: String
    var scope: String
    var label: String
    var user: UserDTO
    /// So that an app can tell its user when they will be asked to sign in again; absent, never.
    var unusedDaysUntilExpiry: Int?
}
