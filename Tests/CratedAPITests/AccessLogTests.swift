@testable import CratedAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// A log file in a temporary folder with a writer of its own.
private struct LogFile {
    let folder: TemporaryFolder
    let path: String
    let descriptor: Int32
    let writer: BackgroundLogWriter

    init() throws {
        folder = try TemporaryFolder()
        path = folder.path("crated.log")
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        writer = BackgroundLogWriter(fileDescriptor: descriptor)
    }

    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "crated") { BackgroundLogHandler(label: $0, writer: writer) }
        logger.logLevel = level
        return logger
    }

    /// Everything written so far, after a flush.
    func lines() throws -> [String] {
        writer.flush()
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func close() { _ = Foundation.close(descriptor) }
}

@Suite struct AccessLogTests {
    @Test func everyRequestIsLoggedOnceAnsweredWithStatusTimeAndRequestId() async throws {
        let server = try TestServer()
        let log = try LogFile()
        defer { log.close() }
        let albumId = try server.albumId(release: 1)
        let auth: HTTPFields = [.authorization: "Bearer \(server.writeToken)"]
        try await server.makeApplication(logger: log.logger()).test(.router) { client in
            let found = try await client.execute(uri: "/v1/albums/\(albumId)", method: .get, headers: auth)
            let missing = try await client.execute(uri: "/v1/albums/999999?x=1", method: .get, headers: auth)
            let anonymous = try await client.execute(uri: "/v1/albums/\(albumId)", method: .get)
            let noRoute = try await client.execute(uri: "/no/such/route", method: .get)
            #expect([found.status, missing.status, anonymous.status, noRoute.status] == [.ok, .notFound, .unauthorized, .notFound])
        }
        let requests = try log.lines().filter { $0.contains("GET /") }
        let pattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ info crated: \[hb\.request\.id=([0-9a-f]+)\] GET (\S+) (\d{3}) (\d+\.\d\d) ms$/
        let parsed = try requests.map { line in try #require(try pattern.wholeMatch(in: line), "\(line)").output }
        #expect(parsed.map { "\($0.2) \($0.3)" } == [
            "/v1/albums/\(albumId) 200", "/v1/albums/999999?x=1 404", "/v1/albums/\(albumId) 401", "/no/such/route 404",
        ])
        #expect(Set(parsed.map(\.1)).count == 4, "each request has its own id")
    }

    @Test func requestsAreNotLoggedBelowTheLoggersLevel() async throws {
        let server = try TestServer()
        let log = try LogFile()
        defer { log.close() }
        try await server.makeApplication(logger: log.logger(level: .warning)).test(.router) { client in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
        }
        #expect(try log.lines().filter { $0.contains("GET /healthz") }.isEmpty)
    }

    @Test func millisecondsHaveTwoDecimals() {
        let start = ContinuousClock.now - .microseconds(1_234_567)
        let text = AccessLogMiddleware<AppRequestContext>.milliseconds(since: start)
        let value = Double(text) ?? -1
        #expect(text.split(separator: ".").last?.count == 2)
        #expect(value >= 1234.56 && value < 1300)
    }
}

/// A writer that stopped writing would make a flush wait for ever: the time limit turns that into a failure.
@Suite(.timeLimit(.minutes(1))) struct BackgroundLogWriterTests {
    @Test func linesFromManyThreadsArriveWholeAndInTheirOrder() async throws {
        let log = try LogFile()
        defer { log.close() }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for line in 0..<1_000 { log.writer.write("thread \(thread) line \(line) \(String(repeating: "x", count: line % 50))\n") }
                }
            }
        }
        let lines = try log.lines()
        #expect(lines.count == 8_000)
        for thread in 0..<8 {
            let own = lines.filter { $0.hasPrefix("thread \(thread) ") }
            #expect(own == (0..<1_000).map { "thread \(thread) line \($0) \(String(repeating: "x", count: $0 % 50))" })
        }
    }

    @Test func moreThanTheBufferHoldsWaitsForTheWriterAndLosesNothing() throws {
        let log = try LogFile()
        defer { log.close() }
        let line = String(repeating: "y", count: 1_023) + "\n"
        let count = 3 * BackgroundLogWriter.bufferLimit / line.utf8.count
        for _ in 0..<count { log.writer.write(line) }
        let lines = try log.lines()
        #expect(lines.count == count)
        #expect(lines.allSatisfy { $0.utf8.count == 1_023 })
    }

    @Test func aFailingDestinationDoesNotHoldUpLoggingOrFlushing() {
        let writer = BackgroundLogWriter(fileDescriptor: -1)
        for index in 0..<100 { writer.write("line \(index)\n", urgent: index % 10 == 0) }
        writer.flush()
        writer.write("after the flush\n")
        writer.flush()
    }

    @Test func handlerWritesLevelLabelSortedMetadataAndMessage() throws {
        let log = try LogFile()
        defer { log.close() }
        var logger = log.logger(level: .debug)
        logger[metadataKey: "zone"] = "b"
        logger.debug("below the level? no: debug is on")
        logger.trace("not written")
        logger.error("it broke", metadata: ["album": "12", "attempt": "3"])
        let lines = try log.lines()
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix(" debug crated: [zone=b] below the level? no: debug is on"))
        #expect(lines[1].hasSuffix(" error crated: [album=12 attempt=3 zone=b] it broke"))
    }
}
