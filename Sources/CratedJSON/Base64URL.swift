/// base64url without padding (RFC 4648, section 5), the cursor's wire form.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in the alphabet; 0xff for a byte that is not in it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xff, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        return values
    }()

    /// The bytes of `text`; nil when it holds anything but the alphabet, padding included, or when
    /// its length or its last character could not have been written by `encode`.
    public static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var group: UInt32 = 0
        for (index, character) in characters.enumerated() {
            let value = values[Int(character)]
            guard value != 0xff else { return nil }
            group = group << 6 | UInt32(value)
            if index % 4 == 3 {
                bytes.append(UInt8(truncatingIfNeeded: group >> 16))
                bytes.append(UInt8(truncatingIfNeeded: group >> 8))
                bytes.append(UInt8(truncatingIfNeeded: group))
                group = 0
            }
        }
        // A last group of 2 or 3 characters holds 1 or 2 bytes; the bits left over must be zero.
        switch characters.count % 4 {
        case 2:
            guard group & 0xf == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:
            guard group & 0x3 == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 10))
            bytes.append(UInt8(truncatingIfNeeded: group >> 2))
        default: break
        }
        return bytes
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { output in
            var written = 0
            func put(_ sextet: UInt32) {
                output[written] = alphabet[Int(sextet & 0x3f)]
                written += 1
            }
            var index = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                put(group >> 18); put(group >> 12); put(group >> 6); put(group)
                index += 3
            }
            switch bytes.count - index {
            case 1:
                let group = UInt32(bytes[index]) << 16
                put(group >> 18); put(group >> 12)
            case 2:
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                put(group >> 18); put(group >> 12); put(group >> 6)
            default: break
            }
            return written
        }
    }
}
