import CratedCore
import NIOCore
import Synchronization

/// The files of small variants served lately, in memory: a grid shows the same few hundred covers to
/// every client, and reading each from disk again took four trips to the file thread pool (open, stat,
/// read, close) for a few kilobytes. Bounded by bytes; a variant larger than `maxFileBytes` is always
/// streamed from disk.
final class HotVariants: Sendable {
    struct Entry: Sendable {
        var served: ServedArtwork
        var variant: ArtworkVariantKey
        var contents: ByteBuffer
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Names in the order they came in: the oldest go first when over budget.
        var order: [String] = []
        var bytes = 0
    }

    let maxBytes: Int
    let maxFileBytes: Int
    private let state = Mutex(State())

    init(maxBytes: Int = 16 << 20, maxFileBytes: Int = 64 << 10) {
        self.maxBytes = maxBytes
        self.maxFileBytes = maxFileBytes
    }

    static func name(key: String, width: Int, format: String) -> String { "\(key)/\(width)/\(format)" }

    func entry(_ name: String) -> Entry? {
        state.withLock { $0.entries[name] }
    }

    func keep(_ entry: Entry, as name: String) {
        let size = entry.contents.readableBytes
        guard size <= maxFileBytes, maxBytes > 0 else { return }
        state.withLock { state in
            if let old = state.entries.updateValue(entry, forKey: name) {
                state.bytes -= old.contents.readableBytes
            } else {
                state.order.append(name)
            }
            state.bytes += size
            var dropped = 0
            while state.bytes > maxBytes, dropped < state.order.count {
                if let gone = state.entries.removeValue(forKey: state.order[dropped]) { state.bytes -= gone.contents.readableBytes }
                dropped += 1
            }
            if dropped > 0 { state.order.removeFirst(dropped) }
        }
    }

    /// Forgets everything: files were evicted, or an original changed.
    func clear() {
        state.withLock { $0 = State() }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
