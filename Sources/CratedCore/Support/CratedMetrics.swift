import CoreMetrics
import Synchronization

/// The daemon's instruments, made once from a swift-metrics factory and handed to what records them
/// (`AppDatabase.metrics` carries them to every repository, service and the importer).
///
/// Made from an explicit factory rather than the `MetricsSystem` global: the global can be
/// bootstrapped once per process, and the tests each need a registry of their own to read back.
/// Every instrument is created here, with its labels, so that recording is an atomic add (a counter)
/// or a short lock (a histogram), with nothing looked up or allocated per request.
public final class CratedMetrics: Sendable {
    /// Instruments that record nothing, for commands and tests that do not read them, and `serve`
    /// with `metrics.enabled` off.
    public static let disabled = CratedMetrics(factory: NOOPMetricsHandler.instance, isEnabled: false)

    /// Whether anything reads these: when false, callers skip even reading the clock.
    public let isEnabled: Bool
    /// Where instruments made later come from (the HTTP middleware's, one per route and status).
    public let factory: any MetricsFactory
    public let database: DatabaseInstruments
    public let sync: SyncInstruments
    public let artwork: ArtworkInstruments
    /// Player event streams (`GET /v1/player/events`) open now.
    public let eventStreamsOpen: Meter
    /// Rows of Discogs exports read by imports that committed. `crated import` is a process of its
    /// own: the total is read from the database when `/metrics` is scraped (`countImportedRows`).
    public let importRows: Counter
    /// The total `importRows` has counted up to.
    private let importRowsCounted = Mutex<Int64>(0)

    public init(factory: any MetricsFactory, isEnabled: Bool = true) {
        self.isEnabled = isEnabled
        self.factory = factory
        database = DatabaseInstruments(factory: factory)
        sync = SyncInstruments(factory: factory)
        artwork = ArtworkInstruments(factory: factory)
        eventStreamsOpen = Meter(label: "crated_event_streams_open", factory: factory)
        importRows = Counter(label: "crated_import_rows_total", factory: factory)
    }

    /// Brings `importRows` up to `total`, the database's sum of imported rows: a counter only adds,
    /// so it adds what it has not counted yet. Two scrapes that read totals in either order count
    /// each row once.
    public func countImportedRows(total: Int64) {
        importRowsCounted.withLock { counted in
            guard total > counted else { return }
            importRows.increment(by: total - counted)
            counted = total
        }
    }
}

public struct DatabaseInstruments: Sendable {
    /// A read transaction or single read statement, connection taken to connection returned.
    public let readDuration: CoreMetrics.Timer
    /// A write, from asked for to committed: its wait for the write connection and the lock included.
    public let writeDuration: CoreMetrics.Timer
    /// Time writes slept in the busy handler waiting for SQLite's write lock (another process's).
    public let lockWaitSeconds: FloatingPointCounter
    /// Writes that had to wait for the lock at all.
    public let lockWaits: Counter
    /// Writes that gave up at their deadline: the API answered them with 503.
    public let writesBusy: Counter

    init(factory: any MetricsFactory) {
        readDuration = CoreMetrics.Timer(label: "crated_db_read_duration_seconds", factory: factory)
        writeDuration = CoreMetrics.Timer(label: "crated_db_write_duration_seconds", factory: factory)
        lockWaitSeconds = FloatingPointCounter(label: "crated_db_write_lock_wait_seconds_total", factory: factory)
        lockWaits = Counter(label: "crated_db_write_lock_waits_total", factory: factory)
        writesBusy = Counter(label: "crated_db_writes_busy_total", factory: factory)
    }
}

public struct SyncInstruments: Sendable {
    /// Albums fetched from Discogs by what the answer was: `synced`, `not_modified`, `not_found`.
    public let albumsSynced: Counter
    public let albumsNotModified: Counter
    public let albumsNotFound: Counter
    /// Albums whose fetch failed (the host, the transport, or the answer).
    public let albumsFailed: Counter
    /// 429 answers from Discogs.
    public let rateLimited: Counter
    /// Time requests to Discogs waited before a retry (a `Retry-After`, or back-off after a failure).
    public let retryWaitSeconds: FloatingPointCounter
    /// Albums by sync state, and the rate limiter's headroom: set when `/metrics` is read.
    public let albumsDue: Meter
    public let albumsNeverSynced: Meter
    public let albumsFailedState: Meter
    public let rateLimitRemaining: Meter
    public let rateLimitHostRemaining: FirstReportedMeter

    init(factory: any MetricsFactory) {
        func albums(_ result: String) -> Counter {
            Counter(label: "crated_sync_albums_fetched_total", dimensions: [("result", result)], factory: factory)
        }
        albumsSynced = albums("synced")
        albumsNotModified = albums("not_modified")
        albumsNotFound = albums("not_found")
        albumsFailed = albums("failed")
        rateLimited = Counter(label: "crated_sync_rate_limited_total", factory: factory)
        retryWaitSeconds = FloatingPointCounter(label: "crated_sync_retry_wait_seconds_total", factory: factory)
        func albumsIn(_ state: String) -> Meter {
            Meter(label: "crated_sync_albums", dimensions: [("state", state)], factory: factory)
        }
        albumsDue = albumsIn("due")
        albumsNeverSynced = albumsIn("never_synced")
        albumsFailedState = albumsIn("failed")
        rateLimitRemaining = Meter(label: "crated_sync_rate_limit_remaining", factory: factory)
        rateLimitHostRemaining = FirstReportedMeter(label: "crated_sync_rate_limit_host_remaining", factory: factory)
    }
}

/// A gauge that is exported from its first value on: exported as 0 before the host has reported
/// anything, it would read as a spent limit.
public final class FirstReportedMeter: Sendable {
    private let label: String
    private let factory: any MetricsFactory
    private let meter = Mutex<Meter?>(nil)

    init(label: String, factory: any MetricsFactory) {
        self.label = label
        self.factory = factory
    }

    public func set(_ value: Double) {
        meter.withLock { meter in
            if meter == nil { meter = Meter(label: label, factory: factory) }
            meter?.set(value)
        }
    }
}

public struct ArtworkInstruments: Sendable {
    /// Variants answered from memory (`HotVariants`), and those that were not.
    public let memoryHits: Counter
    public let memoryMisses: Counter
    /// Bytes of variants served (not counting 304s).
    public let bytesServed: Counter
    public let variantsMade: Counter
    public let originalsFetched: Counter
    /// Fetches of originals that failed (the host, the image, or a wait it asked for).
    public let fetchFailures: Counter

    init(factory: any MetricsFactory) {
        memoryHits = Counter(label: "crated_artwork_memory_cache_total", dimensions: [("result", "hit")], factory: factory)
        memoryMisses = Counter(label: "crated_artwork_memory_cache_total", dimensions: [("result", "miss")], factory: factory)
        bytesServed = Counter(label: "crated_artwork_served_bytes_total", factory: factory)
        variantsMade = Counter(label: "crated_artwork_variants_made_total", factory: factory)
        originalsFetched = Counter(label: "crated_artwork_originals_fetched_total", factory: factory)
        fetchFailures = Counter(label: "crated_artwork_fetch_failures_total", factory: factory)
    }
}

extension FloatingPointCounter {
    /// Adds `duration` in seconds, the unit of every `_seconds_total` counter.
    public func increment(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        increment(by: Double(seconds) + Double(attoseconds) / 1e18)
    }
}

extension CoreMetrics.Timer {
    /// Records `duration`, which swift-metrics takes as nanoseconds.
    @inlinable
    public func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
