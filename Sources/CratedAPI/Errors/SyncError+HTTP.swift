import CratedSync
import Hummingbird

/// Sync failing under a request: 503 when the database failed or stayed busy (the client may retry),
/// 404 for a user crated does not know. A collection Discogs would not give is reported by the pass
/// (`GET /v1/sync`, `lastRun.error`), which runs after `POST /v1/sync` has answered; it would be a 502.
extension SyncError: APIErrorResponse {
    public var status: HTTPResponse.Status {
        switch self {
        case .database: .serviceUnavailable
        case .user: .notFound
        case .collection: .badGateway
        }
    }

    var code: String {
        switch self {
        case .database: "storage_unavailable"
        case .user: "not_found"
        case .collection: "discogs_failed"
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let headers: HTTPFields = if case .database = self { [.retryAfter: "2"] } else { [:] }
        return try ErrorBody(code: code, message: description, field: nil).response(status: status, headers: headers)
    }
}
