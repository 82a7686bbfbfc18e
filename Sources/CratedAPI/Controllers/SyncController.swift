import CratedCore
import CratedSync
import Hummingbird

/// Metadata sync from the API: start a pass for the caller's collection, and see how sync stands.
struct SyncController {
    let sync: SyncService
    let database: AppDatabase

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get(use: status)
            .post(use: start)
    }

    @Sendable func status(request: Request, context: AppRequestContext) async throws -> SyncStatus {
        let principal = try context.requirePrincipal()
        return try await sync.status(userId: principal.userId)
    }

    /// Starts a pass over the caller's albums (and first, with `collectionUser`, their Discogs
    /// collection): 202 when it starts, 409 while one runs, 503 when sync is not running. The
    /// collection must be the one the operator linked to the caller: the pass reads it with the
    /// server's Discogs token, which lists private collections and their owner's notes.
    @Sendable func start(request: Request, context: AppRequestContext) async throws -> EditedResponse<SyncTriggerDTO> {
        let principal = try context.requirePrincipal()
        var request = request
        let body = try await request.decodeStrict(StartSyncBody.self, context: context, emptyIs: StartSyncBody())
        if let limit = body.limit, !(1...100_000).contains(limit) {
            throw APIError.unprocessable("limit must be from 1 to 100000", field: "limit")
        }
        var collectionUser: String?
        if let asked = body.collectionUser {
            guard let name = AppDatabase.validDiscogsUser(asked) else {
                throw APIError.unprocessable("collectionUser must be a Discogs user name", field: "collectionUser")
            }
            let linked = try database.linkedDiscogsUser(userId: principal.userId)
            guard let linked, linked.lowercased() == name.lowercased() else {
                throw APIError.unprocessable(
                    "collectionUser must be the Discogs user linked to you (\(linked.map { "'\($0)'" } ?? "none yet")); "
                        + "the server's operator links one with: crated user link \(principal.userName.shellWord) DISCOGS_USER",
                    field: "collectionUser")
            }
            collectionUser = linked
        }
        let result = sync.triggerPass(SyncPassOptions(userName: principal.userName, collectionUser: collectionUser, limit: body.limit,
                                                      retryFailed: true))
        switch result {
        case .started: return EditedResponse(status: .accepted, response: SyncTriggerDTO(result: result.rawValue))
        case .alreadyRunning: throw APIError.conflict("a sync pass is already running")
        case .unavailable: throw APIError(status: .serviceUnavailable, code: "sync_unavailable", message: "sync is not running (the daemon is starting or stopping)")
        case .disabled: throw APIError(status: .serviceUnavailable, code: "sync_disabled",
                                       message: "sync is turned off on this server (its operator set sync.enabled to false)")
        }
    }
}

extension SyncStatus: ResponseEncodable {}

struct SyncTriggerDTO: ResponseCodable {
    var result: String
}

struct StartSyncBody: StrictBody {
    static let fields: Set<String> = ["collectionUser", "limit"]
    var collectionUser: String?
    var limit: Int?
}
