import CratedCore
import Foundation
import GRDB
import Logging

/// What one pass covers.
public struct SyncPassOptions: Sendable, Equatable {
    /// Only the albums in this crated user's collection; nil means every album in the catalogue.
    public var userName: String?
    /// A Discogs user whose collection is brought in step first (into `userName`'s collection, or
    /// the only or default user's).
    public var collectionUser: String?
    /// At most this many albums are fetched.
    public var limit: Int?
    /// Without `collectionUser`: whether the collections linked to users (`crated user link`) are
    /// brought in step first, each into its user's: with `userName`, only that user's. The daemon's
    /// scheduled passes and `crated sync` do.
    public var linkedCollections: Bool
    /// Whether albums whose last attempt failed are fetched before their backoff ends: a pass
    /// someone asked for (`POST /v1/sync`, `crated sync`) tries them now, once the host may be back.
    public var retryFailed: Bool

    public init(userName: String? = nil, collectionUser: String? = nil, limit: Int? = nil, linkedCollections: Bool = false,
                retryFailed: Bool = false) {
        self.userName = userName
        self.collectionUser = collectionUser
        self.limit = limit
        self.linkedCollections = linkedCollections
        self.retryFailed = retryFailed
    }
}

/// What bringing in one user's Discogs collection did.
public struct CollectionOutcome: Sendable, Equatable {
    public var summary: CollectionSyncSummary?
    /// Why it failed, as a pass's `error` says it.
    public var error: String?

    public init(summary: CollectionSyncSummary? = nil, error: String? = nil) {
        (self.summary, self.error) = (summary, error)
    }
}

/// How release sync schedules albums.
public struct ReleaseSyncSettings: Sendable {
    /// A synced album is fetched again (conditionally, with its ETag) after this long.
    public var staleAfter: TimeInterval
    /// A release Discogs did not have is asked for again after this long.
    public var notFoundRetryAfter: TimeInterval
    /// The first retry of a failed album; each further failure doubles it, up to `maxFailureRetry`.
    public var firstFailureRetry: TimeInterval
    public var maxFailureRetry: TimeInterval
    /// Releases fetched at once, while the albums already fetched are written. The rate limiter
    /// paces them against Discogs; against a fast server more of them hide latency.
    public var concurrency: Int
    /// At most this many fetched albums are written in one transaction (each in a savepoint of its
    /// own), and at most this many wait for the writer. Against Discogs' rate a group is one album;
    /// only when fetches outpace the writer do they gather, and commit together.
    public var maxGroupSize: Int
    /// How long the first album of a group waits for others to share its commit, while more are
    /// in flight. A commit has a fixed cost (pages written, the search index's new segment) of
    /// about three albums' writing: writing whatever has come as soon as the writer is free would
    /// have a fast pass commit groups of one or two, whose CPU time slows the fetches on a small
    /// machine. Against Discogs' rate it only delays each album's commit by this much.
    public var maxGroupWait: Duration
    /// After this many albums in a row fail for a reason of the host's (unreachable, 5xx, rate
    /// limited, token refused), the pass stops rather than mark the whole catalogue failed.
    public var maxConsecutiveHostFailures: Int

    public init(
        staleAfter: TimeInterval = 30 * 86_400, notFoundRetryAfter: TimeInterval = 30 * 86_400,
        firstFailureRetry: TimeInterval = 15 * 60, maxFailureRetry: TimeInterval = 86_400,
        concurrency: Int = 2, maxGroupSize: Int = 64, maxGroupWait: Duration = .milliseconds(5),
        maxConsecutiveHostFailures: Int = 3
    ) {
        self.staleAfter = staleAfter
        self.notFoundRetryAfter = notFoundRetryAfter
        self.firstFailureRetry = firstFailureRetry
        self.maxFailureRetry = maxFailureRetry
        self.concurrency = max(1, concurrency)
        self.maxGroupSize = max(1, maxGroupSize)
        self.maxGroupWait = max(.zero, maxGroupWait)
        self.maxConsecutiveHostFailures = max(1, maxConsecutiveHostFailures)
    }

