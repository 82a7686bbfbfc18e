import ArgumentParser
import CratedArtwork
import CratedCore
import CratedSync
import Dispatch
import Foundation
import Logging
import Synchronization

struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Run one pass of metadata sync from the Discogs API, then exit.",
        discussion: """
            Fetches every album that was never synced, is stale, or failed and is due again, and \
            writes each one in its own transaction. First brings in step the Discogs collections \
            linked to users (crated user link), as serve's passes do; with --collection, that Discogs \
            user's folders and copies instead. Ctrl-C finishes the albums in flight and stops (an \
            album waiting for the host, a rate limit or a retry, is left for the next pass); a \
            second Ctrl-C stops at once (every album stays as it was or fully synced).
            """
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "Only the albums in this user's collection; with --collection, the owner of the copies.")
    var user: String?

    @Option(help: ArgumentHelp("A Discogs user name whose collection (folders and copies) to bring in step first.", valueName: "discogs-user"))
    var collection: String?

    @Option(help: "Fetch at most this many albums.")
    var limit: Int?

    @Flag(inversion: .prefixedNo, help: "Bring the Discogs collections linked to users in step first (with --user, only that user's).")
    var linked = true

    @Flag(help: "Print the summary as JSON.")
    var json = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if let collection, AppDatabase.validDiscogsUser(collection) == nil {
            throw ValidationError("--collection needs a Discogs user name of 1 to 100 characters")
        }
    }

    func run() async throws {
        let configuration = try await global.loadConfiguration()
        // Two processes syncing would each spend Discogs' whole budget for this address.
        try global.refuseWhileServing(configuration, " and syncs it in the background; start a pass now with POST /v1/sync")
        let database = try global.openDatabase(configuration)
        defer { try? database.close() }
        var logger = Logger(label: "crated.sync")
        // Failures are listed in the summary; the log adds detail only when asked for.
        let configured = Logger.Level(rawValue: configuration.logLevel.lowercased()) ?? .info
        logger.logLevel = configured <= .debug ? configured : .error

        let stop = StopOnInterrupt()
        let clock = StopAwareClock(stop: stop)
        if !DiscogsClientSettings(configuration: configuration).hasToken {
            FileHandle.standardError.write(Data("crated: \(DiscogsClientSettings.noTokenWarning)\n".utf8))
        }
        let client: DiscogsClient
        do {
            client = try DiscogsClient(settings: DiscogsClientSettings(configuration: configuration), transport: CurlHTTPTransport(),
                                       clock: clock, logger: logger)
        } catch let error as DiscogsError {
            throw CommandFailure(error.description)
        }
        // Covers after the releases, unless turned off; an artwork directory that cannot be written
        // leaves the releases to sync without them.
        var covers: ArtworkService?
        if configuration.artworkFetchDuringSync {
            do {
                covers = try ArtworkService(database: database, configuration: configuration, clock: clock, logger: logger)
            } catch {
                FileHandle.standardError.write(Data("crated: covers are not fetched: \(error)\n".utf8))
            }
        }
        let runner = SyncRunner(
            database: database, client: client, settings: ReleaseSyncSettings(configuration: configuration),
            defaultUserName: configuration.defaultUserName, covers: covers, logger: logger)

        // With --collection, a --user that does not exist is made for the copies, as import does:
        // said after the summary, so that a mistyped name is seen.
        var createsUser = false
        if collection != nil, let user { createsUser = try database.user(named: user) == nil }
        let signalSources = stop.listen()
        defer { signalSources.forEach { $0.cancel() } }
        let bar = json ? nil : ProgressBar.forStandardError()
        let pass: SyncPassReport
        do {
            pass = try await runner.runPass(
                SyncPassOptions(userName: user, collectionUser: collection.flatMap(AppDatabase.validDiscogsUser), limit: limit,
                                linkedCollections: linked, retryFailed: true),
                shouldStop: { stop.requested },
                progress: bar.map { bar in
                    { @Sendable progress in
                        bar.update(done: progress.albumsDone, total: progress.albumsTotal,
                                   label: "\(progress.albumsDone)/\(progress.albumsTotal) albums, \(progress.failed) failed")
                    }
                },
                collectionStarted: json ? nil : Self.sayCollectionStarted)
            bar?.finish()
        } catch {
            bar?.finish()
            throw CommandFailure(String(describing: error))
        }

        // `serve` keeps the directory within its budget as it goes; a command does it once, at the end.
        if let covers {
            do {
                if let pruned = try await covers.pruneIfOverBudget() {
                    FileHandle.standardError.write(Data(("crated: the covers went over artwork.maxBytes: \(pruned.variantsRemoved) variants and "
                        + "\(pruned.originalsRemoved) originals removed (\(pruned.bytesFreed) bytes), least recently used first\n").utf8))
                }
            } catch {
                FileHandle.standardError.write(Data("crated: the covers could not be kept within artwork.maxBytes: \(error)\n".utf8))
            }
        }
        // The operator's view: every collection's failure, if any, in `error`.
        let report = pass.seen(byUser: nil)
        let linkedCollections = collection != nil ? [] : try LinkedCollection.all(in: pass, database: database)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(SyncCommandOutput(report: report, linkedCollections: linkedCollections)), as: UTF8.self))
        } else {
            print(Self.describe(report, linkedCollections: linkedCollections, source: configuration.discogsBaseURL))
        }
        if linked, collection == nil, let user, linkedCollections.isEmpty, let userId = try database.user(named: user)?.id,
           try database.linkedDiscogsUser(userId: userId) == nil {
            FileHandle.standardError.write(Data("crated: no Discogs collection is linked to '\(user)' (crated user link \(user) DISCOGS_USER links one)\n".utf8))
        }
        if createsUser, let user {
            FileHandle.standardError.write(Data("crated: user '\(user)' did not exist and was created for the copies (crated user list shows every user)\n".utf8))
        }
        if let error = report.error {
            throw CommandFailure(error)
        }
        if report.failed > 0 {
            throw CommandFailure("\(report.failed) album\(report.failed == 1 ? "" : "s") failed; each is tried again at its next attempt time")
        }
    }

    /// Reading a collection takes a request per 100 copies at Discogs' rate: said as it starts.
    @Sendable static func sayCollectionStarted(_ discogsUser: String) {
        FileHandle.standardError.write(Data("crated: reading the Discogs collection of '\(discogsUser)'\n".utf8))
    }

    static func describe(_ report: SyncPassReport, linkedCollections: [LinkedCollection] = [], source: String) -> String {
        var lines = ["Synced from \(source)"]
        if let c = report.collection { lines += describe(c, indent: "  ") }
        for linked in linkedCollections {
            lines.append("  collection of Discogs user '\(linked.discogsUser)' for '\(linked.user)'")
            if let summary = linked.summary {
                lines += describe(summary, indent: "    ")
            } else if let error = linked.error {
                lines.append("    not brought in step: \(error)")
            }
        }
        lines += [
            "  albums due        \(report.albumsDue)",
            "  synced            \(report.synced)",
            "  unchanged         \(report.notModified)",
            "  not on Discogs    \(report.notFound)",
            "  failed            \(report.failed)",
        ]
        if report.skipped > 0 { lines.append("  left for later    \(report.skipped)\(report.stoppedEarly ? " (stopped on request)" : "")") }
        if let covers = report.covers {
            lines.append("  covers            \(covers.fetched) fetched, \(covers.unchanged) unchanged, \(covers.failed) failed"
                         + (covers.skipped > 0 ? ", \(covers.skipped) left for later" : ""))
            lines += covers.failures.map { "    cover \($0.url): \($0.error)" }
            if covers.failed > covers.failures.count { lines.append("    ... and \(covers.failed - covers.failures.count) more covers") }
            if let error = covers.error { lines.append("    covers stopped: \(error)") }
        }
        if !report.failures.isEmpty {
            lines.append("  failures:")
            lines += report.failures.map { "    release \($0.releaseId) (album \($0.albumId)): \($0.error)" }
            if report.failed > report.failures.count { lines.append("    ... and \(report.failed - report.failures.count) more") }
        }
        return lines.joined(separator: "\n")
    }

    private static func describe(_ c: CollectionSyncSummary, indent: String) -> [String] {
        // Values start in the 21st column, whatever the indent, as the pass's own lines do.
        let column = { (label: String) in indent + label.padding(toLength: 20 - indent.count, withPad: " ", startingAt: 0) }
        return [
            column("collection") + "\(c.instances) copies on Discogs: \(c.copiesAdded) added, \(c.copiesMatched) matched to imported copies, \(c.copiesUpdated) updated, \(c.copiesRemoved) removed"
                + (c.removalsDeferred > 0 ? " (\(c.removalsDeferred) unlisted kept: the collection changed on Discogs while it was read)" : "")
                + (c.editsKept > 0 ? "; \(c.editsKept) \(c.editsKept == 1 ? "field" : "fields") changed in crated kept over Discogs' new value" : ""),
            column("crates") + "\(c.cratesAdded) added, \(c.cratesLinked) linked to folders; \(c.albumsAdded) albums new to the catalogue",
        ]
    }
}

