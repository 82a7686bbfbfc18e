import CratedCore
import Foundation
import HTTPTypes
import Logging

/// How the Discogs client retries: 429/503 wait for `Retry-After` when sent, else back off
/// exponentially with jitter, as do other 5xx answers and network errors, up to `maxAttempts`.
public struct RetryPolicy: Sendable {
    /// Attempts per request, the first included.
    public var maxAttempts: Int
    public var initialBackoff: Duration
    public var maxBackoff: Duration
    /// A `Retry-After` longer than this is not waited out: the request fails at once.
    public var maxRetryAfter: Duration

    public init(maxAttempts: Int = 4, initialBackoff: Duration = .seconds(2), maxBackoff: Duration = .seconds(120), maxRetryAfter: Duration = .seconds(600)) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter
    }

    /// The wait after failed attempt `attempt` (1-based): `initial * 2^(attempt-1)`, capped, then
    /// scaled by a jitter in [0.5, 1) so that clients that failed together do not retry together.
    public func backoff(afterAttempt attempt: Int, jitter: Double) -> Duration {
        let exponential = initialBackoff * (1 << min(max(0, attempt - 1), 30))
        let capped = min(exponential, maxBackoff)
        return capped * (0.5 + 0.5 * min(max(jitter, 0), 1))
    }
}

/// Where the Discogs API is and how to talk to it.
public struct DiscogsClientSettings: Sendable {
    public var baseURL: String
    /// A personal access token; empty means unauthenticated (lower rate limit, blank image URLs).
    public var token: String
    public var userAgent: String
    public var requestsPerMinute: Int
    public var retry: RetryPolicy

    /// Without a token Discogs answers with less: a lower rate, and no image URLs.
    public var hasToken: Bool { !token.isEmpty }

    /// What `serve` and `crated sync` say when they start without a token.
    public static let noTokenWarning = "no Discogs token (discogs.token, or CRATED_DISCOGS_TOKEN): Discogs gives release data "
        + "without one, but no cover images and fewer requests a minute; the albums synced meanwhile fetch their covers once one is set"

    public init(baseURL: String, token: String, userAgent: String, requestsPerMinute: Int, retry: RetryPolicy = RetryPolicy()) {
        self.baseURL = baseURL
        self.token = token
        self.userAgent = userAgent
        self.requestsPerMinute = requestsPerMinute
        self.retry = retry
    }

    /// From crated's configuration: the authenticated rate when a token is set, else the lower one.
    public init(configuration: CratedConfiguration, retry: RetryPolicy = RetryPolicy()) {
        let token = configuration.discogsToken.trimmingCharacters(in: .whitespaces)
        self.init(
            baseURL: configuration.discogsBaseURL,
            token: token,
            userAgent: configuration.userAgent,
            requestsPerMinute: token.isEmpty ? configuration.discogsUnauthenticatedRequestsPerMinute : configuration.discogsRequestsPerMinute,
            retry: retry)
    }
}

public enum DiscogsError: Error, Equatable, CustomStringConvertible {
    case notFound
    /// 401 or 403: the token is wrong, or the resource (a private collection) needs one.
    case unauthorized(status: Int)
    case httpStatus(Int)
    /// Still 429 when the attempts ran out, or told to wait longer than the policy allows.
    case rateLimited(retryAfter: Duration?)
    /// 503 with a `Retry-After` longer than the policy allows: down for maintenance, say.
    case unavailable(retryAfter: Duration)
    /// Not sent: an earlier answer paused every request to the host for longer than one waits.
    case hostPaused(Duration)
    case transport(HTTPTransportError)
    case malformedResponse(String)
    /// A 200 whose body is an HTML page: a proxy, a captive portal or an outage page answering for
    /// the host, which it will do for every request.
    case notTheAPI
    case invalidBaseURL(String)

    /// How long the host asked every request to wait, when it did.
    public var hostWait: Duration? {
        switch self {
        case .rateLimited(let wait): wait
        case .unavailable(let wait), .hostPaused(let wait): wait
        default: nil
        }
    }