    public init(configuration: CratedConfiguration) {
        let staleAfter = TimeInterval(configuration.syncStaleAfterDays) * 86_400
        self.init(staleAfter: staleAfter, notFoundRetryAfter: staleAfter)
    }

    func failureRetryDelay(attempts: Int) -> TimeInterval {
        min(maxFailureRetry, firstFailureRetry * pow(2, Double(max(0, attempts - 1))))
    }
}

/// Progress of a running pass.
public struct SyncProgress: Codable, Sendable, Equatable {
    public var albumsDone: Int
    public var albumsTotal: Int
    public var synced: Int
    public var failed: Int
}

/// An album that failed in a pass.
public struct AlbumSyncFailure: Codable, Sendable, Equatable {
    public var albumId: Int64
    public var releaseId: Int64
    public var error: String
}

/// What a pass did.
public struct SyncPassReport: Codable, Sendable, Equatable {
    public var startedAt: String
    public var finishedAt: String
    /// Albums that were due when the pass started (after `limit`).
    public var albumsDue = 0
    /// Fetched and written.
    public var synced = 0
    /// Unchanged on Discogs (304): only marked fresh.
    public var notModified = 0
    public var notFound = 0
    public var failed = 0
    /// Due albums left for a later pass (a stop was requested, or the pass stopped on an error).
    /// An album deleted while the pass ran counts nowhere.
    public var skipped = 0
    public var collection: CollectionSyncSummary?
    /// Covers fetched after the releases; nil when the pass fetched none (no `CoverFetching`, or it
    /// stopped early).
    public var covers: CoverFetchSummary?
    /// The first failures, for the summary.
    public var failures: [AlbumSyncFailure] = []
    /// Why the pass stopped before the end, when it did for an error. A collection's own failure is
    /// in `collectionsByUser`; `seen(byUser:)` puts the ones a reader may see here.
    public var error: String?
    /// True when a stop was requested (shutdown) before every due album was done.
    public var stoppedEarly = false
    /// Each collection the pass brought in step, by crated user: what `GET /v1/sync` shows each user
    /// of their own. Not encoded: the report as a whole is anyone's to read.
    public var collectionsByUser: [Int64: CollectionOutcome] = [:]

    enum CodingKeys: String, CodingKey {
        case startedAt, finishedAt, albumsDue, synced, notModified, notFound, failed, skipped, collection, covers, failures, error, stoppedEarly
    }

    /// The report as a user sees it (`GET /v1/sync`): their own collection's summary and failure
    /// beside the pass's own error, and no one else's. Without a user, the operator's: every
    /// collection's failure. The view keeps no `collectionsByUser`: it is a view once.
    public func seen(byUser userId: Int64?) -> SyncPassReport {
        var report = self
        let outcomes: [CollectionOutcome]
        if let userId {
            outcomes = collectionsByUser[userId].map { [$0] } ?? []
            report.collection = collectionsByUser[userId]?.summary
        } else {
            outcomes = collectionsByUser.sorted { $0.key < $1.key }.map(\.value)
        }
        let errors = outcomes.compactMap(\.error) + [error].compactMap { $0 }
        report.error = errors.isEmpty ? nil : errors.joined(separator: "; ")
        report.collectionsByUser = [:]
        return report
    }
}

public enum SyncError: Error, Equatable, CustomStringConvertible {
    case user(String)
    case collection(user: String, reason: String)
    case database(String)

    public var description: String {
        switch self {
        case .user(let message): message
        case .collection(let user, let reason): "collection of Discogs user '\(user)': \(reason)"
        case .database(let message): "database error: \(message)"
        }
    }
}

/// Runs sync passes: optionally a collection first, then every due album's release, each album
/// written all-or-nothing together with its sync state.
public struct SyncRunner: Sendable {
    public let database: AppDatabase
    public let client: DiscogsClient
    public let settings: ReleaseSyncSettings
    public let defaultUserName: String
    /// Fetches covers after each pass's releases; nil fetches none.
    public let covers: (any CoverFetching)?
    private let clock: any SyncClock
    private let logger: Logger
    static let listedFailures = 50

