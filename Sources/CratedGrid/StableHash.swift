/// FNV-1a, 64 bits: a hash that is the same in every process and release (Swift's `Hasher` is seeded
/// per process), for query fingerprints, cursor checksums and ETags. Not a cryptographic hash.
struct StableHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
    }

    mutating func combine(_ text: String) {
        combine(text.utf8)
        // A separator (never in UTF-8), so that ("ab", "c") and ("a", "bc") differ.
        combine(CollectionOfOne(0xff))
    }

    mutating func combine(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { combine($0) }
    }

    mutating func combine(_ number: Int) { combine(Int64(number)) }

    mutating func combine(_ number: Double) { combine(Int64(bitPattern: number.bitPattern)) }

    /// A marker for absent or present, then the value: nil and every value differ.
    mutating func combine<Value>(_ optional: Value?, _ combineValue: (inout StableHash, Value) -> Void) {
        combine(optional == nil ? 0 : 1)
        if let optional { combineValue(&self, optional) }
    }

    /// 16 lowercase hex digits.
    var hex: String { Self.hex(value) }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    static func hex(of parts: String...) -> String { hex(of: parts) }

    static func hex(of parts: [String]) -> String {
        var hash = StableHash()
        for part in parts { hash.combine(part) }
        return hash.hex
    }
}

/// A 64-bit hash that is the same in every process and release, for ETags: it takes text eight bytes
/// at a time, where FNV-1a's multiply per byte made hashing a grid page's few kilobytes cost as much
/// as encoding them. Not a cryptographic hash; nothing depends on its values but ETags, which change
/// with it (their prefix names the version).
struct ContentHash {
    private(set) var value: UInt64 = 0x243f_6a88_85a3_08d3

    private mutating func mix(_ word: UInt64) {
        value = (value ^ word) &* 0x9e37_79b9_7f4a_7c15
        value ^= value >> 29
    }

    mutating func combine(_ number: Int64) { mix(UInt64(bitPattern: number)) }

    mutating func combine(_ number: Int) { mix(UInt64(bitPattern: Int64(number))) }

    mutating func combine(_ number: Double) { mix(number.bitPattern) }

    /// The bytes, then their count: ("ab", "c") and ("a", "bc") differ.
    mutating func combine(_ text: String) {
        let hashed = text.utf8.withContiguousStorageIfAvailable { bytes in
            combine(UnsafeRawBufferPointer(bytes))
            return true
        }
        if hashed == nil { Array(text.utf8).withUnsafeBytes { combine($0) } }
    }

    /// A marker for absent or present, then the value: nil and every value differ.
    mutating func combine<Value>(_ optional: Value?, _ combineValue: (inout ContentHash, Value) -> Void) {
        mix(optional == nil ? 0 : 1)
        if let optional { combineValue(&self, optional) }
    }

    mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset + 8 <= bytes.count {
            mix(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        var tail: UInt64 = 0
        for index in offset..<bytes.count { tail |= UInt64(bytes[index]) << (8 * UInt64(index - offset)) }
        mix(tail)
        mix(UInt64(bytes.count))
    }

    /// 16 lowercase hex digits.
    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
