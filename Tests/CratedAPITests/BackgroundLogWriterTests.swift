@testable import CratedAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// A writer that stopped writing would make a flush wait for ever: the time limit turns that into a failure.
@Suite(.timeLimit(.minutes(1))) struct BackgroundLogWriterTests {
    /// A value from a request (a name typed at sign-in) cannot forge a line of its own or send the
    /// terminal an escape sequence: control characters are written escaped.
    @Test func controlCharactersAreEscaped() throws {
        let log = try LogFile()
        defer { log.close() }
        let logger = Logger(label: "crated") { BackgroundLogHandler(label: $0, writer: log.writer) }
        logger.notice("failed web sign-in", metadata: ["name": "eve\n2026-11-28T20:00:00Z info crated: FORGED\u{1B}[2J"])
        logger.notice("ünïcode and \u{9}tab")
        let lines = try log.lines()
        #expect(lines.count == 2)
        #expect(lines.first?.hasSuffix(#"[name=eve\u{a}2026-11-28T20:00:00Z info crated: FORGED\u{1b}[2J] failed web sign-in"#) == true, "\(lines)")
        #expect(lines.last?.hasSuffix(#"ünïcode and \u{9}tab"#) == true, "\(lines)")
    }

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