    public init(
        database: AppDatabase, client: DiscogsClient, settings: ReleaseSyncSettings, defaultUserName: String = "collector",
        covers: (any CoverFetching)? = nil, clock: any SyncClock = SystemSyncClock(), logger: Logger = Logger(label: "crated.sync")
    ) {
        self.database = database
        self.client = client
        self.settings = settings
        self.defaultUserName = defaultUserName
        self.covers = covers
        self.clock = clock
        self.logger = logger
    }

    /// Counts by state as of now: the catalogue's, or with `userId` the user's albums'.
    public func counts(userId: Int64? = nil) throws(SyncError) -> SyncStateCounts {
        let now = clock.date
        do {
            return try database.syncStateCounts(now: now, staleBefore: now.addingTimeInterval(-settings.staleAfter), userId: userId,
                                                imagesWithheldAreDue: client.settings.hasToken)
        } catch {
            throw SyncError.database((error as? DatabaseError).flatMap(\.message) ?? "\(error)")
        }
    }

    /// Covers by state as of now: the catalogue's, or with `userId` the user's albums'.
    public func coverCounts(userId: Int64? = nil) throws(SyncError) -> ArtworkCounts {
        do {
            return try database.artworkCounts(userId: userId)
        } catch {
            throw SyncError.database((error as? DatabaseError).flatMap(\.message) ?? "\(error)")
        }
    }

    /// One pass. `shouldStop` is asked before each album starts: once it says yes, the albums in
    /// flight finish and no more begin. Cancelling the task instead abandons the albums in flight,
    /// which stay as they were. Throws only for database and user errors; problems with Discogs
    /// end up in the report. `collectionStarted` is told each Discogs collection as it begins to be
    /// read, which at Discogs' rate can take minutes.
    public func runPass(
        _ options: SyncPassOptions = SyncPassOptions(),
        shouldStop: @escaping @Sendable () -> Bool = { false },
        progress: (@Sendable (SyncProgress) -> Void)? = nil,
        collectionStarted: (@Sendable (_ discogsUser: String) -> Void)? = nil
    ) async throws -> SyncPassReport {
        var report = SyncPassReport(startedAt: Timestamp.string(from: clock.date), finishedAt: "")
        defer {
            // Why a pass stopped, or left its collection as it was, is the operator's to read here too.
            let counts = "sync pass: \(report.synced) synced, \(report.notModified) unchanged, \(report.notFound) not found, \(report.failed) failed"
                + (report.skipped > 0 ? ", \(report.skipped) left for the next pass" : "")
            if let error = report.seen(byUser: nil).error { logger.warning("\(counts); \(error)") } else { logger.info("\(counts)") }
        }

        var userId: Int64?
        if options.userName != nil || options.collectionUser != nil {
            userId = try await resolveUser(named: options.userName, createIfMissing: options.collectionUser != nil).id
        }
        // Collections first: `collection` is the one asked for; the linked ones each go to their user.
        var collections: [(userId: Int64, discogsUser: String)] = []
        if let collectionUser = options.collectionUser, let userId {
            collections = [(userId, collectionUser)]
        } else if options.linkedCollections {
            collections = try database.discogsLinks().filter { userId == nil || $0.key == userId }
                .sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }
        func dueAlbums() throws -> [SyncCandidate] {
            let now = clock.date
            return try database.albumsDueForSync(
                now: now, staleBefore: now.addingTimeInterval(-settings.staleAfter),
                userId: options.userName == nil ? nil : userId, limit: options.limit, imagesWithheldAreDue: client.settings.hasToken,
                failedAreDue: options.retryFailed)
        }
        for (collectionOwner, discogsUser) in collections {
            guard !shouldStop(), !Task.isCancelled else {
                report.stoppedEarly = true
                break
            }
            collectionStarted?(discogsUser)
            let (outcome, hostFailure) = try await bringInCollection(of: discogsUser, userId: collectionOwner)
            if let hostFailure {
                // The releases would meet the same answer. Whose collection it was is said to its
                // user and the operator alone.
                report.collectionsByUser[collectionOwner] = CollectionOutcome(
                    error: SyncError.collection(user: discogsUser, reason: hostFailure).description)
                report.error = "Discogs failed while a collection was brought in step: \(hostFailure)"
                // The albums due are left for the next pass, and counted so: "0 due" read as
                // nothing to do.
                report.albumsDue = try dueAlbums().count
                report.skipped = report.albumsDue
                report.finishedAt = Timestamp.string(from: clock.date)
                return report
            }
            report.collectionsByUser[collectionOwner] = outcome
            if options.collectionUser != nil { report.collection = outcome.summary }
        }

        let due = try dueAlbums()
        report.albumsDue = due.count
        let stopForError = try await syncReleases(due, into: &report, shouldStop: shouldStop, progress: progress)
        if let stopForError {
            report.error = report.error.map { $0 + "; " + stopForError } ?? stopForError
        } else if report.skipped > 0 {
            report.stoppedEarly = true
        } else if let covers, !shouldStop(), !Task.isCancelled {
            // Covers after releases: a release brings its images, and a cover that cannot be fetched
            // never holds its release back.
            report.covers = await covers.fetchCovers(userId: options.userName == nil ? nil : userId, staleAfter: settings.staleAfter,
                                                     shouldStop: shouldStop)
        }
        report.finishedAt = Timestamp.string(from: clock.date)
        return report
    }

