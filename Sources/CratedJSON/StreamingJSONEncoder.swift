import Foundation

/// Encodes JSON straight into bytes, in the order the properties are encoded.
///
/// Foundation's `JSONEncoder` first builds a tree of boxed values and then serializes it: a grid
/// page spent a fifth of its CPU time there. This encoder writes each value as it is encoded. What
/// it writes matches `JSONEncoder` with `.iso8601` dates (Hummingbird's default), except that
/// object keys keep their declaration order and `/` is not escaped.
///
/// Streaming means a container is finished once its parent writes again; writing to it after that
/// is a programming error, reported as an `EncodingError` rather than as broken JSON.
public struct StreamingJSONEncoder {
    public init() {}

    public func encode(_ value: some Encodable) throws -> [UInt8] {
        if let writable = value as? any JSONWritable { return try write(writable) }
        return try encodeThroughCodable(value)
    }

    /// What `encode` writes for a value that is not `JSONWritable`, and the reference for one that is.
    package func encodeThroughCodable(_ value: some Encodable) throws -> [UInt8] {
        let writer = JSONByteWriter()
        try writer.encodeValue(value, codingPath: [])
        return writer.bytes
    }
}

/// The output and the containers that are still open, innermost last.
///
/// The state lives behind a pointer rather than in stored properties: Swift checks every access
/// to a class's stored `var` at run time (exclusivity), and those checks were a tenth of the time
/// spent encoding a search result. Every access goes through `output`, one value at a time.
final class JSONByteWriter {
    private let output: UnsafeMutablePointer<JSONOutput>

    init() {
        output = .allocate(capacity: 1)
        output.initialize(to: JSONOutput())
    }

    deinit {
        output.deinitialize(count: 1)
        output.deallocate()
    }

    var bytes: [UInt8] { output.pointee.bytes.array }
    var depth: Int { output.pointee.open.count }

    /// Writes one value at the current position: primitives directly, anything else through its
    /// `encode(to:)`, closing whatever containers it opened.
    func encodeValue<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey]) throws {
        // Compared by type, not cast: a failed dynamic cast per value is measurable on a page.
        if T.self == String.self { return writeString(unsafeBitCast(value, to: String.self)) }
        if T.self == Int.self { return writeInteger(unsafeBitCast(value, to: Int.self)) }
        if T.self == Int64.self { return writeInteger(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Bool.self { return writeBool(unsafeBitCast(value, to: Bool.self)) }
        if T.self == Double.self { return try writeDouble(unsafeBitCast(value, to: Double.self), codingPath: codingPath()) }
        // As JSONEncoder writes them (with Hummingbird's `.iso8601` dates), not as their own Codable.
        if T.self == Date.self { return writeString((value as! Date).formatted(.iso8601)) }
        if T.self == URL.self { return writeString((value as! URL).absoluteString) }
        if T.self == Data.self { return writeString((value as! Data).base64EncodedString()) }
        let start = depth
        let lengthBefore = output.pointee.bytes.count
        try value.encode(to: StreamingEncoder(writer: self, depth: start, codingPath: codingPath()))
        if depth == start && output.pointee.bytes.count == lengthBefore {
            // Nothing encoded at all; JSONEncoder writes an empty object here too.
            output.pointee.appendLiteral("{}")
        }
        output.pointee.close(downTo: start)
    }

    func writeNull() { output.pointee.appendLiteral("null") }
    func writeBool(_ value: Bool) { output.pointee.appendLiteral(value ? "true" : "false") }
    func writeString(_ string: String) { output.pointee.appendString(string) }

    func writeInteger<I: BinaryInteger>(_ value: I) {
        if let small = Int64(exactly: value) {
            output.pointee.appendDecimal(small)
        } else {
            output.pointee.appendASCII(String(value))
        }
    }

    func writeDouble(_ value: Double, codingPath: @autoclosure () -> [any CodingKey]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath(), debugDescription: "\(value) is not a valid JSON number"))
        }
        // JSONEncoder's form: the shortest representation, without a trailing ".0".
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.pointee.appendASCII(text)
    }

    /// Opens an object or array at `depth`, or finds the one already open there (an `encode(to:)`
    /// may ask for its container more than once).
    func openContainer(array: Bool, at depth: Int, codingPath: @autoclosure () -> [any CodingKey]) throws {
        if let message = output.pointee.openContainer(array: array, at: depth) { throw Self.misuse(message, codingPath) }
    }

    /// Prepares the container at `level` for its next member: closes anything nested in it,
    /// writes the separator and, in an object, the key.
    func beginMember(of level: Int, key: String?, codingPath: @autoclosure () -> [any CodingKey]) throws {
        if let message = output.pointee.beginMember(of: level, key: key) { throw Self.misuse(message, codingPath) }
    }

    /// Opens the place of a `superEncoder`, right after `beginMember`.
    func openSlot() { output.pointee.open.append(.slot(filled: false)) }

    /// Marks the place of a `superEncoder` just below `depth` as holding its value.
    func fillSlot(above depth: Int) { output.pointee.fillSlot(above: depth) }

    func count(at level: Int) -> Int { output.pointee.count(at: level) }

    private static func misuse(_ message: String, _ codingPath: () -> [any CodingKey]) -> EncodingError {
        EncodingError.invalidValue((), .init(codingPath: codingPath(), debugDescription: "streaming JSON: \(message)"))
    }
}

