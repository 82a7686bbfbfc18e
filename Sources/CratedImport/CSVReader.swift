import CratedCore
import Foundation

/// One record of a CSV file: its fields and the physical line it starts on (1-based).
public struct CSVRecord: Sendable, Equatable {
    public var fields: [String]
    public var line: Int
    /// Indexes of fields whose bytes were not valid UTF-8 (their text holds U+FFFD in place of the bad bytes).
    public var invalidUTF8Fields: [Int] = []
}

public enum CSVError: Error, Equatable, CustomStringConvertible {
    case unterminatedQuote(line: Int)
    /// A record reached `limit` bytes and had not ended.
    case recordTooLong(line: Int, limit: Int)
    case readFailed(reason: String)

    public var description: String {
        switch self {
        case .unterminatedQuote(let line):
            "line \(line): a quoted field is never closed (a \" opens at line \(line) and the file ends inside it)"
        case .recordTooLong(let line, let limit):
            "line \(line): a record runs past \(limit / 1024) KiB (a quote that opens there and never closes reads as one endless field)"
        case .readFailed(let reason):
            "cannot read the file: \(reason)"
        }
    }
}

/// A streaming RFC 4180 reader over bytes: fields may be quoted, quotes are doubled inside quotes,
/// records end with LF or CRLF, and quoted fields may span lines. The file is read in chunks and never
/// held whole, so memory stays flat however long the file is; a record longer than
/// `maximumRecordBytes` is an error, so it stays flat however long a field is too.
///
/// Written by hand because the import needs what the CSV libraries at hand do not give together:
/// the physical line of every record and of an unclosed quote, per-field UTF-8 validation, and speed
/// on hundreds of thousands of rows.
public final class CSVReader {
    private let handle: FileHandle
    private var buffer: [UInt8]
    private var start = 0          // first byte of the record being parsed
    private var end = 0            // one past the last valid byte in `buffer`
    private var atEndOfFile = false
    private var line = 1           // physical line of `start`
    private var scratch: [UInt8] = []
    /// Bytes consumed from the file so far (for progress).
    public private(set) var bytesRead = 0
    /// The longest record read. A record is parsed again from its start at each refill, so one
    /// without an end (a quote never closed) would cost memory and time without bound.
    let maximumRecordBytes: Int

    private static let quote = UInt8(ascii: "\"")
    private static let comma = UInt8(ascii: ",")
    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")

    /// - Parameter skipping: bytes to drop from the start (a byte-order mark).
    /// - Parameter maximumRecordBytes: the longest record, 1 MiB by default: a Discogs export's
    ///   longest fields, notes, run to a few KiB.
    public init(handle: FileHandle, chunkSize: Int = 256 * 1024, skipping: Int = 0, maximumRecordBytes: Int = 1024 * 1024) throws {
        self.handle = handle
        self.maximumRecordBytes = maximumRecordBytes
        self.buffer = [UInt8](repeating: 0, count: max(chunkSize, 16))
        try fill()
        start = min(skipping, end)
    }

    /// The next record, or nil at the end of the file. Blank lines are skipped.
    public func next() throws -> CSVRecord? {
        while true {
            if start >= end {
                if atEndOfFile { return nil }
                try fill()
                continue
            }
            switch parseRecord() {
            case .record(let record, let consumed, let lines):
                start += consumed
                line += lines
                if record.fields.count == 1 && record.fields[0].isEmpty && record.invalidUTF8Fields.isEmpty {
                    continue  // a blank line
                }
                return record
            case .needMoreData:
                if atEndOfFile {
                    throw CSVError.unterminatedQuote(line: line)
                }
                if end - start >= maximumRecordBytes {
                    throw CSVError.recordTooLong(line: line, limit: maximumRecordBytes)
                }
                try fill()
            }
        }
    }

    private enum ParseResult {
        case record(CSVRecord, consumed: Int, lines: Int)
        case needMoreData
    }