    /// Brings a Discogs collection into the user's: folders to crates, instances to copies. A
    /// problem with that collection is said in the outcome; `hostFailure` says instead that the host
    /// itself failed (down, paused, refusing the token), so that the pass asks it nothing more.
    private func bringInCollection(of collectionUser: String, userId: Int64) async throws -> (outcome: CollectionOutcome, hostFailure: String?) {
        do {
            let snapshot = try await client.collection(user: collectionUser)
            return (CollectionOutcome(summary: try await database.applyCollection(snapshot, userId: userId, at: clock.date)), nil)
        } catch DiscogsError.unauthorized(status: 403) {
            // A private collection: Discogs lists it to its owner's token alone. Only this user's.
            return (CollectionOutcome(error: SyncError.collection(
                user: collectionUser, reason: "Discogs refused it (HTTP 403): a private collection is listed only with its owner's token (discogs.token)").description), nil)
        } catch let error as DiscogsError {
            if error.isHostProblem { return (CollectionOutcome(), error.description) }
            return (CollectionOutcome(error: SyncError.collection(user: collectionUser, reason: error.description).description), nil)
        } catch let error as DatabaseError {
            throw SyncError.database(error.message ?? error.description)
        } catch let error as AppDatabaseError {
            throw SyncError.database(error.description)
        }
    }

