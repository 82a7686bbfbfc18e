import Crypto
import CratedCore
import CratedSync
import Foundation
import HTTPTypes
import Logging
import NIOPosix

/// How covers are fetched from image hosts.
public struct ArtworkFetchSettings: Sendable {
    public var userAgent: String
    /// Per image host, in a moving minute.
    public var requestsPerMinute: Int
    public var limits: ImageLimits
    public var retry: RetryPolicy
    /// What an image URL without a host is relative to: older Discogs responses give covers as
    /// `/image/R-1-....jpeg` on the API's own host.
    public var relativeBase: String?

    public init(userAgent: String, requestsPerMinute: Int, limits: ImageLimits = ImageLimits(), retry: RetryPolicy = RetryPolicy(maxAttempts: 3),
                relativeBase: String? = nil) {
        self.userAgent = userAgent
        self.requestsPerMinute = requestsPerMinute
        self.limits = limits
        self.retry = retry
        self.relativeBase = relativeBase
    }

    /// The absolute URL of a cover's source, relative ones resolved against `relativeBase`.
    public func resolve(_ sourceURL: String) -> URL? {
        URL(string: sourceURL, relativeTo: relativeBase.flatMap { URL(string: $0) })?.absoluteURL
    }

    /// `scheme://host[:port]` of an http(s) URL: the host a cover is fetched from and paced by.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = url.host, !host.isEmpty else { return nil }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }
}

/// What one fetch came to; the database already says so when it returns.
public enum ArtworkFetchOutcome: Sendable, Equatable {
    case fetched(StoredOriginal)
    /// 304 to a conditional request: the stored original is current.
    case unchanged
    /// Nothing usable: no attempt before `retryAt`. `hostBusy`: the host asked every client to wait
    /// (429, 503) or could not be reached, so its other covers wait too.
    case failed(reason: String, retryAt: Date, hostBusy: Bool = false)
}

/// Fetches one cover's original from its image host: paced per host, conditional when crated has
/// the image already, retried as release requests are (`RetryPolicy`, `Retry-After`), checked
/// before anything is kept (`ImageProcessor.inspect`), stored by content hash, recorded.
public struct ArtworkFetcher: Sendable {
    let database: AppDatabase
    let files: ArtworkFiles
    let transport: any HTTPTransport
    let settings: ArtworkFetchSettings
    let rateLimiters: RateLimiterRegistry
    let clock: any SyncClock
    let logger: Logger
    let jitter: @Sendable () -> Double

    /// A host's wait longer than this fails the cover rather than hold a request or a pass.
    static let longestQueuedPause: Duration = .seconds(10)

    /// A host not reached after every attempt is not asked again for this long: its other covers
    /// fail at once rather than each spend the same attempts (seconds of a request, minutes of a pass).
    static let unreachableHostPause: Duration = .seconds(60)

    /// Waits after a failure the host will not fix by itself (404, not an image, too large).
    static let permanentFailureWait: TimeInterval = 7 * 86_400

    public init(database: AppDatabase, files: ArtworkFiles, transport: any HTTPTransport, settings: ArtworkFetchSettings,
                rateLimiters: RateLimiterRegistry = .shared, clock: any SyncClock = SystemSyncClock(),
                logger: Logger = Logger(label: "crated.artwork"), jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.database = database
        self.files = files
        self.transport = transport
        self.settings = settings
        self.rateLimiters = rateLimiters
        self.clock = clock
        self.logger = logger
        self.jitter = jitter
    }

