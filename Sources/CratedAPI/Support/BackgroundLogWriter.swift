import CratedCore
import Foundation
import Logging

/// Log lines written to a file descriptor by a thread of their own, in batches.
///
/// swift-log's `StreamLogHandler` writes and flushes every line on the thread that logs it. The
/// daemon logs every request, so each request made a `write` to standard error, and when the
/// terminal, pipe or journal behind it was slow the request thread slept in the kernel, holding up
/// the requests queued behind it. Here a line is formatted and appended to a buffer; the writer
/// thread wakes once per batch, gives lines a few milliseconds to gather, and writes them at once.
/// Errors and worse are written without that wait.
public final class BackgroundLogWriter: @unchecked Sendable {
    /// How long the writer lets lines gather after the first of a batch.
    static let gatherTime: TimeInterval = 0.005
    /// Beyond this many bytes waiting, logging waits for the writer instead of growing the buffer.
    static let bufferLimit = 1 << 20

    private let fileDescriptor: Int32
    /// Guards everything below, and wakes the writer and anyone waiting for room or for a flush.
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var urgent = false
    /// Lines handed to the writer and lines it has written: a flush waits for the two to meet.
    private var linesQueued = 0
    private var linesWritten = 0

    /// Starts the writer thread, which lives as long as the process: make one writer per destination.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        let thread = Thread { [self] in run() }
        thread.name = "crated log writer"
        thread.start()
    }

    /// Queues one line (its newline included). Returns at once unless a megabyte is already waiting.
    public func write(_ line: String, urgent: Bool = false) {
        condition.lock()
        while pending.count >= Self.bufferLimit { condition.wait() }
        let writerIdle = pending.isEmpty
        pending.append(contentsOf: line.utf8)
        linesQueued += 1
        if urgent { self.urgent = true }
        if writerIdle || urgent { condition.broadcast() }
        condition.unlock()
    }

    /// Returns once every line queued before the call has been written.
    public func flush() {
        condition.lock()
        let target = linesQueued
        urgent = true
        condition.broadcast()
        while linesWritten < target { condition.wait() }
        condition.unlock()
    }

    private func run() {
        var batch: [UInt8] = []
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            // Let the lines of concurrent requests gather: one write instead of one per line.
            let deadline = Date(timeIntervalSinceNow: Self.gatherTime)
            while !urgent, pending.count < Self.bufferLimit / 2, condition.wait(until: deadline) {}
            swap(&batch, &pending)
            let lines = linesQueued
            urgent = false
            condition.broadcast()
            condition.unlock()

            writeAll(batch)
            batch.removeAll(keepingCapacity: true)

            condition.lock()
            linesWritten = lines
            condition.broadcast()
            condition.unlock()
        }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return  // The destination is closed or failing: there is nowhere left to say so.
                }
            }
        }
    }
}

/// A swift-log handler writing lines like `StreamLogHandler`'s through a `BackgroundLogWriter`:
/// `2026-11-23T06:17:36Z info crated: [hb.request.id=…] message`.
public struct BackgroundLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    private let label: String
    private let writer: BackgroundLogWriter

    public init(label: String, writer: BackgroundLogWriter, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.writer = writer
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        // Formatted here rather than when metadata is set: every request sets some (its id, its
        // user) and most requests log one line.
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let eventMetadata = event.metadata { merged.merge(eventMetadata) { _, new in new } }
        let fields = Self.escapingControls(Self.format(merged))
        let time = Timestamp.string(fromEpochSeconds: Int64(Date().timeIntervalSince1970))
        let line = "\(time) \(event.level) \(label):\(fields.isEmpty ? "" : " [\(fields)]") \(Self.escapingControls("\(event.message)"))\n"
        writer.write(line, urgent: event.level >= .error)
    }

    /// Control characters (a newline, an ESC) written as `\u{1b}`: a value from a request (a name
    /// typed at sign-in) must not start a forged line of its own or drive the terminal showing the log.
    static func escapingControls(_ text: String) -> String {
        func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) { escaped += "\\u{\(String(scalar.value, radix: 16))}" } else { escaped.unicodeScalars.append(scalar) }
        }
        return escaped
    }

    private static func format(_ metadata: Logger.Metadata) -> String {
        metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}
