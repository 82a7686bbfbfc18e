import HTTPTypes
import OpenAPIRuntime

import struct Foundation.URL

/// Adds `Authorization: Bearer <token>` to every request: every `/v1` route but the document and
/// sign-in needs a token (`crated token create`). Pass it in `Client(serverURL:transport:middlewares:)`.
public struct BearerTokenMiddleware: ClientMiddleware {
    public var token: String

    public init(token: String) {
        self.token = token
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
