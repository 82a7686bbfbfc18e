import Foundation

/// Bytes written to a file handle in pieces of 64 KiB: an export writes a line per copy, and a
/// system call per line was most of its time.
public final class BufferedOutput {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private static let capacity = 64 * 1024

    public init(handle: FileHandle) {
        self.handle = handle
        buffer.reserveCapacity(Self.capacity)
    }

    public func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.capacity { try flush() }
    }

    public func write(_ bytes: [UInt8]) throws {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.capacity { try flush() }
    }

    public func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