    /// Fetches and writes the due albums' releases, counting each outcome in `report`. Returns why
    /// the albums stopped before the end when it was for an error (the host failing album after
    /// album, or the database refusing a write); the albums not begun are counted as skipped.
    private func syncReleases(
        _ due: [SyncCandidate], into report: inout SyncPassReport,
        shouldStop: @escaping @Sendable () -> Bool, progress: (@Sendable (SyncProgress) -> Void)?
    ) async throws -> String? {
        var current = SyncProgress(albumsDone: 0, albumsTotal: due.count, synced: 0, failed: 0)
        progress?(current)

        // Fetches run `concurrency` at a time in child tasks, and one more child task writes what
        // they brought, a group at a time. A group is written once the writer is free and the group
        // is full (`maxGroupSize`), or its first album has waited `maxGroupWait`, or nothing more
        // is in flight. Fetches go on while it is written, so neither waits for the other; a fetch
        // starts only while fewer than max(concurrency, maxGroupSize) albums are in flight or
        // waiting for the writer, which bounds what a pass holds in memory.
        var queue = due.makeIterator()
        var consecutiveHostFailures = 0
        var stopForError: String?
        // A database that failed one group's write fails every later one alike.
        var writesFailed = false
        try await withThrowingTaskGroup(of: PassEvent.self) { group in
            var fetching = 0
            var waiting: [FetchedRelease] = []
            var writing = false
            // Numbers the groups, so that a wait started for an earlier group is told apart.
            var groupNumber = 0
            // Whether the first album waiting has waited `maxGroupWait` (or through a write).
            var waitedEnough = false
            let lookahead = max(settings.concurrency, settings.maxGroupSize)

            func startFetches() {
                while fetching < settings.concurrency, fetching + waiting.count < lookahead,
                      stopForError == nil, !shouldStop(), !Task.isCancelled, let candidate = queue.next() {
                    group.addTask { .fetched(await fetch(candidate)) }
                    fetching += 1
                }
            }
            func startGroupWait() {
                // Real time even under a test's virtual clock: a wait for company, not a schedule.
                // Cancelled, it simply ends.
                group.addTask { [number = groupNumber, wait = settings.maxGroupWait] in
                    try? await Task.sleep(for: wait)
                    return .groupWaitOver(number)
                }
            }
            func startWriteIfDue() {
                guard !writing, !waiting.isEmpty, !writesFailed else { return }
                let groupCanGrow = waiting.count < settings.maxGroupSize && fetching > 0
                guard !groupCanGrow || waitedEnough || settings.maxGroupWait == .zero else { return }
                let albums = Array(waiting.prefix(settings.maxGroupSize))
                waiting.removeFirst(albums.count)
                writing = true
                groupNumber += 1
                waitedEnough = !waiting.isEmpty
                group.addTask {
                    let (outcomes, databaseFailure) = try await record(albums)
                    return .written(outcomes, databaseFailure: databaseFailure)
                }
            }
            let counted = database.metrics.sync
            func count(_ outcome: AlbumOutcome) {
                switch outcome {
                case .synced: report.synced += 1; counted.albumsSynced.increment()
                case .notModified: report.notModified += 1; counted.albumsNotModified.increment()
                case .notFound: report.notFound += 1; counted.albumsNotFound.increment()
                case .cancelled: report.skipped += 1
                case .albumGone: break
                case .failed(let failure):
                    report.failed += 1
                    counted.albumsFailed.increment()
                    if report.failures.count < Self.listedFailures { report.failures.append(failure) }
                }
                current.albumsDone += 1
            }

            startFetches()
            while let event = try await group.next() {
                switch event {
                case .fetched(let fetched):
                    fetching -= 1
                    if case .failed(_, let error) = fetched, error.isHostProblem {
                        consecutiveHostFailures += 1
                        // Said once, at the limit: fetches already in flight may fail after it.
                        if consecutiveHostFailures == settings.maxConsecutiveHostFailures, stopForError == nil {
                            stopForError = "stopped after \(consecutiveHostFailures) albums in a row failed: \(error)"
                        }
                    } else if case .fetched = fetched {
                        consecutiveHostFailures = 0
                    }
                    if case .notSent(let error) = fetched {
                        if stopForError == nil { stopForError = "stopped: \(error)" }
                        count(.cancelled)
                        progress?(current)
                    } else if case .cancelled = fetched {
                        count(.cancelled)
                        progress?(current)
                    } else if writesFailed {
                        // Never written: the album stays as it was.
                        count(.cancelled)
                    } else {
                        if waiting.isEmpty && settings.maxGroupWait > .zero { startGroupWait() }
                        waiting.append(fetched)
                    }
                case .written(let outcomes, let databaseFailure):
                    writing = false
                    outcomes.forEach(count)
                    if let databaseFailure {
                        // It would fail every later group alike: the pass stops, and what it
                        // committed stays counted. The albums fetched and not written stay as they were.
                        writesFailed = true
                        stopForError = [stopForError, "stopped: \(databaseFailure)"].compactMap { $0 }.joined(separator: "; ")
                        for _ in waiting { count(.cancelled) }
                        waiting.removeAll()
                    }
                    current.synced = report.synced + report.notModified
                    current.failed = report.failed
                    progress?(current)
                case .groupWaitOver(let number):
                    if number == groupNumber { waitedEnough = true }
                }
                // After the progress report, so that a stop it leads to starts nothing more; and
                // again after a write starts, which may have made room for more fetches.
                startFetches()
                startWriteIfDue()
                startFetches()
            }
        }
        while queue.next() != nil { report.skipped += 1 }
        return stopForError
    }

