import CratedCore
import CratedSync
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// A variant ready to send: a whole file on disk.
public struct ServedArtwork: Sendable, Equatable {
    public var path: String
    public var bytes: Int
    public var contentType: String
    /// Strong: one original, one width, one format.
    public var etag: String
    /// The whole file, when it is small and kept in memory (`HotVariants`); else stream `path`.
    public var contents: ByteBuffer?
}

/// Why a variant cannot be served.
public enum ArtworkServeError: Error, Equatable, CustomStringConvertible {
    /// No such key or width: the URL is not one crated gave.
    case notFound(String)
    /// The cover cannot be fetched now; try again after `retryAfter` seconds.
    case unavailable(reason: String, retryAfter: Int)
    /// The artwork directory failed (full, not writable).
    case storage(String)

    public var description: String {
        switch self {
        case .notFound(let reason): reason
        case .unavailable(let reason, _): "the cover could not be fetched: \(reason)"
        case .storage(let reason): "the cover could not be stored: \(reason)"
        }
    }
}

/// What a prune removed.
public struct ArtworkPruneReport: Sendable, Equatable {
    public var variantsRemoved = 0
    public var originalsRemoved = 0
    public var bytesFreed = 0
    /// Files on disk that the database does not know (left by a process killed between writing a
    /// file and recording it).
    public var strayFilesRemoved = 0
}

/// crated's covers: fetched once (during sync or on first request), kept on disk within a budget,
/// served as variants made on first request at the widths `ArtworkSize` lists.
///
/// As a `Service` it records which files were served (for least-recently-used eviction) once a
/// minute rather than on every request, and keeps the directory within `maxBytes`.
public final class ArtworkService: Service, Sendable {
    public let database: AppDatabase
    public let files: ArtworkFiles
    public let fetcher: ArtworkFetcher
    public let maxBytes: Int
    /// How many of the sizes most made (`AppDatabase.mostMadeVariantSizes`) sync makes of each cover it
    /// fetches, so that a grid shown for the first time after a sync finds its covers made.
    public let sizesAhead: Int
    private let logger: Logger
    private let originalsInFlight = InFlight<Void>()
    private let variantsInFlight = InFlight<ArtworkVariantRecord>()
    private let used = Mutex(UsedFiles())
    private let hot = HotVariants()
    /// Bytes on disk as the database counts them, kept current as files come and go.
    private let bytesOnDisk: Atomic<Int>
    private let overBudget = Atomic(false)

    private struct UsedFiles {
        var originals: Set<String> = []
        var variants: Set<ArtworkVariantKey> = []
    }

    /// Prepares the directory: throws `ArtworkStorageError` when it cannot be written.
    public init(database: AppDatabase, files: ArtworkFiles, fetcher: ArtworkFetcher, maxBytes: Int, sizesAhead: Int = 0,
                logger: Logger = Logger(label: "crated.artwork")) throws {
        try files.prepare()
        self.database = database
        self.files = files
        self.fetcher = fetcher
        self.maxBytes = maxBytes
        self.sizesAhead = sizesAhead
        self.logger = logger
        bytesOnDisk = Atomic(try database.artworkDiskUsage().totalBytes)
    }

    // MARK: Serving

    /// The file of `key`'s variant at `width` in the format `accept` prefers (WebP when accepted, else
    /// JPEG), made and the original fetched first when needed.
    public func variant(key: String, width: Int, accept: String?) async throws(ArtworkServeError) -> ServedArtwork {
        guard Self.isKey(key) else { throw .notFound("no artwork at this address") }
        guard ArtworkSize.isKnown(width) else {
            throw .notFound("no artwork of width \(width); widths are \(ArtworkSize.widths.map(String.init).joined(separator: ", "))")
        }
        let format: VariantFormat = Self.acceptsWebP(accept) ? .webp : .jpeg
        let name = HotVariants.name(key: key, width: width, format: format.rawValue)
        if let entry = hot.entry(name) {
            noteUse(entry.variant)
            instruments.memoryHits.increment()
            instruments.bytesServed.increment(by: entry.served.bytes)
            return entry.served
        }
        instruments.memoryMisses.increment()
        do {
            // A prune may remove a file between the look and the read (the variant, then on the
            // next look the original): look again, and the variant is made, or the original
            // fetched, afresh.
            var looks = 1
            while true {
                do {
                    return try await madeVariant(key: key, width: width, format: format, name: name)
                } catch ArtworkStorageError.missing(let path) where looks < 3 {
                    logger.debug("artwork \(key)/\(width): \(path) was evicted while served; made again")
                    looks += 1
                }
            }
        } catch let error as ArtworkServeError {
            throw error
        } catch let error as ArtworkStorageError {
            // Its path and reason are the operator's to read, not a client's (no token needed here).
            logger.error("artwork \(key)/\(width): \(error)")
            throw .storage(error.isDiskFull ? "the server's disk is full" : "the server cannot write its artwork directory")
        } catch is CancellationError {
            throw .unavailable(reason: "the request ended", retryAfter: 1)
        } catch {
            // The database: busy or failing; the next request may find it free.
            logger.error("artwork \(key)/\(width): \(error)")
            throw .unavailable(reason: "the database is busy", retryAfter: 2)
        }
    }

