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
    var hex: String {
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
