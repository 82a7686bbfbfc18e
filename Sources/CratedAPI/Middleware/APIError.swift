import CratedJSON
import CratedCore
import Foundation
import Hummingbird

/// Every error the API returns: `{"error": {"code", "message", "field"}}` with the right status.
public struct APIError: Error, HTTPResponseError, Equatable {
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
    public static func unauthorized(_ message: String) -> APIError {
        var error = APIError(status: .unauthorized, code: "unauthorized", message: message)
        error.headers[.wwwAuthenticate] = "Bearer realm=\"crated\""
        return error
    }
    public static func forbidden(_ message: String) -> APIError { APIError(status: .forbidden, code: "forbidden", message: message) }
    public static func notFound(_ message: String) -> APIError { APIError(status: .notFound, code: "not_found", message: message) }
    public static let bodyTooLarge = APIError(status: .contentTooLarge, code: "body_too_large", message: "the request body is larger than 64 KiB")
    public static func conflict(_ message: String, field: String? = nil) -> APIError {
        APIError(status: .conflict, code: "conflict", message: message, field: field)
    }
    public static func unprocessable(_ message: String, field: String? = nil) -> APIError {
        APIError(status: .unprocessableContent, code: "invalid", message: message, field: field)
    }

    struct Body: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
            var field: String?
        }
        var error: Detail
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try StreamingJSONEncoder().encode(Body(error: .init(code: code, message: message, field: field)))
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

extension APIError {
    /// The API's view of an error thrown by the core.
    init(_ error: CollectionError) {
        switch error {
        case .notFound(let what): self = .notFound("\(what) not found")
        case .conflict(let field, let message): self = .conflict(message, field: field)
        case .invalid(let field, let message): self = .unprocessable(message, field: field)
        }
    }
}

/// Turns every error into the API's JSON error shape. Errors the core knows map to their status;
/// Hummingbird's own (no route, body too large) keep theirs; anything else is logged and answered
/// as a 500 with no details, which a test treats as a bug.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as PlayerError {
            throw error
        } catch let error as CollectionError {
            throw APIError(error)
        } catch let error as HTTPError {
            throw Self.translate(error)
        } catch let error as HTTPResponseError {
            // Errors of the libraries underneath that carry a status (a body over the size limit).
            throw error.status == .contentTooLarge ? APIError.bodyTooLarge
                : APIError(status: error.status, code: "http_\(error.status.code)", message: error.status.reasonPhrase)
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            throw APIError(status: .internalServerError, code: "internal", message: "internal error")
        }
    }

    static func translate(_ error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: .notFound(error.body ?? "no such route")
        case .contentTooLarge: .bodyTooLarge
        case .badRequest: .badBody(error.body ?? "bad request")
        default: APIError(status: error.status, code: "http_\(error.status.code)", message: error.body ?? error.status.reasonPhrase)
        }
    }
}