/// The bytes written so far and the containers still open.
@usableFromInline
struct JSONOutput: ~Copyable {
    enum Container {
        case object(count: Int)
        case array(count: Int)
        /// The place of a `superEncoder`: holds one value, `{}` when nothing is written into it.
        case slot(filled: Bool)
    }

    @usableFromInline var bytes: JSONBytes
    var open: [Container] = []

    init(capacity: Int = 1024) { bytes = JSONBytes(capacity: capacity) }

    mutating func appendLiteral(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func appendASCII(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        if let done: Void = string.utf8.withContiguousStorageIfAvailable({ appendEscaped($0) }) {
            _ = done
        } else {
            var string = string
            string.withUTF8 { appendEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The UTF-8 of a string, with the escapes JSON requires: quote, backslash, control characters.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): appendLiteral("\\\"")
            case UInt8(ascii: "\\"): appendLiteral("\\\\")
            case 0x0A: appendLiteral("\\n")
            case 0x0D: appendLiteral("\\r")
            case 0x09: appendLiteral("\\t")
            case 0x08: appendLiteral("\\b")
            case 0x0C: appendLiteral("\\f")
            default:
                let hex: StaticString = "0123456789abcdef"
                appendLiteral("\\u00")
                bytes.append(hex.utf8Start[Int(byte >> 4)])
                bytes.append(hex.utf8Start[Int(byte & 0xF)])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    /// nil when opened, else what was wrong.
    mutating func openContainer(array: Bool, at depth: Int) -> String? {
        if open.count > depth {
            close(downTo: depth + 1)
            switch open[depth] {
            case .object where !array, .array where array: return nil
            default: return "an object and an array were both asked for in one value"
            }
        }
        guard open.count == depth else { return "a container was used after its parent moved on" }
        fillSlot(above: depth)
        open.append(array ? .array(count: 0) : .object(count: 0))
        bytes.append(array ? UInt8(ascii: "[") : UInt8(ascii: "{"))
        return nil
    }

    /// nil when ready for the member's value, else what was wrong.
    mutating func beginMember(of level: Int, key: String?) -> String? {
        guard level < open.count else { return "a container was used after it was finished" }
        close(downTo: level + 1)
        switch open[level] {
        case .object(let count):
            if count > 0 { bytes.append(UInt8(ascii: ",")) }
            open[level] = .object(count: count + 1)
            appendString(key ?? "")
            bytes.append(UInt8(ascii: ":"))
        case .array(let count):
            if count > 0 { bytes.append(UInt8(ascii: ",")) }
            open[level] = .array(count: count + 1)
        case .slot:
            return "a value was written twice into one place"
        }
        return nil
    }

    mutating func fillSlot(above depth: Int) {
        if depth > 0, depth <= open.count, case .slot = open[depth - 1] { open[depth - 1] = .slot(filled: true) }
    }

    func count(at level: Int) -> Int {
        guard level < open.count else { return 0 }
        switch open[level] {
        case .object(let count), .array(let count): return count
        case .slot(let filled): return filled ? 1 : 0
        }
    }

    mutating func close(downTo depth: Int) {
        while open.count > depth {
            switch open.removeLast() {
            case .object: bytes.append(UInt8(ascii: "}"))
            case .array: bytes.append(UInt8(ascii: "]"))
            case .slot(let filled): if !filled { appendLiteral("{}") }
            }
        }
    }
}

/// Bytes in a buffer of their own. Appended to an `Array`, each of the some 1,500 pieces of a grid
/// page cost a uniqueness check, a capacity check and a generic copy: a third of writing the page.
@usableFromInline
struct JSONBytes: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    @inlinable deinit { base.deallocate() }

    @inlinable
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(toHold: 1) }
        base[count] = byte
        count += 1
    }

