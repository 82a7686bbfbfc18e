import Hummingbird
import NIOCore
import NIOHTTP1

/// Turns every error into the API's JSON error shape. Errors that carry their own answer
/// (`APIErrorResponse`: the API's and the domain targets') pass through; Hummingbird's own (no route,
/// body too large) keep their status; anything else is logged and answered as a 500 with no
/// details, which a test treats as a bug.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any APIErrorResponse {
            throw error
        } catch let error as HTTPError {
            throw Self.translate(error)
        } catch let error as HTTPParserError where error != .invalidEOFState {
            // A body the parser refuses after a good head (a malformed chunk): the client is there.
            throw APIError(status: .badRequest, code: "http_400", message: "the request is not valid HTTP/1.1 (\(error))")
        } catch let error where Self.isClientGone(error) {
            // Nothing can reach the client any more, and it is no fault of the server's.
            context.logger.debug("client gone mid-request", metadata: ["error": "\(error)"])
            throw APIError.clientClosedRequest
        } catch let error as HTTPResponseError {
            // Errors of the libraries underneath that carry a status (a body over the size limit).
            throw error.status == .contentTooLarge ? APIError.bodyTooLarge
                : APIError(status: error.status, code: "http_\(error.status.code)", message: error.status.reasonPhrase)
        } catch {
            context.logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            throw APIError(status: .internalServerError, code: "internal", message: "internal error")
        }
    }

    /// The connection ended under the request: the client closed it mid-body (the parser's end of
    /// file in the middle of a message), or reset it.
    static func isClientGone(_ error: any Error) -> Bool {
        switch error {
        case HTTPParserError.invalidEOFState, is IOError: true
        case let error as ChannelError: error == .ioOnClosedChannel || error == .alreadyClosed || error == .eof
        default: false
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
