import CratedCore
import CratedTestSupport
import Foundation
import Testing

/// `crated serve` as a real process: first start on an empty database, and SIGTERM with a stream open.
@Suite struct ServeProcessTests {
    /// Reads the child's standard output line by line until `predicate` matches or time runs out.
    final class LineReader {
        let handle: FileHandle
        var lines: [String] = []
        private var pending = ""

        init(_ handle: FileHandle) { self.handle = handle }

        func waitFor(timeout: TimeInterval = 30, _ predicate: (String) -> Bool) -> String? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let line = lines.first(where: predicate) { return line }
                var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 200) > 0 else { continue }
                let data = handle.availableData
                if data.isEmpty { return lines.first(where: predicate) }
                pending += String(decoding: data, as: UTF8.self)
                while let newline = pending.firstIndex(of: "\n") {
                    lines.append(String(pending[..<newline]))
                    pending = String(pending[pending.index(after: newline)...])
                }
            }
            return nil
        }

        /// The port of the `listening on http://127.0.0.1:PORT` line, once it comes.
        func port() -> Int? {
            guard let listening = waitFor({ $0.contains("listening on http://127.0.0.1:") }) else { return nil }
            return Int(listening.split(separator: ":").last!.prefix { $0.isNumber })
        }
    }

    /// Starts `crated serve` on a port the system picks, its standard error in `serve.log` of
    /// `directory`; the caller kills it if it is still running.
    private func launchServe(_ arguments: [String], in directory: TemporaryDirectory, environment: [String: String] = [:]) throws
        -> (process: Process, output: LineReader, log: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
        process.arguments = ["serve", "--port", "0"] + arguments
        process.currentDirectoryURL = directory.url
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe()
        process.standardOutput = output
        let log = directory.path("serve.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        try process.run()
        return (process, LineReader(output.fileHandleForReading), log)
    }

    /// Waits up to 15 s for `process` to end.
    private func waitForExit(_ process: Process) async throws {
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// Sends `signal` and expects `serve` to end within 15 s with status 0, its log saying the stop
    /// began for that signal and ended cleanly.
    private func expectCleanStop(_ process: Process, on signal: Int32, named name: String, log: String) async throws {
        kill(process.processIdentifier, signal)
        try await waitForExit(process)
        #expect(!process.isRunning, "serve did not stop within 15 s of \(name)")
        #expect(process.terminationStatus == 0)
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("stopping (\(name)): requests in flight finish"), "\(logged.suffix(2000))")
        #expect(logged.contains("stopped cleanly"), "\(logged.suffix(2000))")
    }

    @Test func firstStartPrintsATokenAndSIGTERMEndsOpenStreamsCleanly() async throws {
        let directory = try TemporaryDirectory()
        // Background sync must not leave the machine: a closed port on loopback.
        // Without a Discogs token, whatever the environment running the tests holds.
        let (process, reader, log) = try launchServe(["--database", directory.path("crated.sqlite")], in: directory,
                                                     environment: ["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9", "CRATED_DISCOGS_TOKEN": ""])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let port = try #require(reader.port())
        #expect(reader.lines.contains { $0.contains("Created user 'collector' with a write token") })
        let token = try #require(reader.lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("crt_") }).trimmingCharacters(in: .whitespaces)

        let stream = try SSEClient(port: port, path: "/v1/player/events", token: token)
        // A debug build of the daemon, beside the rest of the suite on two cores: give it time.
        let first = await stream.next(timeout: 30)
        #expect(first?.event == "player", "closed: \(stream.isClosed); received: \(stream.pendingText); serve's log: \((try? String(contentsOfFile: log, encoding: .utf8))?.suffix(3000) ?? "")")

        try await expectCleanStop(process, on: SIGTERM, named: "SIGTERM", log: log)
        // Started without a Discogs token: the log says what that costs (the covers).
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("warning crated: no Discogs token (discogs.token, or CRATED_DISCOGS_TOKEN)"), "\(logged.prefix(2000))")

        // The database closed cleanly and still holds the user created at first start.
        let database = try AppDatabase.open(path: directory.path("crated.sqlite"))
        #expect(try database.users().map(\.name) == ["collector"])
    }

    /// An imported collection served before anyone made a token or a password: `serve` says how to
    /// make one, since no first-start token is shown for a database that has users. Turned off, sync
    /// is said to be off, and no warning about a Discogs token that sync would use is given.
    @Test func serveSaysHowToGetInWhenNothingLetsAnyoneIn() async throws {
        let directory = try TemporaryDirectory()
        #expect(try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", directory.path("crated.sqlite")]).status == 0)
        let (process, reader, log) = try launchServe(["--database", "crated.sqlite"], in: directory, environment: ["CRATED_SYNC_ENABLED": "false"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try #require(reader.port())
        #expect(reader.lines.contains("No token or password opens this server yet: crated token create --user collector makes a "
                                      + "token for the app, crated user passwd collector a password for the web client"), "\(reader.lines)")
        try await expectCleanStop(process, on: SIGTERM, named: "SIGTERM", log: log)
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("sync is turned off (sync.enabled): no passes") && !logged.contains("no Discogs token"), "\(logged)")

        // Once a token opens it, nothing more is said.
        #expect(try run(Paths.cratedBinary, ["token", "create", "--user", "collector", "--database", directory.path("crated.sqlite")]).status == 0)
        let (again, againReader, againLog) = try launchServe(["--database", "crated.sqlite"], in: directory, environment: ["CRATED_SYNC_ENABLED": "false"])
        defer { if again.isRunning { kill(again.processIdentifier, SIGKILL) } }
        _ = try #require(againReader.port())
        try await expectCleanStop(again, on: SIGTERM, named: "SIGTERM", log: againLog)
        #expect(!againReader.lines.contains { $0.hasPrefix("No token or password") }, "\(againReader.lines)")
    }

    /// The terminal `serve` was started from closing sends SIGHUP: a clean stop, as for SIGTERM.
    /// And the start-up line names the database and the covers' folder in full, from a relative path.
    @Test func sighupStopsServeCleanly() async throws {
        let directory = try TemporaryDirectory()
        let (process, reader, log) = try launchServe(["--database", "crated.sqlite"], in: directory,
                                                     environment: ["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9", "CRATED_ARTWORK_FETCH_DURING_SYNC": "false"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try #require(reader.port())
        let folder = directory.url.standardizedFileURL.path
        #expect(reader.lines.contains { $0.hasSuffix("(database \(folder)/crated.sqlite, covers \(folder)/crated-artwork)") }, "\(reader.lines)")
        try await expectCleanStop(process, on: SIGHUP, named: "SIGHUP", log: log)
    }

    /// Started with `nohup`, to outlive its terminal, `serve` keeps running through SIGHUP.
    @Test func serveStartedWithNohupOutlivesSIGHUP() async throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/nohup")
        process.arguments = [Paths.cratedBinary, "serve", "--port", "0", "--database", directory.path("crated.sqlite")]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9", "CRATED_ARTWORK_FETCH_DURING_SYNC": "false"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let port = try #require(LineReader(output.fileHandleForReading).port())
        kill(process.processIdentifier, SIGHUP)
        try await Task.sleep(for: .seconds(1))
        // Still answering, a second after: a stop under way would have closed the listener at once.
        let connection = try RawConnection(port: port)
        connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = await connection.read(endingWith: "}", timeout: .seconds(30))
        #expect(answer?.hasPrefix("HTTP/1.1 200") == true, "\(String(describing: answer))")
        #expect(process.isRunning, "serve under nohup stopped on SIGHUP")
        kill(process.processIdentifier, SIGTERM)
        try await waitForExit(process)
        #expect(!process.isRunning && process.terminationStatus == 0)
    }

    /// One daemon a database: a second `serve` on it, or `crated sync` beside it, is refused and
    /// names the running one; once it has stopped, both run again.
    @Test func aSecondServeOrASyncBesideOneIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("crated.sqlite")
        let config = try directory.write("crated.json", #"{"discogs": {"baseURL": "http://127.0.0.1:9"}, "artwork": {"fetchDuringSync": false}}"#)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
        process.arguments = ["serve", "--database", database, "--port", "0", "--config", config]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(LineReader(output.fileHandleForReading).waitFor { $0.contains("listening on http://127.0.0.1:") } != nil)

        // Were it to start, it would serve until killed: it is given 30 s to be refused.
        let secondProcess = Process()
        secondProcess.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
        secondProcess.arguments = ["serve", "--database", database, "--port", "0", "--config", config]
        let secondError = Pipe()
        secondProcess.standardOutput = FileHandle.nullDevice
        secondProcess.standardError = secondError
        try secondProcess.run()
        let deadline = Date().addingTimeInterval(30)
        while secondProcess.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if secondProcess.isRunning {
            kill(secondProcess.processIdentifier, SIGKILL)
            Issue.record("a second serve ran on the same database")
        }
        secondProcess.waitUntilExit()
        let secondStderr = String(decoding: secondError.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(secondProcess.terminationStatus != 0)
        #expect(secondStderr.contains("crated serve (pid \(process.processIdentifier)) is already running on \(database); stop it first"), "\(secondStderr)")
        let sync = try run(Paths.cratedBinary, ["sync", "--database", database, "--config", config])
        #expect(sync.status != 0)
        #expect(sync.stderr.contains("is running on \(database) and syncs it in the background; start a pass now with POST /v1/sync"), "\(sync.stderr)")
        // The same file by another name is the same database.
        let link = directory.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database)
        let syncThroughLink = try run(Paths.cratedBinary, ["sync", "--database", link, "--config", config])
        #expect(syncThroughLink.status != 0)
        #expect(syncThroughLink.stderr.contains("is running on \(link) and syncs it in the background"), "\(syncThroughLink.stderr)")

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let after = try run(Paths.cratedBinary, ["sync", "--database", database, "--config", config])
        #expect(after.status == 0, "\(after.stderr)")
    }

    /// A client that stalls mid-body holds the first stop until the body timeout; a second SIGINT
    /// ends `serve` at once, and the log says what each signal does.
    @Test func aSecondSignalDuringTheStopEndsServeAtOnce() async throws {
        let directory = try TemporaryDirectory()
        // The stalled request holds the stop for ten minutes: longer than this test can be kept
        // waiting by the rest of the suite, so it is the second signal that ends serve.
        let config = try directory.write("crated.json", """
            {"discogs": {"baseURL": "http://127.0.0.1:9"}, "artwork": {"fetchDuringSync": false},
             "server": {"idleTimeoutSeconds": 600, "bodyTimeoutSeconds": 600}}
            """)
        let (process, reader, log) = try launchServe(["--database", directory.path("crated.sqlite"), "--config", config], in: directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let port = try #require(reader.port())
        let token = try #require(reader.lines.first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("crt_") }).trimmingCharacters(in: .whitespaces)

        // A request answered first: the connection is open and read by the time the stalled one comes.
        let stalled = try RawConnection(port: port)
        stalled.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await stalled.read(endingWith: "}", timeout: .seconds(30)) != nil)
        stalled.send("POST /v1/crates HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"na")
        try await Task.sleep(for: .seconds(1))
        kill(process.processIdentifier, SIGINT)
        try await Task.sleep(for: .seconds(2))
        #expect(process.isRunning, "the stalled request did not hold the stop; this test shows nothing")

        kill(process.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning, "serve did not stop within 10 s of a second SIGINT")
        let logged = try String(contentsOfFile: log, encoding: .utf8)
        #expect(logged.contains("stopping (SIGINT): requests in flight finish"), "\(logged.suffix(2000))")
        #expect(logged.contains("a second SIGINT, SIGTERM or SIGHUP stops at once"), "\(logged.suffix(2000))")
        #expect(logged.contains("stopping at once (SIGINT during the stop)"), "\(logged.suffix(2000))")
        withExtendedLifetime(stalled) {}
    }

    /// An address this machine does not have and a name that does not resolve are said in words;
    /// an IPv6 address is bracketed in the URL printed.
    @Test func hostsServeCannotListenOnAreSaidPlainly() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("crated.sqlite")
        let config = try directory.write("crated.json", #"{"discogs": {"baseURL": "http://127.0.0.1:9"}, "artwork": {"fetchDuringSync": false}}"#)
        let foreign = try run(Paths.cratedBinary, ["serve", "--database", database, "--config", config, "--host", "10.99.99.99", "--port", "8089"])
        #expect(foreign.status != 0)
        #expect(foreign.stderr.contains("cannot listen on 10.99.99.99:8089: no network interface of this machine has that address"), "\(foreign.stderr)")
        let unknown = try run(Paths.cratedBinary, ["serve", "--database", database, "--config", config, "--host", "nosuchhost.invalid", "--port", "8089"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("cannot listen on nosuchhost.invalid:8089: the host name nosuchhost.invalid is not known"), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("SocketAddressError"), "\(unknown.stderr)")

        // Only where this machine has IPv6 on loopback.
        guard (try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8))?.contains("00000000000000000000000000000001") == true else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.cratedBinary)
        process.arguments = ["serve", "--database", database, "--config", config, "--host", "::1", "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let listening = LineReader(output.fileHandleForReading).waitFor { $0.contains("listening on") }
        #expect(listening?.contains("listening on http://[::1]:") == true, "\(listening ?? "nothing")")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// A port already taken ends `serve` with a clear error before any sync pass has begun (a pass
    /// begun and then cancelled would log `sync pass failed: CancellationError()`).
    @Test func aTakenPortFailsBeforeSyncBegins() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("crated.sqlite")
        let imported = try run(Paths.cratedBinary, ["import", Paths.ownFixture("sample-collection.csv"), "--database", database])
        #expect(imported.status == 0, "\(imported.stderr)")

        // Holds a port of its own on loopback for the length of the test.
        let (listener, port) = try LoopbackSocket.listening()
        defer { close(listener) }

        let config = try directory.write("crated.json", #"{"discogs": {"baseURL": "http://127.0.0.1:9"}, "log": {"level": "debug"}}"#)
        let served = try run(Paths.cratedBinary, ["serve", "--database", database, "--port", "\(port)", "--config", config])
        #expect(served.status != 0)
        #expect(served.stderr.contains("cannot listen on 127.0.0.1:\(port): the address is already in use"), "\(served.stderr)")
        #expect(!served.stderr.contains("sync pass"), "\(served.stderr)")
        // Nothing else to say: the WAL checkpointer and the token recorder, cancelled as the start
        // failed, stay quiet.
        #expect(!served.stderr.contains("cannot checkpoint"), "\(served.stderr)")
        #expect(!served.stderr.contains("could not mark idle"), "\(served.stderr)")
    }

    /// A data disk not mounted yet leaves the database's folder missing: serve, and every command that
    /// makes a database, says so and makes nothing, where a new database would have been written, and
    /// served, beneath the mount point. The covers' folder likewise.
    @Test func aMissingDatabaseFolderIsRefusedNotMade() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("music-disk/crated/crated.sqlite")
        let served = try run(Paths.cratedBinary, ["serve", "--database", database, "--port", "0"],
                             environment: ["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9"])
        #expect(served.status != 0)
        #expect(served.stderr.contains("the folder of the database, \(directory.path("music-disk/crated")), does not exist (is its disk mounted?)"),
                "\(served.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("music-disk")))

        // Nor does a command that makes a database: a nightly import would fill one beneath the mount point.
        for command in [["import", Paths.ownFixture("sample-collection.csv")], ["migrate"], ["user", "add", "someone"],
                        ["sync", "--no-linked"]] {
            let refused = try run(Paths.cratedBinary, command + ["--database", database], environment: ["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9"])
            #expect(refused.status != 0, "\(command)")
            #expect(refused.stderr.contains("the folder of the database, \(directory.path("music-disk/crated")), does not exist (is its disk mounted?)"),
                    "\(command): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path("music-disk")))

        // The covers' folder likewise: made where it should be, its folder not.
        let coversOnDisk = directory.path("covers-disk/crated-covers")
        let servedCovers = try run(Paths.cratedBinary, ["serve", "--database", directory.path("crated.sqlite"), "--port", "0"],
                                   environment: ["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9", "CRATED_ARTWORK_DIRECTORY": coversOnDisk])
        #expect(servedCovers.status != 0)
        #expect(servedCovers.stderr.contains("artwork directory \(coversOnDisk) cannot be written: its folder \(directory.path("covers-disk")) does not exist (is its disk mounted?)"),
                "\(servedCovers.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path("covers-disk")))
    }

    /// The default user's token is shown once: by the first start that serves, not by one that
    /// failed to listen, after which no start would show it.
    @Test func aStartThatCannotListenKeepsTheFirstTokenForTheNextStart() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path("crated.sqlite")
        let environment = ["CRATED_DISCOGS_BASE_URL": "http://127.0.0.1:9"]
        let (listener, port) = try LoopbackSocket.listening()
        defer { close(listener) }
        let failed = try run(Paths.cratedBinary, ["serve", "--database", database, "--port", "\(port)"], environment: environment)
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("the address is already in use"), "\(failed.stderr)")
        #expect(!failed.stdout.contains("crt_"), "\(failed.stdout)")

        let (process, reader, _) = try launchServe(["--database", database], in: directory, environment: environment)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        _ = try #require(reader.port())
        #expect(reader.lines.contains { $0.contains("Created user 'collector' with a write token") })
        #expect(reader.lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix("crt_") })
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
