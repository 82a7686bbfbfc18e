import CratedJSON
import CratedCore
import Hummingbird
import Logging
import NIOCore

/// The context of every request: Hummingbird's core storage plus who is calling, once authenticated.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by `BearerAuthMiddleware` on every `/v1` route.
    public var principal: Principal?
    /// The peer's address: web sign-ins are slowed per address (`SignInThrottle`). Nil in in-process tests.
    public let remoteAddress: SocketAddress?

    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// JSON bodies are small: crate edits and copy edits. Anything bigger is refused with 413.
    public var maxUploadSize: Int { 64 * 1024 }

    /// Responses are JSON, written as they are encoded (see `StreamingJSONEncoder`).
    public var responseEncoder: StreamingJSONEncoder { StreamingJSONEncoder() }

    /// The authenticated caller; routes behind the auth middleware can rely on it.
    func requirePrincipal() throws -> Principal {
        guard let principal else { throw APIError.unauthorized("missing bearer token") }
        return principal
    }
}
