import CratedCore
import Foundation
import GRDB
import Logging
import ServiceLifecycle
import Synchronization

/// What `SyncService.status()` reports, for `GET /v1/sync`.
public struct SyncStatus: Codable, Sendable, Equatable {
    /// False when the server's operator turned sync off (`sync.enabled`): no pass runs or starts.
    public var enabled: Bool
    public var running: Bool
    /// The pass under way, when one is and it covers the reader's albums: a pass another user asked
    /// for their own collection shows as `running` alone (its totals are the size of theirs).
    public var progress: SyncProgress?
    /// Albums by sync state.
    public var albums: SyncStateCounts
    /// Covers by state.
    public var covers: ArtworkCounts
    public var lastRun: SyncPassReport?
    /// The albums whose last attempt failed, whichever pass it was in (at most `failedAlbumsShown`).
    public var failedAlbums: [FailedAlbumSync]
    /// When the next scheduled pass starts (RFC 3339); nil while a pass runs or after shutdown.
    public var nextRunAt: String?
    public var intervalSeconds: Int
    public var rateLimit: RateLimitStatus
}

/// The answer to `SyncService.triggerPass`.
public enum SyncTriggerResult: String, Codable, Sendable {
    /// A pass starts now.
    case started
    /// A pass is already under way; this request adds nothing.
    case alreadyRunning
    /// The service is shutting down (or not running): no pass will start.
    case unavailable
    /// Sync is turned off (`sync.enabled`): no pass ever starts.
    case disabled
}

/// Metadata sync in the daemon: a pass when it starts, then one every interval, or sooner when
/// `triggerPass` asks. On graceful shutdown the albums in flight finish and no more start.
public final class SyncService: Service, Sendable {
    public let runner: SyncRunner
    /// False: the service runs no pass, scheduled or asked for (`sync.enabled`).
    public let isEnabled: Bool
    public let interval: Duration
    /// Whether the service syncs as soon as it starts, or first waits an interval (or a trigger).
    public let passAtStart: Bool
    private let clock: any SyncClock
    private let logger: Logger
    private let state = Mutex(State())
    /// Each user's counts (nil: the catalogue's), as `counts(userId:...)` keeps them.
    private let countsByUser = Mutex<[Int64?: Counted]>([:])
    private let wakeUp = WakeSignal()
    /// Opened by `serverIsListening()` when the service waits for the daemon's port: a port already
    /// taken then ends the daemon before any pass has begun.
    private let listening: WakeSignal?

    private struct State {
        var isServing = false
        var isStopping = false
        var running = false
        var progress: SyncProgress?
        /// The user whose albums the running pass covers, when a user asked for it; nil: everyone's.
        var runningFor: Int64?
        /// The last pass of each kind, numbered in the order they ended (two may end in one second):
        /// everyone's (a scheduled one) under nil, each user's own under their id. A user reads the
        /// later of everyone's and their own.
        var lastRuns: [Int64?: (number: Int, report: SyncPassReport)] = [:]
        var passesEnded = 0
        var nextRunAt: Date?
        /// Options of a pass asked for by `triggerPass`; scheduled passes bring in the linked
        /// collections, then every due album.
        var requested: SyncPassOptions?

        /// The last pass of all, whoever it was for.
        var lastRun: SyncPassReport? { lastRuns.values.max { $0.number < $1.number }?.report }

        func lastRun(seenBy userId: Int64?) -> SyncPassReport? {
            guard let userId else { return lastRun }
            return [lastRuns[nil], lastRuns[userId]].compactMap { $0 }.max { $0.number < $1.number }?.report
        }
    }

    /// The daemon's service: libcurl transport, the process-wide rate limiters, the real clock.
    public convenience init(database: AppDatabase, configuration: CratedConfiguration, covers: (any CoverFetching)? = nil,
                            passAtStart: Bool = true, waitsForServer: Bool = true, logger: Logger = Logger(label: "crated.sync")) throws {
        let client = try DiscogsClient(
            settings: DiscogsClientSettings(configuration: configuration),
            transport: CurlHTTPTransport(),
            logger: logger,
            metrics: database.metrics)
        let runner = SyncRunner(
            database: database, client: client, settings: ReleaseSyncSettings(configuration: configuration),
            defaultUserName: configuration.defaultUserName, covers: covers, logger: logger)
        self.init(runner: runner, enabled: configuration.syncEnabled, interval: .seconds(max(1, configuration.syncIntervalSeconds)),
                  passAtStart: passAtStart, waitsForServer: waitsForServer, logger: logger)
    }

    /// - Parameter waitsForServer: no pass begins before `serverIsListening()`.
    public init(runner: SyncRunner, enabled: Bool = true, interval: Duration, passAtStart: Bool = true, waitsForServer: Bool = false,
                clock: any SyncClock = SystemSyncClock(), logger: Logger = Logger(label: "crated.sync")) {
        self.listening = waitsForServer ? WakeSignal() : nil
        self.runner = runner
        self.isEnabled = enabled
        self.interval = interval
        self.passAtStart = passAtStart
        self.clock = clock
        self.logger = logger
    }