    /// Whether the host, rather than this one resource, is the problem: unreachable, overloaded,
    /// rate limiting or refusing the token. Requests that follow would fail the same way.
    public var isHostProblem: Bool {
        switch self {
        case .unauthorized, .rateLimited, .unavailable, .hostPaused, .notTheAPI, .invalidBaseURL: true
        case .httpStatus(let status): status >= 500
        case .transport(.tls): true
        case .transport(let error): error.isTransient
        case .notFound, .malformedResponse: false
        }
    }

    public var description: String {
        switch self {
        case .notFound: "not found"
        case .unauthorized(let status): "HTTP \(status): Discogs refused the request; check discogs.token"
        case .httpStatus(let status): "HTTP \(status)"
        case .rateLimited(let retryAfter):
            "rate limited by Discogs" + (retryAfter.map { " (asked to wait \(Int($0.seconds)) s)" } ?? "")
        case .unavailable(let retryAfter): "HTTP 503: Discogs is unavailable (asked to wait \(Int(retryAfter.seconds)) s)"
        case .hostPaused(let wait): "not sent: Discogs asked every request to wait (\(Int(wait.seconds)) s left)"
        case .transport(let error): error.description
        case .malformedResponse(let reason): "malformed response: \(reason)"
        case .notTheAPI: "an HTML page, not JSON: is a proxy or an outage page answering for the host?"
        case .invalidBaseURL(let url): "discogs.baseURL '\(url)' is not an http(s) URL"
        }
    }
}

/// The result of fetching a release.
public enum ReleaseFetch: Sendable, Equatable {
    case updated(ReleaseMetadata, etag: String?)
    /// 304 to `If-None-Match`: the album already holds this release's data.
    case notModified
    case notFound
}

/// The Discogs API calls that sync makes, with rate limiting and retries. Sends the token only in
/// the `Authorization` header and never logs headers, so the token appears in no log or error.
public struct DiscogsClient: Sendable {
    public let settings: DiscogsClientSettings
    public let limiter: RateLimiter
    private let transport: any HTTPTransport
    private let clock: any SyncClock
    private let logger: Logger
    private let jitter: @Sendable () -> Double
    private let base: String
    /// 429s and retry waits are counted here.
    private let metrics: SyncInstruments

