@testable import CratedAPI
import CratedTestSupport
import Foundation
import Logging
import Testing

/// A log file in a temporary folder with a writer of its own.
struct LogFile {
    let folder: TemporaryDirectory
    let path: String
    let descriptor: Int32
    let writer: BackgroundLogWriter

    init() throws {
        folder = try TemporaryDirectory()
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
