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

    var code: String {
        switch self {
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .invalid: "invalid"
        }
    }

    var field: String? {
        switch self {
        case .notFound: nil
        case .conflict(let field, _): field
        case .invalid(let field, _): field
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try ErrorBody(code: code, message: description, field: field).response(status: status)
    }
}
