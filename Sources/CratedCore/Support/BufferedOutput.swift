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
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw OutputWriteError(reason: Self.reason(error))
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The system's words for why a write failed: Foundation reports a full disk as
    /// `NSCocoaErrorDomain Code=640`, which tells a user nothing.
    static func reason(_ error: any Error) -> String {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        switch error.code {
        case CocoaError.fileWriteOutOfSpace.rawValue: return String(cString: strerror(ENOSPC))
        case CocoaError.fileWriteNoPermission.rawValue: return String(cString: strerror(EACCES))
        case CocoaError.fileWriteVolumeReadOnly.rawValue: return String(cString: strerror(EROFS))
        default: return error.localizedDescription
        }
    }
}

/// A write to the output failed (a full disk, a closed pipe).
public struct OutputWriteError: Error, CustomStringConvertible, Equatable {
    public let reason: String
    public var description: String { "cannot write the output: \(reason)" }
}