    /// Fetches `record`'s image and records the outcome. Throws only for the database, for the
    /// artwork directory (`ArtworkStorageError`: not the cover's failure, so nothing is recorded) and
    /// for cancellation; the host's and the image's problems are `.failed`. `queueingAtMost` bounds
    /// the wait for the host's rate limit (a request's fetch; a pass's waits its turn).
    public func fetch(_ record: ArtworkRecord, queueingAtMost longestQueue: Duration? = nil) async throws -> ArtworkFetchOutcome {
        let outcome: ArtworkFetchOutcome
        do {
            outcome = try await download(record, queueingAtMost: longestQueue)
        } catch let failure as FetchFailure {
            let retryAt = clock.date.addingTimeInterval(failure.wait ?? retryDelay(afterFailures: record.failures + 1))
            logger.warning("cover \(record.sourceURL): \(failure.reason); next attempt after \(Timestamp.string(from: retryAt))")
            try await database.recordArtworkFailure(id: record.id!, error: failure.reason, retryAt: retryAt, unusable: failure.unusable,
                                                    counts: failure.wasSent, hostFailed: failure.hostBusy)
            return .failed(reason: failure.reason, retryAt: retryAt, hostBusy: failure.hostBusy)
        }
        switch outcome {
        case .fetched(let original): try await database.recordArtworkFetched(id: record.id!, original: original, at: clock.date)
        case .unchanged: try await database.recordArtworkUnchanged(id: record.id!, at: clock.date)
        case .failed: break
        }
        return outcome
    }

    /// Transient failures wait 15 minutes, doubling with each failure in a row, at most a day.
    func retryDelay(afterFailures failures: Int) -> TimeInterval {
        min(900 * pow(2, Double(min(max(failures - 1, 0), 10))), 86_400)
    }

    private struct FetchFailure: Error {
        var reason: String
        /// Nil: the transient delay for the failure count.
        var wait: TimeInterval?
        var hostBusy = false
        /// The host has no usable image at this URL, for as long as the wait.
        var unusable = false
        /// False when no request went out (the host was paused): the cover's own count of failures,
        /// which lengthens its next wait, stays as it was.
        var wasSent = true

        static func permanent(_ reason: String) -> FetchFailure {
            FetchFailure(reason: reason, wait: ArtworkFetcher.permanentFailureWait, unusable: true)
        }
    }

