import CratedCore
import Hummingbird

/// The database refused a request's work: 503 with `Retry-After` while another writer (an import, a
/// backup) holds the write lock past the busy timeout, or while the disk is full or failing (the
/// operator's to mend, logged); the client tries again later.
extension AppDatabaseError: APIErrorResponse {
    public var status: HTTPResponse.Status {
        switch self {
        case .locked, .storageFailed: .serviceUnavailable
        case .cannotOpen, .notADatabase: .internalServerError
        }
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        switch self {
        case .locked:
            return try ErrorBody(code: "database_busy", message: "the database is busy with another write; try again in a moment", field: nil)
                .response(status: status, headers: [.retryAfter: "2"])
        case .storageFailed:
            context.logger.error("database storage failed", metadata: ["error": "\(self)"])
            return try ErrorBody(code: "storage_unavailable", message: "the database could not store the change (its disk is full or failing); try again later",
                                 field: nil).response(status: status, headers: [.retryAfter: "30"])
        case .cannotOpen, .notADatabase:
            // The database went away under the daemon: a fault to log, with nothing for the client.
            context.logger.error("database error", metadata: ["error": "\(self)"])
            return try ErrorBody(code: "internal", message: "internal error", field: nil).response(status: status)
        }
    }
}
