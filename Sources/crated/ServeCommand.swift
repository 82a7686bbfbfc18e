import ArgumentParser
import CoreMetrics
import Configuration
import CratedAPI
import CratedCore
import CratedSync
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP/JSON daemon the iPhone and iPad app talks to (stops cleanly on SIGTERM, SIGINT or SIGHUP)."
    )

    @OptionGroup var global: GlobalOptions

    @Option(help: "The address to listen on (default: server.host, 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on; 0 picks a free one (default: server.port).")
    var port: Int?

    func run() async throws {
        var overrides: CratedConfiguration.Overrides = [:]
        if let host { overrides["server.host"] = ConfigValue(.string(host), isSecret: false) }
        if let port { overrides["server.port"] = ConfigValue(.int(port), isSecret: false) }
        // Before the database is opened (see SQLiteProcess): the event loops read concurrently, and
        // with memory statistics on, every allocation SQLite makes takes one process-wide mutex.
        SQLiteProcess.disableMemoryStatistics()
        let configuration = try await global.loadConfiguration(overrides)
        if configuration.serverEventLoopExecutor {
            // Requests arrive on NIO's event loops; handled on Swift's own thread pool, each would
            // cross twice, and the wake-ups of sleeping threads that come with that cost about as
            // much as an album page's queries. With the event loops as the global executor a request
            // stays on the thread that read it. Like the pool they replace, they are one per core;
            // what would block a pool thread blocks a loop: SQLite reads, mostly short, and at
            // worst the rebuild of a grid's position snapshot after a change (tens of milliseconds).
            NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        }
        // The daemon logs every request: lines go out in batches, off the request threads.
        let logWriter = BackgroundLogWriter(fileDescriptor: STDERR_FILENO)
        LoggingSystem.bootstrap { BackgroundLogHandler(label: $0, writer: logWriter) }
        defer { logWriter.flush() }
        let logger = makeLogger(configuration)
        if configuration.syncEnabled, !DiscogsClientSettings(configuration: configuration).hasToken {
            logger.warning("\(DiscogsClientSettings.noTokenWarning)")
        }
        let database = try global.openDatabase(configuration)
        // One daemon a database (see ServeLock), held until the process ends.
        let lock: ServeLock
        do {
            lock = try ServeLock.acquire(databasePath: configuration.databasePath)
        } catch {
            if case .held = error { throw CommandFailure("\(error); stop it first, or serve another database with --database") }
            throw CommandFailure(error.description)
        }
        defer { withExtendedLifetime(lock) {} }

        let host = configuration.serverHost
        // The app's instruments use the registry `metrics` carries; the global gets the same factory,
        // once, for anything a library records through it.
        let metrics = AppMetrics(configuration: configuration)
        if let factory = metrics.factory { MetricsSystem.bootstrap(factory) }
        let services = try AppServices(database: database, configuration: configuration, metrics: metrics, logger: logger)
        let app = buildApplication(configuration: configuration, services: services, logger: logger) { port in
            // Only once it listens: a start that fails (a port taken) must not spend the one showing
            // of the token, which a later start would not repeat.
            do {
                if let (user, token) = try database.bootstrapDefaultUser(named: configuration.defaultUserName) {
                    printNow("""
                        Created user '\(user.name)' with a write token (shown once, keep it):
                          \(token.token)
                        """)
                } else if let user = try database.usersWithNoWayIn().first {
                    // An imported collection, served: nothing yet lets anyone in, and nothing else says how.
                    printNow("""
                        No token or password opens this server yet: crated token create --user \(user.shellWord) makes a \
                        token for the app, crated user passwd \(user.shellWord) a password for the web client
                        """)
                }
            } catch {
                logger.error("cannot create the default user '\(configuration.defaultUserName)': \(error); crated user add and crated token create make one")
            }
            // Absolute paths: under a service manager the working directory is not the operator's.
            let database = URL(fileURLWithPath: configuration.databasePath).standardizedFileURL.path
            let covers = URL(fileURLWithPath: configuration.artworkDirectoryPath).standardizedFileURL.path
            printNow("crated \(CratedVersion.current) listening on http://\(Self.address(host, port)) (database \(database), covers \(covers))")
        }
        let address = Self.address(host, configuration.serverPort)
        let announcements = announceShutdown(logger, logWriter: logWriter)
        defer { announcements.forEach { $0.cancel() } }
        do {
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint] + (Self.stopsOnHangUp ? [.sighup] : []))
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CommandFailure("cannot listen on \(address): the address is already in use (another crated, or another server); choose another with --port")
        } catch let error as IOError where error.errnoCode == EADDRNOTAVAIL {
            throw CommandFailure("cannot listen on \(address): no network interface of this machine has that address; choose one it has with --host (127.0.0.1, or 0.0.0.0 for all)")
        } catch let error as SocketAddressError.UnknownHost {
            throw CommandFailure("cannot listen on \(address): the host name \(host) is not known (\(error.errorDescription)); give an address or a known name with --host")
        }
        logger.info("stopped cleanly")
    }

    /// `host:port`, with an IPv6 address in brackets as URLs write it (`[::1]:8080`).
    static func address(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Says in the log when a stop begins and what it waits for: the port closes at once, while a
    /// transfer to Discogs, or a client that stalls mid-request, may take seconds to finish. The
    /// service group handles the first signal; a dispatch source per signal hears it as well, and
    /// ends the process at once on a second one (SQLite's journal keeps the database whole).
    private func announceShutdown(_ logger: Logger, logWriter: BackgroundLogWriter) -> [any DispatchSourceSignal] {
        let stop = StopSignals()
        let hangUp = Self.stopsOnHangUp ? [(SIGHUP, "SIGHUP")] : []
        return ([(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] + hangUp).map { signalNumber, name in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                guard stop.isFirst() else {
                    logger.info("stopping at once (\(name) during the stop): requests in flight are cut off")
                    logWriter.flush()
                    // Not exit(): its handlers would run beside threads still at work.
                    _exit(128 + signalNumber)
                }
                logger.info("stopping (\(name)): requests in flight finish, event streams end, sync finishes the transfers under way; a second SIGINT, SIGTERM or SIGHUP stops at once")
            }
            source.resume()
            return source
        }
    }
}

extension ServeCommand {
    /// SIGHUP (the terminal `serve` was started from closing) stops it cleanly, as SIGTERM does,
    /// where it would kill it; unless it was started ignoring SIGHUP (`nohup`), to outlive the terminal.
    static let stopsOnHangUp: Bool = {
        var current = sigaction()
        sigaction(SIGHUP, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) != 1  // SIG_IGN
    }()
}

/// Whether a stop has begun: a signal after the first ends the process at once.
private final class StopSignals: Sendable {
    private let heard = Atomic<Bool>(false)

    func isFirst() -> Bool { !heard.exchange(true, ordering: .relaxed) }
}

func makeLogger(_ configuration: CratedConfiguration) -> Logger {
    var logger = Logger(label: "crated")
    logger.logLevel = Logger.Level(rawValue: configuration.logLevel.lowercased()) ?? .info
    return logger
}

/// Prints a line at once, even when standard output is a pipe or a file (scripts wait for it).
func printNow(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
