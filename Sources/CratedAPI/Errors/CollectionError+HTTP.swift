import CratedCore
import Hummingbird

/// A refused change to crates or copies: 404 for what is missing or someone else's, 409 for a
/// conflict (a crate name taken), 422 for a value that breaks a rule.
extension CollectionError: APIErrorResponse {
    public var status: HTTPResponse.Status {
        switch self {
        case .notFound: .notFound
        case .conflict: .conflict
        case .invalid: .unprocessableContent
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        switch self {
        case .notFound(let what): try ErrorBody(code: "not_found", message: "\(what) not found", field: nil).response(status: status)
        case .conflict(let field, let message): try ErrorBody(code: "conflict", message: message, field: field).response(status: status)
        case .invalid(let field, let message): try ErrorBody(code: "invalid", message: message, field: field).response(status: status)
        }
    }
}
