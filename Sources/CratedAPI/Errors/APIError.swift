import Foundation
import Hummingbird

/// An error the API layer itself answers with (a bad parameter or body, no token, a missing route):
/// `{"error": {"code", "message", "field"}}` with its status. Errors of the domain targets answer
/// through conformances of their own (`GridError+HTTP.swift` and its neighbours).
public struct APIError: Error, APIErrorResponse, Equatable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var field: String?
    public var headers: HTTPFields = [:]

    public init(status: HTTPResponse.Status, code: String, message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    public static func badParameter(_ field: String, _ message: String) -> APIError {
        APIError(status: .badRequest, code: "bad_parameter", message: message, field: field)
    }
    public static func badBody(_ message: String, field: String? = nil) -> APIError {
        APIError(status: .badRequest, code: "bad_request", message: message, field: field)
    }
    public static func unauthorized(_ message: String, code: String = "unauthorized") -> APIError {
        var error = APIError(status: .unauthorized, code: code, message: message)
        error.headers[.wwwAuthenticate] = "Bearer realm=\"crated\""
        return error
    }

    /// A bearer token was presented and refused (unknown, revoked, expired): RFC 6750's
    /// `error="invalid_token"` tells a client to get a new one rather than to send one.
    public static func invalidToken(_ message: String, code: String = "unauthorized") -> APIError {
        var error = unauthorized(message, code: code)
        error.headers[.wwwAuthenticate] = "Bearer realm=\"crated\", error=\"invalid_token\""
        return error
    }
    public static func forbidden(_ message: String) -> APIError { APIError(status: .forbidden, code: "forbidden", message: message) }
    public static func notFound(_ message: String, field: String? = nil) -> APIError {
        APIError(status: .notFound, code: "not_found", message: message, field: field)
    }
    public static let bodyTooLarge = APIError(status: .contentTooLarge, code: "body_too_large", message: "the request body is larger than 64 KiB")
    /// The client went away before its request was read whole; logged as 499, as nginx does.
    public static let clientClosedRequest = APIError(
        status: .init(code: 499, reasonPhrase: "Client Closed Request"), code: "client_closed", message: "the client closed the connection")
    public static func conflict(_ message: String, field: String? = nil) -> APIError {
        APIError(status: .conflict, code: "conflict", message: message, field: field)
    }
    public static func unprocessable(_ message: String, field: String? = nil) -> APIError {
        APIError(status: .unprocessableContent, code: "invalid", message: message, field: field)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try ErrorBody(code: code, message: message, field: field).response(status: status, headers: headers)
    }
}