    private enum FetchedRelease: Sendable {
        case fetched(SyncCandidate, ReleaseFetch)
        case failed(SyncCandidate, DiscogsError)
        /// Never sent: the host asked every request to wait longer than one waits. Not the album's
        /// failure, so it stays as it was, and the pass stops, since every later request would wait too.
        case notSent(DiscogsError)
        case cancelled
    }

    /// What a child task of a pass brings back: one fetch, the outcomes of one group written, or
    /// the end of a `maxGroupWait`.
    private enum PassEvent: Sendable {
        case fetched(FetchedRelease)
        /// With the failure of the database's own state (full, read-only, I/O) that left some or
        /// all of the group's albums unwritten, if one did.
        case written([AlbumOutcome], databaseFailure: SyncError?)
        case groupWaitOver(Int)
    }

    private enum AlbumOutcome: Sendable {
        case synced, notModified, notFound, albumGone, cancelled
        case failed(AlbumSyncFailure)
    }

    /// Asks Discogs for one release; touches no database.
    private func fetch(_ candidate: SyncCandidate) async -> FetchedRelease {
        do {
            return .fetched(candidate, try await client.release(id: candidate.releaseId, etag: candidate.etag))
        } catch DiscogsError.hostPaused(let wait) {
            return .notSent(DiscogsError.hostPaused(wait))
        } catch let error as DiscogsError {
            logger.warning("release \(candidate.releaseId): \(error)")
            return .failed(candidate, error)
        } catch {
            // CancellationError: the pass was cancelled; the album stays as it was.
            return .cancelled
        }
    }

