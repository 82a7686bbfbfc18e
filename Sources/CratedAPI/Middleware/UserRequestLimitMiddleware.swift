import Hummingbird
import Synchronization

/// Caps the requests each user has waiting for an answer (`server.maxRequestsPerUser`); past the
/// cap a request is answered 429 at once. Writes wait their turn for the one write connection: one
/// credential sending them on a thousand connections would otherwise hold every connection slot
/// and the write queue, and the server with them, from everyone else. An event stream counts only
/// until its answer begins.
struct UserRequestLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let requestsInFlight: RequestsInFlight

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let userId = try context.requirePrincipal().userId
        guard requestsInFlight.enter(userId) else {
            var error = APIError(status: .tooManyRequests, code: "too_many_requests",
                                 message: "\(requestsInFlight.limit) requests of yours are waiting for an answer already; "
                                     + "send this one when one of them has been answered")
            error.headers[.retryAfter] = "1"
            throw error
        }
        defer { requestsInFlight.leave(userId) }
        return try await next(request, context)
    }
}

/// Each user's requests under way, shared by the daemon's routes.
public final class RequestsInFlight: Sendable {
    public let limit: Int
    private let counts = Mutex<[Int64: Int]>([:])

    public init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more request of `userId`, unless the user has `limit` under way already.
    func enter(_ userId: Int64) -> Bool {
        counts.withLock { counts in
            let count = counts[userId, default: 0]
            guard count < limit else { return false }
            counts[userId] = count + 1
            return true
        }
    }

    func leave(_ userId: Int64) {
        counts.withLock { counts in
            let count = counts[userId, default: 1] - 1
            counts[userId] = count > 0 ? count : nil
        }
    }

    func count(_ userId: Int64) -> Int {
        counts.withLock { $0[userId, default: 0] }
    }
}