    /// `variant`'s work past the memory cache: the original fetched when it is not on disk, the
    /// variant made when it is not, the file read into memory when small.
    private func madeVariant(key: String, width: Int, format: VariantFormat, name: String) async throws -> ServedArtwork {
        guard var record = try database.artwork(key: key) else { throw ArtworkServeError.notFound("no artwork at this address") }
        if record.sha256 == nil || !files.exists(files.originalPath(sha256: record.sha256!)) {
            record = try await fetchOriginal(record)
        }
        let sha256 = record.sha256!
        let width = ArtworkSize.shared(width, originalWidth: record.width)
        let variantKey = ArtworkVariantKey(sha256: sha256, width: width, format: format.rawValue)
        let path = files.variantPath(variantKey)
        let variant: ArtworkVariantRecord
        if let known = try database.artworkVariant(sha256: sha256, width: width, format: format.rawValue), files.exists(path) {
            variant = known
        } else {
            do {
                variant = try await variantsInFlight.run("\(sha256)/\(width)/\(format.rawValue)") {
                    try await self.makeVariant(variantKey, format: format)
                }
            } catch let error as ImageError {
                try await forgetUnresizable(record, error)
            }
        }
        noteUse(variantKey)
        var served = ServedArtwork(path: path, bytes: variant.bytes, contentType: format.mimeType, etag: Self.etag(variantKey))
        if variant.bytes <= hot.maxFileBytes {
            let files = self.files
            let contents = try await NIOThreadPool.singleton.runIfActive { ByteBuffer(bytes: try files.read(path)) }
            served.bytes = contents.readableBytes
            served.contents = contents
            hot.keep(HotVariants.Entry(served: served, variant: variantKey, contents: contents), as: name)
        }
        instruments.bytesServed.increment(by: served.bytes)
        return served
    }

    /// Where serving, fetching and resizing are counted: the database's metrics.
    private var instruments: ArtworkInstruments { database.metrics.artwork }

    private func noteUse(_ variant: ArtworkVariantKey) {
        used.withLock {
            $0.originals.insert(variant.sha256)
            $0.variants.insert(variant)
        }
    }

    /// The strong ETag of a variant: it names the original's content, the width and the format.
    public static func etag(_ key: ArtworkVariantKey) -> String {
        "\"\(key.sha256.prefix(32))-\(key.width)-\(key.format)\""
    }

    /// The ETag the variant would have, when its original is known, without touching any file: a
    /// client's `If-None-Match` is answered from this alone.
    public func currentETag(key: String, width: Int, accept: String?) -> String? {
        let format: VariantFormat = Self.acceptsWebP(accept) ? .webp : .jpeg
        if let entry = hot.entry(HotVariants.name(key: key, width: width, format: format.rawValue)) { return entry.served.etag }
        guard Self.isKey(key), ArtworkSize.isKnown(width), let record = try? database.artwork(key: key), let sha256 = record.sha256 else { return nil }
        return Self.etag(ArtworkVariantKey(sha256: sha256, width: ArtworkSize.shared(width, originalWidth: record.width), format: format.rawValue))
    }