    @inlinable
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        if capacity - count < bytes.count { grow(toHold: bytes.count) }
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    @usableFromInline
    mutating func grow(toHold extra: Int) {
        capacity = max(capacity * 2, count + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
    }

    var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
}

// MARK: - Encoder and containers

/// The `Encoder` handed to a value's `encode(to:)`: its containers open at `depth`.
private struct StreamingEncoder: Encoder {
    let writer: JSONByteWriter
    let depth: Int
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // `Encoder.container` cannot throw: a misuse is reported by the container's first write.
        let failure = Result { try writer.openContainer(array: false, at: depth, codingPath: codingPath) }.failure
        return KeyedEncodingContainer(KeyedContainer(writer: writer, level: depth, codingPath: codingPath, failure: failure))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let failure = Result { try writer.openContainer(array: true, at: depth, codingPath: codingPath) }.failure
        return UnkeyedContainer(writer: writer, level: depth, codingPath: codingPath, failure: failure)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(writer: writer, depth: depth, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONByteWriter
    let level: Int
    let codingPath: [any CodingKey]
    let failure: (any Error)?

    private func begin(_ key: Key) throws {
        if let failure { throw failure }
        try writer.beginMember(of: level, key: key.stringValue, codingPath: codingPath + [key])
    }

    mutating func encodeNil(forKey key: Key) throws { try begin(key); writer.writeNull() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try begin(key); writer.writeBool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try begin(key); writer.writeString(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try begin(key); try writer.writeDouble(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try begin(key); try writer.writeDouble(Double(value), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try begin(key); writer.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        try writer.encodeValue(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let failure = Result {
            try begin(key)
            try writer.openContainer(array: false, at: writer.depth, codingPath: codingPath + [key])
        }.failure
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, level: writer.depth - 1, codingPath: codingPath + [key], failure: failure))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let failure = Result {
            try begin(key)
            try writer.openContainer(array: true, at: writer.depth, codingPath: codingPath + [key])
        }.failure
        return UnkeyedContainer(writer: writer, level: writer.depth - 1, codingPath: codingPath + [key], failure: failure)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        if (try? begin(key)) != nil { writer.openSlot() }
        return StreamingEncoder(writer: writer, depth: writer.depth, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let writer: JSONByteWriter
    let level: Int
    let codingPath: [any CodingKey]
    let failure: (any Error)?

    var count: Int { writer.count(at: level) }

    private var nextKey: any CodingKey { IndexKey(index: count) }

    private func begin() throws {
        if let failure { throw failure }
        try writer.beginMember(of: level, key: nil, codingPath: codingPath)
    }

    mutating func encodeNil() throws { try begin(); writer.writeNull() }
    mutating func encode(_ value: Bool) throws { try begin(); writer.writeBool(value) }
    mutating func encode(_ value: String) throws { try begin(); writer.writeString(value) }
    mutating func encode(_ value: Double) throws { let key = nextKey; try begin(); try writer.writeDouble(value, codingPath: codingPath + [key]) }
    mutating func encode(_ value: Float) throws { let key = nextKey; try begin(); try writer.writeDouble(Double(value), codingPath: codingPath + [key]) }
    mutating func encode(_ value: Int) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: Int64) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt8) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt16) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt32) throws { try begin(); writer.writeInteger(value) }
    mutating func encode(_ value: UInt64) throws { try begin(); writer.writeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        try begin()
        try writer.encodeValue(value, codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = nextKey
        let failure = Result {
            try begin()
            try writer.openContainer(array: false, at: writer.depth, codingPath: codingPath + [key])
        }.failure
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, level: writer.depth - 1, codingPath: codingPath + [key], failure: failure))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = nextKey
        let failure = Result {
            try begin()
            try writer.openContainer(array: true, at: writer.depth, codingPath: codingPath + [key])
        }.failure
        return UnkeyedContainer(writer: writer, level: writer.depth - 1, codingPath: codingPath + [key], failure: failure)
    }

    mutating func superEncoder() -> any Encoder {
        let key = nextKey
        if (try? begin()) != nil { writer.openSlot() }
        return StreamingEncoder(writer: writer, depth: writer.depth, codingPath: codingPath + [key])
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let writer: JSONByteWriter
    let depth: Int
    let codingPath: [any CodingKey]

    private func write(_ body: () throws -> Void) throws {
        writer.fillSlot(above: depth)
        try body()
    }

    mutating func encodeNil() throws { try write { writer.writeNull() } }
    mutating func encode(_ value: Bool) throws { try write { writer.writeBool(value) } }
    mutating func encode(_ value: String) throws { try write { writer.writeString(value) } }
    mutating func encode(_ value: Double) throws { try write { try writer.writeDouble(value, codingPath: codingPath) } }
    mutating func encode(_ value: Float) throws { try write { try writer.writeDouble(Double(value), codingPath: codingPath) } }
    mutating func encode(_ value: Int) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: Int8) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: Int16) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: Int32) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: Int64) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt8) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt16) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt32) throws { try write { writer.writeInteger(value) } }
    mutating func encode(_ value: UInt64) throws { try write { writer.writeInteger(value) } }
    mutating func encode<T: Encodable>(_ value: T) throws { try write { try writer.encodeValue(value, codingPath: codingPath) } }
}

private struct IndexKey: CodingKey {
    let index: Int
    init(index: Int) { self.index = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { index = intValue }
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }
}

private extension Result where Failure == any Error {
    var failure: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