    /// Writes what a group of fetches brought, each album with its sync state, in one transaction
    /// (see `AppDatabase.recordSyncResults`). Discogs' problems become a failed state, and so does a
    /// release whose data the schema refuses. A failure of the database's own state leaves the
    /// albums it reached as they were (`cancelled`) and is returned, as it would fail every album.
    /// Cancelled, the group stays as it was.
    private func record(_ group: [FetchedRelease]) async throws -> ([AlbumOutcome], databaseFailure: SyncError?) {
        var results: [AlbumSyncResult] = []
        var candidates: [SyncCandidate] = []
        var outcomes: [AlbumOutcome] = []
        for fetched in group {
            switch fetched {
            case .cancelled, .notSent:
                continue  // never queued for writing
            case .failed(let candidate, let error):
                results.append(failure(candidate, error.description, notBefore: error.hostWait))
                outcomes.append(.failed(AlbumSyncFailure(albumId: candidate.albumId, releaseId: candidate.releaseId, error: error.description)))
                candidates.append(candidate)
            case .fetched(let candidate, .updated(let release, let etag)):
                results.append(AlbumSyncResult(albumId: candidate.albumId, outcome: .fetched(release, etag: etag)))
                outcomes.append(.synced)
                candidates.append(candidate)
            case .fetched(let candidate, .notModified):
                results.append(AlbumSyncResult(albumId: candidate.albumId, outcome: .notModified))
                outcomes.append(.notModified)
                candidates.append(candidate)
            case .fetched(let candidate, .notFound):
                results.append(AlbumSyncResult(albumId: candidate.albumId, outcome: .notFound(retryAfter: settings.notFoundRetryAfter)))
                outcomes.append(.notFound)
                candidates.append(candidate)
            }
        }
        let errors: [(any Error)?]
        switch await write(results) {
        case .cancelled: return (outcomes.map { _ in .cancelled }, nil)
        case .failed(let failure): return (outcomes.map { _ in .cancelled }, failure)
        case .written(let written): errors = written
        }
        // The albums without an error are committed; one that failed was rolled back alone.
        var databaseFailure: SyncError?
        var refused: [(index: Int, result: AlbumSyncResult)] = []
        for (index, error) in errors.enumerated() {
            switch error {
            case nil: continue
            case ReleaseWriteError.albumMissing?: outcomes[index] = .albumGone
            case let error as DatabaseError where Self.isRefusalOfTheData(error):
                // Left unsynced, the album would come first again in every pass and stop each one.
                let reason = "could not store the release: \(error.message ?? error.description)"
                logger.warning("release \(candidates[index].releaseId): \(reason)")
                refused.append((index, failure(candidates[index], reason)))
                outcomes[index] = .failed(AlbumSyncFailure(albumId: candidates[index].albumId, releaseId: candidates[index].releaseId, error: reason))
            case let error as DatabaseError:
                outcomes[index] = .cancelled
                databaseFailure = databaseFailure ?? SyncError.database(error.message ?? error.description)
            case let error?: throw error
            }
        }
        if !refused.isEmpty {
            switch await write(refused.map(\.result)) {
            case .cancelled:
                for (index, _) in refused { outcomes[index] = .cancelled }
            case .failed(let failure):
                for (index, _) in refused { outcomes[index] = .cancelled }
                databaseFailure = databaseFailure ?? failure
            case .written(let errors):
                for (position, error) in errors.enumerated() {
                    switch error {
                    case nil: continue
                    case ReleaseWriteError.albumMissing?: outcomes[refused[position].index] = .albumGone
                    case let error as DatabaseError:
                        outcomes[refused[position].index] = .cancelled
                        databaseFailure = databaseFailure ?? SyncError.database(error.message ?? error.description)
                    case let error?: throw error
                    }
                }
            }
        }
        return (outcomes, databaseFailure)
    }

    private enum GroupWrite {
        /// Committed; an error for each album that was rolled back alone.
        case written([(any Error)?])
        /// Nothing was written.
        case cancelled
        /// Nothing was written: the database's own state failed the transaction.
        case failed(SyncError)
    }

    private func write(_ results: [AlbumSyncResult]) async -> GroupWrite {
        do {
            return .written(try await database.recordSyncResults(results, at: clock.date))
        } catch is CancellationError {
            return .cancelled
        } catch let error as DatabaseError {
            return .failed(SyncError.database(error.message ?? error.description))
        } catch let error as AppDatabaseError {
            return .failed(SyncError.database(error.description))
        } catch {
            return .failed(SyncError.database("\(error)"))
        }
    }

    /// A failed album's state; its next attempt comes after the usual delay, and no sooner than
    /// `notBefore` (the wait the host asked for).
    private func failure(_ candidate: SyncCandidate, _ reason: String, notBefore: Duration? = nil) -> AlbumSyncResult {
        let hostWait = notBefore.map { $0.seconds } ?? 0
        return AlbumSyncResult(albumId: candidate.albumId, outcome: .failed(
            error: reason, retryDelay: { [settings] in max(settings.failureRetryDelay(attempts: $0), hostWait) }))
    }

    /// Errors about one release's data (a constraint, a value too big or of the wrong type), as
    /// opposed to the database's own state (busy, full, read-only, I/O), which every album would meet.
    static func isRefusalOfTheData(_ error: DatabaseError) -> Bool {
        [.SQLITE_CONSTRAINT, .SQLITE_MISMATCH, .SQLITE_TOOBIG, .SQLITE_RANGE].contains(error.resultCode)
    }

    private func resolveUser(named name: String?, createIfMissing: Bool) async throws -> User {
        do {
            return try await database.resolveUser(named: name, defaultName: defaultUserName, createIfMissing: createIfMissing)
        } catch let error as UserError {
            throw SyncError.user(error.description)
        }
    }
}