/// A collection linked to a user (`crated user link`) as the pass brought it in step, or failed to.
struct LinkedCollection: Encodable {
    let user: String
    let discogsUser: String
    let summary: CollectionSyncSummary?
    let error: String?

    static func all(in pass: SyncPassReport, database: AppDatabase) throws -> [LinkedCollection] {
        guard !pass.collectionsByUser.isEmpty else { return [] }
        let names = Dictionary(uniqueKeysWithValues: try database.users().compactMap { user in user.id.map { ($0, user.name) } })
        let links = try database.discogsLinks()
        return pass.collectionsByUser.sorted { $0.key < $1.key }.map { userId, outcome in
            LinkedCollection(user: names[userId] ?? "#\(userId)", discogsUser: links[userId] ?? "", summary: outcome.summary, error: outcome.error)
        }
    }
}

/// `crated sync --json`: the pass as `GET /v1/sync` shows its last one, and the linked collections.
private struct SyncCommandOutput: Encodable {
    let report: SyncPassReport
    let linkedCollections: [LinkedCollection]

    private enum CodingKeys: String, CodingKey { case linkedCollections }

    func encode(to encoder: any Encoder) throws {
        // One object: JSONEncoder gives the report's keyed container to this second request too
        // (the report has no key of this name).
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(linkedCollections, forKey: .linkedCollections)
    }
}

