import CratedPlayback
import Hummingbird

/// A refused player command or query: its status and code, and with every 409 the mini-player the
/// client should show now, its artwork sized for the request's `scale`.
extension PlaybackError: APIErrorResponse {
    public var status: HTTPResponse.Status { .init(code: httpStatus) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        // The request's scale was already checked by the command that failed.
        let scale = (try? request.scale()) ?? 2
        // Storage that failed or stayed busy may well work a moment later.
        let headers: HTTPFields = if case .storage = self { [.retryAfter: "2"] } else { [:] }
        return try ErrorBody(code: code, message: description, field: field, current: current?.miniPlayer(scale: scale))
            .response(status: status, headers: headers)
    }
}