    public func run() async throws {
        guard isEnabled else {
            logger.info("sync is turned off (sync.enabled): no passes")
            try? await gracefulShutdown()
            return
        }
        state.withLock { $0.isServing = true }
        defer { state.withLock { $0.isServing = false; $0.nextRunAt = nil } }
        await withGracefulShutdownHandler {
            await listening?.wait()
            // The daemon's own passes keep to their schedule: a pass a user asks for covers their
            // albums alone, so it neither replaces nor postpones the next scheduled one.
            var scheduled = clock.uptime + (passAtStart ? .zero : interval)
            let clock = self.clock
            func dateOf(_ uptime: Duration) -> Date { clock.date.addingTimeInterval(max(.zero, uptime - clock.uptime).seconds) }
            while !Task.isCancelled && !isStopping {
                let nextRunAt = dateOf(scheduled)
                let asked = state.withLock { state in
                    state.nextRunAt = nextRunAt
                    return state.requested != nil
                }
                if !asked, clock.uptime < scheduled {
                    await wakeUp.wait(orSleepFor: scheduled - clock.uptime, on: clock)
                }
                let pass: (options: SyncPassOptions, isScheduled: Bool)? = state.withLock { state in
                    if state.isStopping { return nil }
                    let pass: (SyncPassOptions, Bool)
                    if let requested = state.requested {
                        pass = (requested, false)
                    } else if clock.uptime >= scheduled {
                        pass = (SyncPassOptions(linkedCollections: true), true)
                    } else {
                        return nil
                    }
                    state.running = true
                    state.nextRunAt = nil
                    state.requested = nil
                    return pass
                }
                guard let pass else { continue }
                await runOnePass(pass.options)
                if pass.isScheduled { scheduled = clock.uptime + interval }
                let nextRunAfter = dateOf(scheduled)
                state.withLock { state in
                    state.running = false
                    state.progress = nil
                    state.runningFor = nil
                    state.nextRunAt = nextRunAfter
                }
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.isStopping = true }
            self.listening?.signal()
            self.wakeUp.signal()
        }
    }

    /// The daemon is listening: passes may begin.
    public func serverIsListening() {
        listening?.signal()
    }

    /// Starts a pass now unless one is running. `options` apply to that pass only.
    @discardableResult
    public func triggerPass(_ options: SyncPassOptions = SyncPassOptions()) -> SyncTriggerResult {
        guard isEnabled else { return .disabled }
        let result: SyncTriggerResult = state.withLock { state in
            if !state.isServing || state.isStopping { return .unavailable }
            if state.running || state.requested != nil { return .alreadyRunning }
            state.requested = options
            return .started
        }
        if result == .started { wakeUp.signal() }
        return result
    }

    /// How sync stands, as one user may see it: with `userId`, the counts of that user's albums and
    /// only the failures among them; other users' albums are theirs to know.
    public func status(userId: Int64? = nil) async throws -> SyncStatus {
        let snapshot = state.withLock { $0 }
        var lastRun = snapshot.lastRun(seenBy: userId)?.seen(byUser: userId)
        // A scheduled pass covers every user's albums: each sees the failures of their own, since an
        // image URL names its release as much as an album id does.
        if let userId, var report = lastRun, !report.failures.isEmpty || !(report.covers?.failures.isEmpty ?? true) {
            do {
                let owned = try runner.database.albumsOwned(byUser: userId, among: report.failures.map(\.albumId))
                report.failures.removeAll { !owned.contains($0.albumId) }
                if let covers = report.covers, !covers.failures.isEmpty {
                    let ownedImages = try runner.database.imageURLsOwned(byUser: userId, among: covers.failures.map(\.url))
                    report.covers?.failures.removeAll { !ownedImages.contains($0.url) }
                }
            } catch {
                throw SyncError.database((error as? DatabaseError).flatMap(\.message) ?? "\(error)")
            }
            lastRun = report
        }
        let counts = try counts(userId: userId, running: snapshot.running, lastRunFinishedAt: snapshot.lastRun?.finishedAt)
        let failedAlbums: [FailedAlbumSync]
        do {
            failedAlbums = try runner.database.failedAlbumSyncs(userId: userId, limit: Self.failedAlbumsShown)
        } catch {
            throw SyncError.database((error as? DatabaseError).flatMap(\.message) ?? "\(error)")
        }
        return SyncStatus(
            enabled: isEnabled,
            running: snapshot.running,
            progress: userId == nil || snapshot.runningFor == nil || snapshot.runningFor == userId ? snapshot.progress : nil,
            albums: counts.albums,
            covers: counts.covers,
            lastRun: lastRun,
            failedAlbums: failedAlbums,
            nextRunAt: snapshot.running ? nil : snapshot.nextRunAt.map(Timestamp.string(from:)),
            intervalSeconds: Int(interval.seconds),
            rateLimit: await runner.client.limiter.status())
    }

