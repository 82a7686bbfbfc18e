import CratedCore
import Hummingbird
import NIOPosix

/// A user's name and password checked as every sign-in checks them (the web client's session, an
/// app's token): the body's limits, the throttle of failed attempts, bcrypt off the event loops,
/// and one answer for every failure.
struct PasswordCheck {
    let database: AppDatabase
    let throttle: SignInThrottle
    let queue: PasswordCheckQueue
    /// Whose `X-Forwarded-For` says which client a sign-in came from (`server.trustedProxies`).
    let trustedProxies: TrustedProxies

    struct SignedIn {
        var id: Int64
        var name: String
    }

    /// The user whose password `password` is; throws the API's answer otherwise.
    func user(name rawName: String, password: String, request: Request, context: AppRequestContext, kind: String) async throws -> SignedIn {
        let name = rawName.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.count <= 64 else { throw APIError.unprocessable("name must be a user name of 1 to 64 characters", field: "name") }
        guard !password.isEmpty, password.utf8.count <= 1024 else {
            throw APIError.unprocessable("password must be given, at most 1024 bytes", field: "password")
        }
        let address = trustedProxies.clientAddress(peer: context.remoteAddress?.ipAddress,
                                                   forwardedFor: request.headers[values: .xForwardedFor])
        func shutOut(for seconds: Double) -> APIError {
            let wait = Int(seconds.rounded(.up))
            var error = APIError(status: .tooManyRequests, code: "too_many_attempts",
                                 message: "too many failed sign-ins for this user or from this address; try again in \(wait) s")
            error.headers[.retryAfter] = "\(wait)"
            return error
        }
        // A name or address shut out takes no place in the queue; an attempt counts once it has
        // its turn, so that one refused for a full queue, never checked, costs its user nothing.
        if let wait = throttle.shutOut(user: name, address: address) { throw shutOut(for: wait) }
        guard await queue.enter() else {
            var error = APIError(status: .tooManyRequests, code: "too_many_attempts",
                                 message: "too many sign-ins are waiting to be checked; try again in a second")
            error.headers[.retryAfter] = "1"
            throw error
        }
        if let wait = throttle.admit(user: name, address: address) {
            await queue.leave()
            throw shutOut(for: wait)
        }
        let database = self.database
        // bcrypt takes a quarter of a second of CPU on purpose: on the thread pool, as covers are
        // resized, not on the event loops.
        let user: User?
        do {
            user = try await NIOThreadPool.singleton.runIfActive { try database.verifyPassword(userName: name, password: password) }
        } catch {
            await queue.leave()
            throw error
        }
        await queue.leave()
        guard let user, let id = user.id else {
            context.logger.notice("failed \(kind)", metadata: ["name": "\(name)", "address": "\(address ?? "-")"])
            // One answer for a wrong password, an unknown user and a user without a password.
            throw APIError(status: .unauthorized, code: "sign_in_failed", message: "the user name or the password is wrong, or the user has no password (crated user passwd)")
        }
        throttle.recordSuccess(user: name, address: address)
        return SignedIn(id: id, name: user.name)
    }

    /// A sign-in's body comes as JSON: a form on another site can post `text/plain` that reads as
    /// JSON without a CORS preflight; `application/json` needs the preflight, which crated never grants.
    static func requireJSON(_ request: Request) throws {
        guard let mediaType = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased(),
              mediaType == "application/json" else {
            throw APIError(status: .unsupportedMediaType, code: "unsupported_media_type", message: "sign in with a JSON body (Content-Type: application/json)")
        }
    }
}
