import CratedCore
import NIOCore
import Synchronization

/// The files of small variants served lately, in memory: a grid shows the same few hundred covers to
/// every client, and reading each from disk again takes four trips to the file thread pool (open, stat,
/// read, close) for a few kilobytes. Bounded by bytes; a variant larger than `maxFileBytes` is always
/// streamed from disk.
///
/// Eviction is second chance (CLOCK), an approximate least recently used: a hit only sets a flag, so it
/// stays a dictionary lookup under the lock, yet the covers every grid asks for are not dropped merely
/// for being the oldest. Over budget, the oldest entry goes unless it was read since it came in or was
/// last passed over; then its flag is cleared and it goes to the back instead.
final class HotVariants: Sendable {
    struct Entry: Sendable {
        var served: ServedArtwork
        var variant: ArtworkVariantKey
        var contents: ByteBuffer
    }

    private struct Slot {
        var entry: Entry
        /// Read since it was last passed by eviction (or came in).
        var referenced = false
    }

    private struct State {
        var entries: [String: Slot] = [:]
        /// Every kept name once, in `order[head...]`, the next to consider for eviction first. Names before
        /// `head` were passed already; they are removed once they are half the array, so a pass costs O(1)
        /// amortized rather than shifting the whole array.
        var order: [String] = []
        var head = 0
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
        state.withLock { state in
            guard let index = state.entries.index(forKey: name) else { return nil }
            state.entries.values[index].referenced = true
            return state.entries.values[index].entry
        }
    }

    func keep(_ entry: Entry, as name: String) {
        let size = entry.contents.readableBytes
        // One that could never fit would only empty the cache on its way through.
        guard size <= maxFileBytes, size <= maxBytes, maxBytes > 0 else { return }
        state.withLock { state in
            if let index = state.entries.index(forKey: name) {
                // Same name, newer file: its place in the order and its flag stay.
                state.bytes += size - state.entries.values[index].entry.contents.readableBytes
                state.entries.values[index].entry = entry
            } else {
                state.entries[name] = Slot(entry: entry)
                state.order.append(name)
                state.bytes += size
            }
            evict(&state, sparing: name)
        }
    }

    /// Drops entries until within budget, never `kept` (the one just kept, which fits on its own).
    /// Terminates: each other entry can be passed once with its flag set before it is dropped.
    private func evict(_ state: inout State, sparing kept: String) {
        while state.bytes > maxBytes, state.head < state.order.count {
            let name = state.order[state.head]
            state.head += 1
            guard let index = state.entries.index(forKey: name) else { continue }
            if name == kept || state.entries.values[index].referenced {
                state.entries.values[index].referenced = false
                state.order.append(name)
            } else {
                state.bytes -= state.entries.values[index].entry.contents.readableBytes
                state.entries.remove(at: index)
            }
        }
        if state.head >= 32, state.head * 2 >= state.order.count {
            state.order.removeFirst(state.head)
            state.head = 0
        }
    }

    /// Forgets everything: files were evicted, or an original changed.
    func clear() {
        state.withLock { $0 = State() }
    }

    var count: Int { state.withLock { $0.entries.count } }
}
