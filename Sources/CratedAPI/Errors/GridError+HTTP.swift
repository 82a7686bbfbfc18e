import CratedGrid
import Hummingbird

/// A refused grid or layout request: 400 for a bad parameter, 404 for a scope that is missing or
/// someone else's; `field` is the query parameter at fault.
extension GridError: APIErrorResponse {
    public var status: HTTPResponse.Status { .init(code: httpStatus) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try ErrorBody(code: code, message: sentence, field: parameter).response(status: status)
    }
}
