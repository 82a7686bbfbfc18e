import Foundation
import Synchronization

/// A one-line progress bar on standard error, drawn only when standard error is a terminal and at
/// most ten times a second.
final class ProgressBar: Sendable {
    private let lastDraw = Mutex<Date>(.distantPast)

    static func forStandardError() -> ProgressBar? {
        isatty(STDERR_FILENO) == 1 ? ProgressBar() : nil
    }

    func update(done: Int, total: Int, label: String) {
        let now = Date()
        let shouldDraw = lastDraw.withLock { last in
            guard now.timeIntervalSince(last) >= 0.1 else { return false }
            last = now
            return true
        }
        guard shouldDraw else { return }
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(Int(fraction * 100))% \(label)\u{1B}[K".utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
