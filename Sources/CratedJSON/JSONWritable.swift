/// A value that writes its own JSON: the bytes its `Encodable` conformance gives through
/// `StreamingJSONEncoder`, without Codable's containers.
///
/// For the busiest routes only (grid pages, album pages, grid cursors): there, Codable's generic
/// containers cost more than the page's queries. Fields go in declaration order and nil ones are
/// left out, as synthesized `Encodable` does; a test holds the two encodings of each type together.
public protocol JSONWritable: Encodable {
    func writeJSON(to json: inout JSONWriter)
    /// About how many bytes the JSON takes, to allocate once: a grid page grown from 1 KB was copied
    /// three times on its way.
    var expectedJSONSize: Int { get }
}

extension JSONWritable {
    public var expectedJSONSize: Int { 1024 }
}

/// Writes JSON objects and arrays field by field, with the separators and escapes.
public struct JSONWriter: ~Copyable {
    @usableFromInline var output: JSONOutput
    /// Whether the innermost open object has a field yet (a comma goes before the next). One flag is
    /// enough: an object that closes leaves its parent with a field written, the one it was the value of.
    @usableFromInline var hasField = false
    /// A number JSON cannot hold (NaN, infinity), kept to be thrown once writing is done.
    private(set) var invalidNumber: Double?

    init(capacity: Int = 1024) {
        output = JSONOutput(capacity: capacity)
    }

    /// `{`, the fields `body` writes, `}`.
    public mutating func object(_ body: (inout JSONWriter) -> Void) {
        output.bytes.append(UInt8(ascii: "{"))
        hasField = false
        body(&self)
        hasField = true
        output.bytes.append(UInt8(ascii: "}"))
    }

    /// The fields `body` writes, without braces: part of an object, written once to be put into many
    /// with `appendFields`.
    public static func fields(_ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        body(&writer)
        return writer.output.bytes.array
    }

    /// Fields written by `fields(_:)`, as if written here one by one.
    public mutating func appendFields(_ fields: [UInt8]) {
        guard !fields.isEmpty else { return }
        if hasField { output.bytes.append(UInt8(ascii: ",")) }
        fields.withUnsafeBufferPointer { output.bytes.append(contentsOf: $0) }
        hasField = true
    }

    public mutating func field(_ key: StaticString, _ value: String) { beginField(key); output.appendString(value) }
    public mutating func field(_ key: StaticString, _ value: Int) { beginField(key); output.appendDecimal(Int64(value)) }
    public mutating func field(_ key: StaticString, _ value: Int64) { beginField(key); output.appendDecimal(value) }
    public mutating func field(_ key: StaticString, _ value: Bool) { beginField(key); output.appendLiteral(value ? "true" : "false") }

    public mutating func field(_ key: StaticString, _ value: Double) {
        beginField(key)
        guard value.isFinite else {
            invalidNumber = invalidNumber ?? value
            return output.appendLiteral("null")
        }
        // JSONEncoder's form, as StreamingJSONEncoder writes it: the shortest, without ".0".
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.appendASCII(text)
    }

    // The generic ones are inlinable, so that they are specialized for each type where it is written.

    @inlinable
    public mutating func field(_ key: StaticString, _ value: some JSONWritable) {
        beginField(key)
        value.writeJSON(to: &self)
    }

    @inlinable
    public mutating func field(_ key: StaticString, _ values: [some JSONWritable]) {
        beginField(key)
        output.bytes.append(UInt8(ascii: "["))
        for index in values.indices {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            values[index].writeJSON(to: &self)
        }
        output.bytes.append(UInt8(ascii: "]"))
    }

    public mutating func field(_ key: StaticString, _ values: [String]) {
        beginField(key)
        output.bytes.append(UInt8(ascii: "["))
        for index in values.indices {
            if index > 0 { output.bytes.append(UInt8(ascii: ",")) }
            output.appendString(values[index])
        }
        output.bytes.append(UInt8(ascii: "]"))
    }

    /// An object of the dictionary's entries, in its iteration order, as `Dictionary`'s Encodable has it.
    public mutating func field(_ key: StaticString, _ entries: [String: String]) {
        beginField(key)
        output.bytes.append(UInt8(ascii: "{"))
        var first = true
        for (name, value) in entries {
            if !first { output.bytes.append(UInt8(ascii: ",")) }
            first = false
            output.appendString(name)
            output.bytes.append(UInt8(ascii: ":"))
            output.appendString(value)
        }
        output.bytes.append(UInt8(ascii: "}"))
    }

    // Nil leaves the field out, as synthesized Encodable does.
    public mutating func field(_ key: StaticString, _ value: String?) { if let value { field(key, value) } }
    public mutating func field(_ key: StaticString, _ value: Int?) { if let value { field(key, value) } }
    public mutating func field(_ key: StaticString, _ value: Int64?) { if let value { field(key, value) } }
    @inlinable
    public mutating func field(_ key: StaticString, _ value: (some JSONWritable)?) { if let value { field(key, value) } }
    @inlinable
    public mutating func field(_ key: StaticString, _ values: [some JSONWritable]?) { if let values { field(key, values) } }

    // Nil written as null: for fields every object has, such as a cover's colour.
    public mutating func nullableField(_ key: StaticString, _ value: String?) {
        guard let value else { beginField(key); return output.appendLiteral("null") }
        field(key, value)
    }
    public mutating func nullableField(_ key: StaticString, _ value: (some JSONWritable)?) {
        guard let value else { beginField(key); return output.appendLiteral("null") }
        field(key, value)
    }

    @usableFromInline
    mutating func beginField(_ key: StaticString) {
        output.appendLiteral(hasField ? ",\"" : "\"")
        hasField = true
        // Keys are Swift identifiers here: nothing to escape.
        output.appendLiteral(key)
        output.appendLiteral("\":")
    }
}

extension StreamingJSONEncoder {
    func write(_ value: some JSONWritable) throws -> [UInt8] {
        var writer = JSONWriter(capacity: value.expectedJSONSize)
        value.writeJSON(to: &writer)
        if let number = writer.invalidNumber {
            throw EncodingError.invalidValue(number, .init(codingPath: [], debugDescription: "\(number) is not a valid JSON number"))
        }
        return writer.output.bytes.array
    }
}