    static func isKey(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Whether an `Accept` header takes WebP: named with a non-zero quality.
    static func acceptsWebP(_ accept: String?) -> Bool {
        guard let accept else { return false }
        for range in accept.lowercased().split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.first == "image/webp" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
        return false
    }

    private func fetchOriginal(_ record: ArtworkRecord) async throws -> ArtworkRecord {
        if let retryAt = record.retryAt.flatMap(Timestamp.date(from:)), retryAt > fetcher.clock.date {
            throw ArtworkServeError.unavailable(reason: record.lastError ?? "an earlier attempt failed",
                                                retryAfter: max(1, Int(retryAt.timeIntervalSince(fetcher.clock.date).rounded(.up))))
        }
        try await originalsInFlight.run(record.key) {
            // Another request may have fetched it while this one waited for the database.
            if let current = try self.database.artwork(key: record.key), let sha256 = current.sha256,
               self.files.exists(self.files.originalPath(sha256: sha256)) { return }
            if let stale = record.sha256 { try await self.database.forgetArtworkOriginal(sha256: stale) }
            var fresh = try self.database.artwork(key: record.key) ?? record
            fresh.sha256 = nil
            // A request does not queue behind a pass's covers for the host's whole rate window.
            switch try await self.fetcher.fetch(fresh, queueingAtMost: ArtworkFetcher.longestQueuedPause) {
            case .fetched(let original):
                self.instruments.originalsFetched.increment()
                self.bytesOnDisk.add(original.bytes, ordering: .relaxed)
                // Fetched again after its file went missing: it may be another image now.
                if record.sha256 != nil && record.sha256 != original.sha256 { self.hot.clear() }
                self.checkBudgetSoon()
            case .unchanged:
                break
            case .failed(let reason, let retryAt, _):
                self.instruments.fetchFailures.increment()
                throw ArtworkServeError.unavailable(reason: reason, retryAfter: max(1, Int(retryAt.timeIntervalSince(fetcher.clock.date).rounded(.up))))
            }
        }
        guard let fetched = try database.artwork(key: record.key), fetched.sha256 != nil else {
            throw ArtworkServeError.unavailable(reason: "the original is not on disk", retryAfter: 1)
        }
        return fetched
    }

    /// An original on disk that cannot be resized (damaged on disk, or an image libvips reads only in
    /// part) is forgotten and fetched again after the failure wait, rather than answered as a busy
    /// database every time it is asked for.
    private func forgetUnresizable(_ record: ArtworkRecord, _ error: ImageError) async throws -> Never {
        let reason = "the stored image could not be resized: \(error)"
        logger.error("artwork \(record.key): \(reason); fetched again at its next attempt")
        let wait = fetcher.retryDelay(afterFailures: record.failures + 1)
        if let sha256 = record.sha256 {
            try await database.forgetArtworkOriginal(sha256: sha256)
            unlink(files.originalPath(sha256: sha256))
        }
        try await database.recordArtworkFailure(id: record.id!, error: reason, retryAt: fetcher.clock.date.addingTimeInterval(wait))
        throw ArtworkServeError.unavailable(reason: reason, retryAfter: Int(wait))
    }

    /// Resizes on the thread pool, not on Swift's cooperative threads: a variant takes milliseconds
    /// of CPU that other requests should not wait behind.
    private func makeVariant(_ key: ArtworkVariantKey, format: VariantFormat) async throws -> ArtworkVariantRecord {
        let files = self.files
        let limits = fetcher.settings.limits
        let image = try await NIOThreadPool.singleton.runIfActive {
            let original = try files.read(files.originalPath(sha256: key.sha256))
            let image = try ImageProcessor.variant(of: original, width: key.width, format: format, limits: limits)
            try files.store(image.bytes, at: files.variantPath(key))
            return image
        }
        let record = ArtworkVariantRecord(sha256: key.sha256, width: key.width, format: key.format, height: image.height,
                                          bytes: image.bytes.count, usedAt: Timestamp.now())
        try await database.recordArtworkVariant(record)
        instruments.variantsMade.increment()
        bytesOnDisk.add(record.bytes, ordering: .relaxed)
        checkBudgetSoon()
        return record
    }

    // MARK: Sync

    /// Fetches the covers sync should (`AppDatabase.coversToFetch`), one host request at a time per
    /// host's limiter, until done or `shouldStop`.
    public func fetchCovers(userId: Int64?, staleAfter: TimeInterval, shouldStop: @escaping @Sendable () -> Bool) async -> CoverFetchSummary {
        var summary = CoverFetchSummary()
        let now = fetcher.clock.date
        let candidates: [ArtworkRecord]
        let sizesToMake: [(width: Int, format: String)]
        do {
            candidates = try database.coversToFetch(userId: userId, now: now, staleBefore: now.addingTimeInterval(-staleAfter), limit: 100_000)
            sizesToMake = try database.mostMadeVariantSizes(limit: sizesAhead)
        } catch {
            logger.error("covers to fetch: \(error)")
            summary.error = "\(error)"
            return summary
        }
        // Hosts that asked every client to wait: their other covers are left for a later pass.
        var busyHosts: Set<String> = []
        var storageFailed = false
        for record in candidates {
            let host = fetcher.settings.resolve(record.sourceURL)?.host ?? ""
            if shouldStop() || Task.isCancelled || busyHosts.contains(host) || storageFailed {
                summary.skipped += 1
                continue
            }
            do {
                let outcome = try await fetchSharingWithRequests(record)
                switch outcome {
                case .fetched(let original):
                    summary.fetched += 1
                    instruments.originalsFetched.increment()
                    // A cover checked again may have changed: variants kept in memory are of the old one.
                    if record.sha256 != nil && record.sha256 != original.sha256 { hot.clear() }
                    bytesOnDisk.add(original.bytes, ordering: .relaxed)
                    checkBudgetSoon()
                    await makeAhead(sha256: original.sha256, sizes: sizesToMake)
                case .unchanged:
                    summary.unchanged += 1
                case .failed(let reason, _, let hostBusy):
                    if hostBusy { busyHosts.insert(host) }
                    summary.failed += 1
                    instruments.fetchFailures.increment()
                    if summary.failures.count < 20 { summary.failures.append(CoverFetchFailure(url: record.sourceURL, error: reason)) }
                }
            } catch is CancellationError {
                summary.skipped += 1
            } catch let error as ArtworkStorageError {
                // Every other cover would meet the same directory: they wait for the next pass.
                logger.error("covers: \(error); the other covers are left for a later pass")
                summary.error = error.description
                summary.skipped += 1
                storageFailed = true
            } catch {
                summary.failed += 1
                instruments.fetchFailures.increment()
                logger.error("cover \(record.sourceURL): \(error)")
            }
        }
        return summary
    }

    /// Makes the variants of a fetched original at `sizes`, those not made yet. A failure is logged and
    /// leaves the variant to be made on request.
    private func makeAhead(sha256: String, sizes: [(width: Int, format: String)]) async {
        for size in sizes {
            guard let format = VariantFormat(rawValue: size.format) else { continue }
            let key = ArtworkVariantKey(sha256: sha256, width: size.width, format: size.format)
            do {
                if try database.artworkVariant(sha256: sha256, width: size.width, format: size.format) != nil,
                   files.exists(files.variantPath(key)) { continue }
                _ = try await variantsInFlight.run("\(sha256)/\(size.width)/\(size.format)") {
                    try await self.makeVariant(key, format: format)
                }
            } catch {
                logger.warning("variant \(size.width) \(size.format) of \(sha256) made ahead: \(error)")
            }
        }
    }

    /// A fetch a request for the same cover waits for rather than starts again.
    private func fetchSharingWithRequests(_ record: ArtworkRecord) async throws -> ArtworkFetchOutcome {
        let outcome = Mutex<ArtworkFetchOutcome>(.unchanged)
        try await originalsInFlight.run(record.key) {
            let fetched = try await self.fetcher.fetch(record)
            outcome.withLock { $0 = fetched }
        }
        return outcome.withLock { $0 }
    }

    // MARK: Budget

    /// What `serve` does within seconds of going over `maxBytes`, for a process that does not run
    /// as a service (`crated sync`): prunes when over, else only records the use it noted.
    /// Returns what was pruned, or nil when the directory was within its budget.
    public func pruneIfOverBudget() async throws -> ArtworkPruneReport? {
        guard try database.artworkDiskUsage().totalBytes > maxBytes else {
            try await flushUse()
            return nil
        }
        return try await prune()
    }

    /// Evicts least recently used files until the directory is within `target` bytes (90% of the
    /// budget by default): variants first, originals only once no variant is left. With `sweep`,
    /// also removes files the database does not know.
    @discardableResult
    public func prune(target: Int? = nil, sweep: Bool = false) async throws -> ArtworkPruneReport {
        try await flushUse()
        hot.clear()
        var report = ArtworkPruneReport()
        let target = target ?? maxBytes / 10 * 9
        var total = try database.artworkDiskUsage().totalBytes
        while total > target {
            let variants = try database.leastRecentlyUsedVariants(limit: 256)
            guard !variants.isEmpty else { break }
            for variant in variants where total > target {
                let key = ArtworkVariantKey(sha256: variant.sha256, width: variant.width, format: variant.format)
                try await database.forgetArtworkVariant(key)
                files.remove(files.variantPath(key))
                total -= variant.bytes
                report.variantsRemoved += 1
                report.bytesFreed += variant.bytes
            }
        }
        while total > target {
            let originals = try database.leastRecentlyUsedOriginals(limit: 256)
            guard !originals.isEmpty else { break }
            for original in originals where total > target {
                try await database.forgetArtworkOriginal(sha256: original.sha256)
                files.remove(files.originalPath(sha256: original.sha256))
                total -= original.bytes
                report.originalsRemoved += 1
                report.bytesFreed += original.bytes
            }
        }
        if sweep {
            let known = try database.knownArtworkFiles()
            let onDisk = files.listed()
            for (sha256, path) in onDisk.originals where !known.originals.contains(sha256) {
                files.remove(path)
                report.strayFilesRemoved += 1
            }
            for (key, path) in onDisk.variants where !known.variants.contains(key) {
                files.remove(path)
                report.strayFilesRemoved += 1
            }
        }
        bytesOnDisk.store(try database.artworkDiskUsage().totalBytes, ordering: .relaxed)
        if report.variantsRemoved + report.originalsRemoved > 0 {
            logger.info("artwork: evicted \(report.variantsRemoved) variants and \(report.originalsRemoved) originals, \(report.bytesFreed) bytes")
        }
        return report
    }

    /// Writes down which files were served since the last time.
    public func flushUse() async throws {
        let files = used.withLock { used in
            defer { used = UsedFiles() }
            return used
        }
        try await database.recordArtworkUse(originals: files.originals, variants: files.variants, at: Date())
    }

    /// Upkeep runs within seconds when files pushed the directory over budget.
    private func checkBudgetSoon() {
        if bytesOnDisk.load(ordering: .relaxed) > maxBytes { overBudget.store(true, ordering: .relaxed) }
    }

    /// Until shutdown: evicts within seconds of the directory going over budget, and records use once
    /// a minute. On shutdown, records the last minute's use.
    public func run() async throws {
        var ticks = 0
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(5)) }
            ticks += 1
            do {
                if overBudget.exchange(false, ordering: .relaxed) {
                    try await prune()
                } else if ticks % 12 == 0 {
                    try await flushUse()
                }
            } catch {
                logger.warning("artwork upkeep: \(error)")
            }
        }
        try? await flushUse()
    }
}