    public init(
        settings: DiscogsClientSettings,
        transport: any HTTPTransport,
        rateLimiters: RateLimiterRegistry = .shared,
        clock: any SyncClock = SystemSyncClock(),
        logger: Logger = Logger(label: "crated.sync"),
        metrics: CratedMetrics = .disabled,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws {
        var base = settings.baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        guard let components = URLComponents(string: base), let scheme = components.scheme?.lowercased(),
              ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty else {
            throw DiscogsError.invalidBaseURL(settings.baseURL)
        }
        self.base = base
        self.settings = settings
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.jitter = jitter
        self.metrics = metrics.sync
        let hostKey = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
        self.limiter = rateLimiters.limiter(forHost: hostKey, limit: settings.requestsPerMinute, clock: clock)
    }

    // MARK: Endpoints

    /// `GET /releases/{id}`, conditional on `etag` when given.
    public func release(id: Int64, etag: String? = nil) async throws -> ReleaseFetch {
        switch try await get("/releases/\(id)", etag: etag) {
        case .notModified: return .notModified
        case .notFound: return .notFound
        case .body(let body, let newETag):
            let release = try decode(DiscogsRelease.self, from: body)
            var metadata = ReleaseMapping.metadata(release)
            // A blank URL given to a token holder is the release's own: asking again would not fill it.
            if settings.hasToken { metadata.imagesWithheld = false }
            return .updated(metadata, etag: newETag)
        }
    }

    /// A user's whole collection: `GET /users/{name}/collection/folders`, the names of the notes
    /// fields, then every page of folder 0 (which lists every instance with its folder).
    public func collection(user: String) async throws -> DiscogsCollectionSnapshot {
        let userPath = "/users/\(Self.pathSegment(user))/collection"
        let folders = try await getJSON(DiscogsFolderList.self, "\(userPath)/folders").folders
        // The field names map notes to conditions, notes and custom fields. Discogs' defaults
        // (1 media, 2 sleeve, 3 notes) stand in when the list is not readable.
        let fieldNames: [Int64: String]?
        do {
            fieldNames = Dictionary(try await getJSON(DiscogsFieldList.self, "\(userPath)/fields").fields.map { ($0.id, $0.name) },
                                    uniquingKeysWith: { first, _ in first })
        } catch let error as DiscogsError where !error.isHostProblem {
            logger.warning("collection fields of \(user) unreadable (\(error)); using Discogs' default fields")
            fieldNames = nil
        }

        var instances: [DiscogsCollectionSnapshot.Instance] = []
        var listed = Set<Int64>()
        var repeated = false
        // Pages are read one after another: a copy added or removed on Discogs meanwhile shifts the
        // others across pages, so that one comes twice or not at all, and the count moves.
        var counts = Set<Int>()
        var page = 1
        while true {
            let listing = try await getJSON(DiscogsCollectionPage.self, "\(userPath)/folders/0/releases?page=\(page)&per_page=100")
            for item in listing.releases {
                let instance = try CollectionMapping.instance(item, fieldNames: fieldNames)
                if listed.insert(instance.instanceId).inserted { instances.append(instance) } else { repeated = true }
            }
            if let items = listing.pagination.items { counts.insert(items) }
            // `pages` bounds the loop; a listing that claims more than 10,000 pages is not trusted.
            guard page < listing.pagination.pages, page < 10_000 else { break }
            page += 1
        }
        let isWhole = !repeated && counts.count <= 1 && (counts.first.map { $0 == instances.count } ?? true)
        if !isWhole {
            logger.warning("the collection of \(user) changed on Discogs while it was read: copies it did not list are kept until a pass reads it whole")
        }
        return DiscogsCollectionSnapshot(
            folders: folders.map { DiscogsCollectionSnapshot.Folder(id: $0.id, name: $0.name) },
            instances: instances, isWhole: isWhole)
    }

    // MARK: Requests

    private enum Fetched {
        case body([UInt8], etag: String?)
        case notModified
        case notFound
    }

    private func getJSON<T: Decodable>(_ type: T.Type, _ path: String) async throws -> T {
        switch try await get(path, etag: nil) {
        case .body(let body, _): return try decode(type, from: body)
        case .notFound: throw DiscogsError.notFound
        case .notModified: throw DiscogsError.malformedResponse("304 Not Modified to an unconditional request")
        }
    }

    /// One GET with the rate limiter and the retry policy around it.
    private func get(_ path: String, etag: String?) async throws -> Fetched {
        guard let url = URL(string: base + path) else { throw DiscogsError.transport(.invalidURL(base + path)) }
        var request = HTTPRequest(method: .get, url: url)
        request.headerFields[.userAgent] = settings.userAgent
        request.headerFields[.accept] = "application/vnd.discogs.v2.discogs+json"
        if !settings.token.isEmpty { request.headerFields[.authorization] = "Discogs token=\(settings.token)" }
        if let etag { request.headerFields[.ifNoneMatch] = etag }

        let policy = settings.retry
        var attempt = 0
        while true {
            attempt += 1
            let isLastAttempt = attempt >= policy.maxAttempts
            do {
                // A pause longer than a request waits out (a 429's long Retry-After) fails it at once.
                try await limiter.acquire(waitingAtMost: policy.maxRetryAfter)
            } catch let tooLong as RateLimiter.WaitTooLong {
                throw DiscogsError.hostPaused(tooLong.wait)
            }
            let response: HTTPTransportResponse
            do {
                response = try await transport.send(request)
            } catch let error as HTTPTransportError {
                if error == .cancelled { throw CancellationError() }
                guard error.isTransient, !isLastAttempt else { throw DiscogsError.transport(error) }
                let wait = policy.backoff(afterAttempt: attempt, jitter: jitter())
                logger.info("GET \(path): \(error); retrying in \(wait.logText) (attempt \(attempt) of \(policy.maxAttempts))")
                metrics.retryWaitSeconds.increment(by: wait)
                try await clock.sleepUnlessShuttingDown(for: wait)
                continue
            }
            await limiter.recordResponse(headers: response.headerFields)
            logger.debug("GET \(path): \(response.status)")

            switch response.status {
            case 200..<300:
                return .body(response.body, etag: response.headerFields[.eTag])
            case 304:
                return .notModified
            case 404, 410:
                return .notFound
            case 401, 403:
                throw DiscogsError.unauthorized(status: response.status)
            case 429, 503:
                if response.status == 429 { metrics.rateLimited.increment() }
                let retryAfter = retryAfter(response.headerFields[.retryAfter])
                if let retryAfter, retryAfter > policy.maxRetryAfter {
                    // Not waited out here, but the host is over its limit for every request: the
                    // pause holds them all back (a day at most: `RetryAfter.longest`).
                    await limiter.pause(for: retryAfter)
                    throw response.status == 429
                        ? DiscogsError.rateLimited(retryAfter: retryAfter) : DiscogsError.unavailable(retryAfter: retryAfter)
                }
                let wait = retryAfter ?? policy.backoff(afterAttempt: attempt, jitter: jitter())
                // The host is over its limit for everyone here, not only for this request: paused even
                // when this request has no attempt left, so that the next ones wait too.
                await limiter.pause(for: wait)
                guard !isLastAttempt else {
                    throw response.status == 429 ? DiscogsError.rateLimited(retryAfter: retryAfter) : DiscogsError.httpStatus(503)
                }
                logger.info("GET \(path): \(response.status); every request to this host waits \(wait.logText)")
                metrics.retryWaitSeconds.increment(by: wait)
            case 500..<600:
                guard !isLastAttempt else { throw DiscogsError.httpStatus(response.status) }
                let wait = policy.backoff(afterAttempt: attempt, jitter: jitter())
                logger.info("GET \(path): \(response.status); retrying in \(wait.logText) (attempt \(attempt) of \(policy.maxAttempts))")
                metrics.retryWaitSeconds.increment(by: wait)
                try await clock.sleepUnlessShuttingDown(for: wait)
            default:
                throw DiscogsError.httpStatus(response.status)
            }
        }
    }

    /// `Retry-After` as seconds or as an HTTP date.
    private func retryAfter(_ value: String?) -> Duration? {
        RetryAfter.wait(value, now: clock.date)
    }

    private func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch let error as DecodingError {
            if Self.isHTML(body) { throw DiscogsError.notTheAPI }
            throw DiscogsError.malformedResponse(Self.describe(error, body: body))
        }
    }

    /// What a body that is not JSON at all is instead ("not valid JSON" would send the user looking
    /// at Discogs' data).
    private static func notJSON(_ body: [UInt8]) -> String {
        body.contains(where: { !" \t\r\n".utf8.contains($0) }) ? "not valid JSON" : "an empty body, not JSON"
    }

    private static func isHTML(_ body: [UInt8]) -> Bool {
        body.first(where: { !" \t\r\n".utf8.contains($0) }) == UInt8(ascii: "<")
    }

    private static func describe(_ error: DecodingError, body: [UInt8]) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? notJSON(body) : "not valid JSON\(path(context))"
        case .keyNotFound(let key, let context): return "missing '\(key.stringValue)'\(path(context))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "unexpected value\(path(context))"
        @unknown default: return "undecodable"
        }
    }

    /// A user name as one path segment: `/` and other reserved characters escaped, and `.` or `..`
    /// escaped whole (libcurl would remove them as dot segments, asking for another path).
    static func pathSegment(_ text: String) -> String {
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.count) }
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#;")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
