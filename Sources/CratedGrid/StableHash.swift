/// A 64-bit hash that is the same in every process and release (Swift's `Hasher` is seeded per
/// process), for query fingerprints, cursor checksums and ETags. It takes text eight bytes at a time:
/// hashing a grid page's few kilobytes must cost little next to encoding them. Not a cryptographic
/// hash: a cursor's checksum catches alterations and mistakes, not forgeries.
struct StableHash {
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
    mutating func combine<Value>(_ optional: Value?, _ combineValue: (inout StableHash, Value) -> Void) {
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
    var hex: String { Self.hex(value) }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The hash of the texts, one after the other, in hex.
    static func hex(of parts: String...) -> String {
        var hash = StableHash()
        for part in parts { hash.combine(part) }
        return hash.hex
    }
}