/// One job per key at a time: callers asking for a key already under way wait for its result.
actor InFlight<Value: Sendable> {
    private var waiting: [String: [CheckedContinuation<Value, any Error>]] = [:]

    func run(_ key: String, _ body: @Sendable () async throws -> Value) async throws -> Value {
        if waiting[key] != nil {
            return try await withCheckedThrowingContinuation { waiting[key, default: []].append($0) }
        }
        waiting[key] = []
        let result: Result<Value, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        for continuation in waiting.removeValue(forKey: key) ?? [] { continuation.resume(with: result) }
        return try result.get()
    }
}

extension ArtworkService: CoverFetching {}

extension ArtworkService {
    /// The daemon's: libcurl to the image hosts, the directory and budget of `configuration`.
    /// Throws `ArtworkStorageError` when the directory cannot be written.
    public convenience init(database: AppDatabase, configuration: CratedConfiguration, directory: String? = nil,
                            clock: any SyncClock = SystemSyncClock(), logger: Logger = Logger(label: "crated.artwork")) throws {
        let limits = ImageLimits(maxSourceBytes: configuration.artworkMaxSourceBytes)
        let files = ArtworkFiles(root: directory ?? configuration.artworkDirectoryPath)
        let fetcher = ArtworkFetcher(
            database: database, files: files,
            transport: CurlHTTPTransport(options: CurlTransportOptions(maxResponseBytes: configuration.artworkMaxSourceBytes)),
            settings: ArtworkFetchSettings(userAgent: configuration.userAgent, requestsPerMinute: configuration.artworkRequestsPerMinute, limits: limits,
                                           relativeBase: configuration.discogsBaseURL),
            clock: clock, logger: logger)
        try self.init(database: database, files: files, fetcher: fetcher, maxBytes: configuration.artworkMaxBytes,
                      sizesAhead: configuration.artworkSizesAhead, logger: logger)
        let refused = try database.retryCoversRefusedForSize(maxSourceBytes: configuration.artworkMaxSourceBytes, now: clock.date)
        if refused > 0 {
            logger.notice("artwork: \(refused) covers refused for their size under a lower artwork.maxSourceBytes are due again")
        }
    }
}