    private func download(_ record: ArtworkRecord, queueingAtMost longestQueue: Duration?) async throws -> ArtworkFetchOutcome {
        guard let url = settings.resolve(record.sourceURL), let origin = ArtworkFetchSettings.origin(of: url) else {
            throw FetchFailure.permanent("not an http(s) URL")
        }
        let limiter = rateLimiters.limiter(forHost: origin, limit: settings.requestsPerMinute, clock: clock)
        var request = HTTPRequest(method: .get, url: url)
        request.headerFields[.userAgent] = settings.userAgent
        request.headerFields[.accept] = "image/jpeg, image/png, image/webp, image/*;q=0.8"
        // Conditional only when the original is still on disk: a 304 is of no use otherwise.
        if let sha256 = record.sha256, files.exists(files.originalPath(sha256: sha256)) {
            if let etag = record.etag { request.headerFields[.ifNoneMatch] = etag }
            if let lastModified = record.lastModified { request.headerFields[.ifModifiedSince] = lastModified }
        }

        let policy = settings.retry
        var attempt = 0
        while true {
            attempt += 1
            let isLastAttempt = attempt >= policy.maxAttempts
            // A host that asked for a long wait is not queued for: the cover is tried after it.
            let hostPause = await limiter.remainingPause()
            if hostPause > Self.longestQueuedPause {
                throw FetchFailure(reason: "the image host is not asked for another \(Int(hostPause.components.seconds)) s (it asked to wait, or could not be reached)",
                                   wait: Double(hostPause.components.seconds) + 1, hostBusy: true, wasSent: false)
            }
            do {
                try await limiter.acquire(waitingAtMost: longestQueue)
            } catch let tooLong as RateLimiter.WaitTooLong {
                throw FetchFailure(reason: "the image host's rate limit lets the next request go in \(Int(tooLong.wait.components.seconds) + 1) s",
                                   wait: Double(tooLong.wait.components.seconds) + 1, hostBusy: true, wasSent: false)
            }
            let response: HTTPTransportResponse
            do {
                response = try await transport.send(request)
            } catch let error as HTTPTransportError {
                if error == .cancelled { throw CancellationError() }
                if case .responseTooLarge = error { throw FetchFailure.permanent(AppDatabase.SizeRefusal.overLimit(settings.limits.maxSourceBytes)) }
                // A transfer that ran out its whole time would hold the caller as long again: the
                // host is treated as not reached, and the cover tried after the pause.
                guard error.isTransient, !isLastAttempt, error != .timedOut else {
                    if error.isTransient { await limiter.pause(for: Self.unreachableHostPause) }
                    throw FetchFailure(reason: error.description, hostBusy: error.isTransient)
                }
                try await clock.sleepUnlessShuttingDown(for: policy.backoff(afterAttempt: attempt, jitter: jitter()))
                continue
            }
            switch response.status {
            case 200:
                // Decoding, hashing and a synced write: on the thread pool, as variants are made, not
                // on the caller's thread (an event loop, for a request).
                let (files, limits) = (self.files, settings.limits)
                let original = try await NIOThreadPool.singleton.runIfActive { try Self.store(response, files: files, limits: limits) }
                try await retryCoversIfRecovered(limiter, origin: origin)
                return .fetched(original)
            case 304:
                try await retryCoversIfRecovered(limiter, origin: origin)
                return .unchanged
            case 404, 410:
                throw FetchFailure.permanent("the image host answered \(response.status)")
            case 429, 503:
                let wait = RetryAfter.wait(response.headerFields[.retryAfter], now: clock.date)
                // The host is over its limit for every cover on it, not only for this one.
                let pause = wait ?? policy.backoff(afterAttempt: attempt, jitter: jitter())
                await limiter.pause(for: pause)
                guard !isLastAttempt, pause <= Self.longestQueuedPause else {
                    throw FetchFailure(reason: "the image host answered \(response.status)", wait: wait.map { Double($0.components.seconds) }, hostBusy: true)
                }
            case 500..<600:
                guard !isLastAttempt else { throw FetchFailure(reason: "the image host answered \(response.status)") }
                try await clock.sleepUnlessShuttingDown(for: policy.backoff(afterAttempt: attempt, jitter: jitter()))
            default:
                throw FetchFailure.permanent("the image host answered \(response.status)")
            }
        }
    }

    /// The host gave an image: if it had failed everyone since it last did, its covers that failed
    /// with it are due now rather than at their own retry times.
    private func retryCoversIfRecovered(_ limiter: RateLimiter, origin: String) async throws {
        guard await limiter.recordAnswer() else { return }
        let settings = self.settings
        let due = try await database.retryCoversAfterTheirHostRecovered(
            isOnHost: { source in settings.resolve(source).flatMap(ArtworkFetchSettings.origin(of:)) == origin }, now: clock.date)
        if due > 0 { logger.info("image host \(origin) gives images again: \(due) covers that failed with it are due now") }
    }

    /// Checks the body is an image within the limits, then keeps it under its content hash.
    private static func store(_ response: HTTPTransportResponse, files: ArtworkFiles, limits: ImageLimits) throws -> StoredOriginal {
        let contentType = response.headerFields[.contentType]?.lowercased() ?? ""
        guard contentType.hasPrefix("image/") else {
            throw FetchFailure.permanent("the image host answered \(contentType.isEmpty ? "no Content-Type" : contentType), not an image")
        }
        let info: ImageInfo
        do {
            info = try ImageProcessor.inspect(response.body, limits: limits)
        } catch {
            throw FetchFailure.permanent(error.description)
        }
        let sha256 = SHA256.hash(data: response.body).map { String(format: "%02x", $0) }.joined()
        let path = files.originalPath(sha256: sha256)
        // The directory's failure is thrown as it is: the disk, not the image or its host.
        if !files.exists(path) { try files.store(response.body, at: path) }
        return StoredOriginal(sha256: sha256, bytes: response.body.count, format: info.format.rawValue, width: info.width, height: info.height,
                              color: info.dominantColor.hex, etag: response.headerFields[.eTag], lastModified: response.headerFields[.lastModified])
    }
}