    /// Parses one record from `start`; asks for more data when the record may continue past `end`.
    private func parseRecord() -> ParseResult {
        let count = end
        let first = start
        return buffer.withUnsafeBufferPointer { bytes -> ParseResult in
            var fields: [String] = []
            fields.reserveCapacity(16)
            var invalid: [Int] = []
            var lines = 0
            var i = first
            while true {
                // At the start of a field.
                if i < count && bytes[i] == Self.quote {
                    scratch.removeAll(keepingCapacity: true)
                    i += 1
                    var closed = false
                    while i < count {
                        let byte = bytes[i]
                        if byte == Self.quote {
                            if i + 1 < count {
                                if bytes[i + 1] == Self.quote {
                                    scratch.append(Self.quote)
                                    i += 2
                                    continue
                                }
                                closed = true
                                i += 1
                                break
                            }
                            if atEndOfFile { closed = true; i += 1 }
                            break  // need to see the next byte to know whether the quote is doubled
                        }
                        if byte == Self.lf { lines += 1 }
                        scratch.append(byte)
                        i += 1
                    }
                    if !closed { return .needMoreData }
                    // Lenient: text between a closing quote and the delimiter belongs to the field.
                    while i < count, bytes[i] != Self.comma, bytes[i] != Self.lf, bytes[i] != Self.cr {
                        scratch.append(bytes[i])
                        i += 1
                    }
                    let text = scratch.withUnsafeBufferPointer { Self.decode($0[...]) }
                    if !text.valid { invalid.append(fields.count) }
                    fields.append(text.string)
                } else {
                    let fieldStart = i
                    while i < count, bytes[i] != Self.comma, bytes[i] != Self.lf, bytes[i] != Self.cr {
                        i += 1
                    }
                    let text = Self.decode(bytes[fieldStart..<i])
                    if !text.valid { invalid.append(fields.count) }
                    fields.append(text.string)
                }
                // After a field: a comma, a line end, or the end of the data.
                if i >= count {
                    if !atEndOfFile { return .needMoreData }
                    return .record(CSVRecord(fields: fields, line: line, invalidUTF8Fields: invalid), consumed: i - first, lines: lines)
                }
                let byte = bytes[i]
                if byte == Self.comma {
                    i += 1
                    continue
                }
                if byte == Self.cr {
                    if i + 1 >= count && !atEndOfFile { return .needMoreData }
                    i += (i + 1 < count && bytes[i + 1] == Self.lf) ? 2 : 1
                } else {
                    i += 1
                }
                return .record(CSVRecord(fields: fields, line: line, invalidUTF8Fields: invalid), consumed: i - first, lines: lines + 1)
            }
        }
    }

    static func decode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> (string: String, valid: Bool) {
        // `String(validating:)` on a slice took the generic way, with a runtime type lookup per field.
        // Decoding repairs invalid bytes (as U+FFFD) and leaves valid ones as they are, so the text is
        // valid exactly when its bytes come out unchanged; ASCII always does.
        let buffer = UnsafeBufferPointer(rebasing: bytes)
        let string = String(decoding: buffer, as: UTF8.self)
        if buffer.allSatisfy({ $0 < 0x80 }) { return (string, true) }
        let unchanged = string.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(buffer) } ?? string.utf8.elementsEqual(buffer)
        return (string, unchanged)
    }

    /// Moves the unparsed tail to the front of the buffer and reads more bytes after it,
    /// growing the buffer when a single record fills it.
    private func fill() throws {
        if start > 0 {
            let remaining = end - start
            if remaining > 0 {
                buffer.withUnsafeMutableBufferPointer { pointer in
                    pointer.baseAddress!.update(from: pointer.baseAddress! + start, count: remaining)
                }
            }
            end = remaining
            start = 0
        }
        if end == buffer.count {
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
        let wanted = buffer.count - end
        let data: Data?
        do {
            data = try handle.read(upToCount: wanted)
        } catch {
            throw CSVError.readFailed(reason: error.localizedDescription)
        }
        guard let data, !data.isEmpty else {
            atEndOfFile = true
            return
        }
        _ = buffer.withUnsafeMutableBufferPointer { pointer in
            data.copyBytes(to: UnsafeMutableBufferPointer(rebasing: pointer[end..<(end + data.count)]))
        }
        end += data.count
        bytesRead += data.count
    }
}