    private var isStopping: Bool { state.withLock { $0.isStopping } }

    /// The most failed albums `status` lists; `albums.failed` counts them all.
    public static let failedAlbumsShown = 20

    /// What a user's counts were counted at: they stand until a pass starts or ends, or the
    /// catalogue, a collection or a cover changes.
    private struct CountsKey: Equatable {
        var running: Bool
        var lastRunFinishedAt: String?
        var generation: Int64
    }

    private struct Counted {
        var key: CountsKey
        var countedAt: Date
        var albums: SyncStateCounts
        var covers: ArtworkCounts
    }

    /// Counts are kept this long while a pass runs, and this long otherwise (which bounds how late
    /// `due` and `stale` follow the clock).
    static let countsLifetimeWhileRunning: TimeInterval = 5
    static let countsLifetime: TimeInterval = 30
    static let recountAfterEditsAtMostEvery: TimeInterval = 1

    /// Counting walks the whole catalogue (0.97 s for 200,000 albums in a debug build on the
    /// development machine), and a client showing a pass asks every second or two: each user's counts are kept
    /// for the state they were counted at, for a few seconds.
    private func counts(userId: Int64?, running: Bool, lastRunFinishedAt: String?) throws -> (albums: SyncStateCounts, covers: ArtworkCounts) {
        let generation: Int64
        do {
            generation = try runner.database.read { db in try ListingGeneration.current(db, .listingsAndArtwork) }
        } catch {
            throw SyncError.database((error as? DatabaseError).flatMap(\.message) ?? "\(error)")
        }
        let key = CountsKey(running: running, lastRunFinishedAt: lastRunFinishedAt, generation: generation)
        let now = clock.date
        let lifetime = running ? Self.countsLifetimeWhileRunning : Self.countsLifetime
        if let kept = countsByUser.withLock({ $0[userId] }) {
            let age = abs(now.timeIntervalSince(kept.countedAt))
            // An edit (a new generation) alone is counted at most once a second: a client editing
            // and asking in turn made every status a recount of the whole catalogue (0.2 s of an
            // event loop at 100,000 albums). A pass starting or ending is counted at once.
            let sameSync = kept.key.running == key.running && kept.key.lastRunFinishedAt == key.lastRunFinishedAt
            if age < lifetime, kept.key == key || (sameSync && age < Self.recountAfterEditsAtMostEvery) {
                return (kept.albums, kept.covers)
            }
        }
        let counted = Counted(key: key, countedAt: now, albums: try runner.counts(userId: userId), covers: try runner.coverCounts(userId: userId))
        countsByUser.withLock { $0[userId] = counted }
        return (counted.albums, counted.covers)
    }

    private func runOnePass(_ options: SyncPassOptions) async {
        let started = Timestamp.string(from: clock.date)
        // A user's own pass (`POST /v1/sync`) covers their albums: theirs to follow. Not knowing
        // whose it is, it does not run: its progress and report would show to everyone.
        let owner: Int64?
        do {
            owner = try options.userName.flatMap { try runner.database.user(named: $0)?.id }
        } catch {
            logger.error("sync pass not started: \(error)")
            var failed = SyncPassReport(startedAt: started, finishedAt: Timestamp.string(from: clock.date))
            failed.error = "not started: \(error)"
            state.withLock { state in
                state.passesEnded += 1
                state.lastRuns[nil] = (state.passesEnded, failed)
            }
            return
        }
        state.withLock { $0.runningFor = owner }
        let report: SyncPassReport
        do {
            report = try await runner.runPass(
                options,
                shouldStop: { self.isStopping },
                progress: { progress in self.state.withLock { $0.progress = progress } })
        } catch is CancellationError {
            // The daemon is stopping (SIGTERM while the pass waited on Discogs): a clean end, not a failure.
            logger.info("sync pass stopped: crated is stopping")
            var stopped = SyncPassReport(startedAt: started, finishedAt: Timestamp.string(from: clock.date))
            stopped.stoppedEarly = true
            report = stopped
        } catch {
            // A database or user error: the pass cannot go on; the next one tries again.
            logger.error("sync pass failed: \(error)")
            var failed = SyncPassReport(startedAt: started, finishedAt: Timestamp.string(from: clock.date))
            failed.error = String(describing: error)
            report = failed
        }
        state.withLock { state in
            state.passesEnded += 1
            state.lastRuns[owner] = (state.passesEnded, report)
        }
    }
}

extension WakeSignal {
    /// Returns on a signal, after `duration`, or when the task is cancelled, whichever comes first.
    func wait(orSleepFor duration: Duration, on clock: any SyncClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(for: duration) }
            group.addTask { await self.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
