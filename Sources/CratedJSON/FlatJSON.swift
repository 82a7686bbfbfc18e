/// Reads the small, flat JSON that crated writes itself: an object of string or integer values (grid
/// cursors), an array of strings (a format's descriptions), an object of strings (a copy's custom
/// fields). Anything else, nested values included, is nil: callers fall back to `JSONDecoder` or
/// refuse the input. JSONDecoder spent about 5% of a deep grid page's time on a cursor's hundred
/// bytes, and as much of an album page on its formats.
public enum FlatJSON {
    public enum Value: Equatable, Sendable {
        case string(String)
        case integer(Int64)
    }

    /// An object of string and integer values; nil for anything else, or a key given twice.
    public static func object(_ bytes: [UInt8]) -> [String: Value]? {
        var parser = Parser(bytes: bytes)
        guard let object = parser.object(), parser.atEnd else { return nil }
        return object
    }

    /// An object of string values only.
    public static func stringObject(_ text: String) -> [String: String]? {
        guard let object = object(Array(text.utf8)) else { return nil }
        var strings: [String: String] = [:]
        for (key, value) in object {
            guard case .string(let string) = value else { return nil }
            strings[key] = string
        }
        return strings
    }

    /// An array of strings.
    public static func stringArray(_ text: String) -> [String]? {
        var parser = Parser(bytes: Array(text.utf8))
        guard let array = parser.stringArray(), parser.atEnd else { return nil }
        return array
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool {
            mutating get { skipSpace(); return index == bytes.count }
        }

        mutating func stringArray() -> [String]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var strings: [String] = []
            if take(UInt8(ascii: "]")) { return strings }
            repeat {
                guard let string = string() else { return nil }
                strings.append(string)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? strings : nil
        }

        mutating func object() -> [String: Value]? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var fields: [String: Value] = [:]
            if take(UInt8(ascii: "}")) { return fields }
            repeat {
                guard let key = string(), take(UInt8(ascii: ":")), let value = value(), fields[key] == nil else { return nil }
                fields[key] = value
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}")) ? fields : nil
        }

        private mutating func value() -> Value? {
            skipSpace()
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "\"") { return string().map(Value.string) }
            return integer().map(Value.integer)
        }

        private mutating func integer() -> Int64? {
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            var value: Int64 = 0
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                let digit = Int64(bytes[index] - UInt8(ascii: "0"))
                let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (next, overflow2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                guard !overflow1, !overflow2 else { return nil }
                value = next
                index += 1
            }
            return index > start ? value : nil
        }

        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            // Most strings have no escape: made straight from their bytes.
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
                index += 1
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return String(validating: bytes[start..<index - 1], as: UTF8.self)
            }
            var utf8 = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(validating: utf8, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                    case UInt8(ascii: "b"): utf8.append(0x08)
                    case UInt8(ascii: "f"): utf8.append(0x0C)
                    case UInt8(ascii: "n"): utf8.append(0x0A)
                    case UInt8(ascii: "r"): utf8.append(0x0D)
                    case UInt8(ascii: "t"): utf8.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        utf8.append(contentsOf: String(Character(scalar)).utf8)
                    default: return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    utf8.append(byte)
                }
            }
            return nil
        }

        /// The scalar of `\uXXXX`, or of a surrogate pair `\uD8xx\uDCxx`; the `\u` is already read.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(high) {
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for byte in bytes[index..<index + 4] {
                guard let digit = UInt32(String(UnicodeScalar(byte)), radix: 16) else { return nil }
                value = value << 4 | digit
            }
            index += 4
            return value
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D {
                index += 1
            }
        }
    }
}