/// The real clock, except that a wait ends as cancelled once a stop is asked for, as the daemon's
/// waits end at its graceful shutdown: the first Ctrl-C must not wait out a host's `Retry-After` of
/// minutes. The album waiting stays as it was, due at the next pass.
private struct StopAwareClock: SyncClock {
    let stop: StopOnInterrupt
    private let system = SystemSyncClock()

    var uptime: Duration { system.uptime }
    var date: Date { system.date }

    func sleep(for duration: Duration) async throws {
        let end = ContinuousClock.now + duration
        while true {
            if stop.requested { throw CancellationError() }
            let left = end - ContinuousClock.now
            guard left > .zero else { return }
            try await Task.sleep(for: min(left, .milliseconds(100)))
        }
    }
}

/// SIGINT and SIGTERM ask the pass to stop after the albums in flight; a second one exits at once.
private final class StopOnInterrupt: Sendable {
    private let stopRequested = Atomic<Bool>(false)

    var requested: Bool { stopRequested.load(ordering: .relaxed) }

    /// Starts listening; the returned sources must be kept alive for as long as that should last.
    func listen() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                if self.stopRequested.exchange(true, ordering: .relaxed) { exit(128 + signalNumber) }
                FileHandle.standardError.write(Data("\nstopping after the albums in flight (again to stop now)\n".utf8))
            }
            source.resume()
            return source
        }
    }
}
