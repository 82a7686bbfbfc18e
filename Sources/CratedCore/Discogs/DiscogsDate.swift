/// Parses the `Date Added` column: Discogs writes `YYYY-MM-DD HH:MM:SS` (no zone; taken as UTC), and
/// files re-saved by a spreadsheet carry other forms, all accepted here:
/// `YYYY-MM-DD HH:MM`, `YYYY-MM-DDTHH:MM:SS[Z]`, `YYYY-MM-DD`, `DD/MM/YYYY HH:MM[:SS]`,
/// `MM/DD/YYYY ...` when the day cannot be a month, `DD.MM.YYYY HH:MM[:SS]`.
/// A slashed date whose first two numbers could both be a month (`03/04/2023`) is read day first
/// unless the caller says otherwise: the import decides once per file (`SlashedForm`).
public enum DiscogsDate {
    /// How much of the time a text gives: Discogs writes seconds; a spreadsheet may drop them, or the
    /// whole time.
    public enum Precision: Sendable, Equatable {
        case second, minute, day

        /// The seconds a text of this precision could mean, from the time it is read as.
        public var span: Int64 {
            switch self {
            case .second: 1
            case .minute: 60
            case .day: 86_400
            }
        }
    }

    public struct Parsed: Sendable, Equatable {
        /// Seconds since 1970 (UTC); the start of the minute or day when the text gives no more.
        public var seconds: Int64
        public var precision: Precision
    }

    /// Which orders of day and month a slashed date allows.
    public enum SlashedForm: Sendable, Equatable {
        case dayFirstOnly, monthFirstOnly, either
    }

    /// Seconds since 1970 (UTC), or nil when the text is not a date crated can read.
    public static func epochSeconds(_ text: String, monthFirst: Bool = false) -> Int64? {
        parse(text, monthFirst: monthFirst)?.seconds
    }

    /// The date and how precise it is. `monthFirst` reads a slashed date that allows both orders
    /// month first; one that allows a single order is read that way.
    public static func parse(_ text: String, monthFirst: Bool = false) -> Parsed? {
        var text = text
        return text.withUTF8 { parse(utf8: $0, monthFirst: monthFirst)?.parsed }
    }

    /// The orders a valid slashed date allows; nil for any other text, valid or not.
    public static func slashedForm(_ text: String) -> SlashedForm? {
        var text = text
        return text.withUTF8 { parse(utf8: $0, monthFirst: false)?.slashed }
    }

    /// Up to six numbers and the separator after each (a date and a time). Fixed storage: one date
    /// per imported row, and arrays cost an allocation each.
    private struct Parts {
        var numbers: (Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0)
        var separators: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        var count = 0
        var separatorCount = 0

        func number(_ index: Int) -> Int64 {
            withUnsafeBytes(of: numbers) { $0.load(fromByteOffset: index * MemoryLayout<Int64>.stride, as: Int64.self) }
        }

        func separator(_ index: Int) -> UInt8 {
            withUnsafeBytes(of: separators) { $0[index] }
        }

        /// False when there would be a seventh number: no accepted form has one.
        mutating func append(_ number: Int64) -> Bool {
            guard count < 6 else { return false }
            withUnsafeMutableBytes(of: &numbers) { $0.storeBytes(of: number, toByteOffset: count * MemoryLayout<Int64>.stride, as: Int64.self) }
            count += 1
            return true
        }

        mutating func appendSeparator(_ byte: UInt8) {
            withUnsafeMutableBytes(of: &separators) { $0[separatorCount] = byte }
            separatorCount += 1
        }
    }

    private static func parse(utf8 untrimmed: UnsafeBufferPointer<UInt8>, monthFirst: Bool) -> (parsed: Parsed, slashed: SlashedForm?)? {
        // Spaces and tabs around the text are ignored (as `trimmedSpaces` drops them).
        var first = 0, end = untrimmed.count
        while first < end, untrimmed[first] == 0x20 || untrimmed[first] == 0x09 { first += 1 }
        while end > first, untrimmed[end - 1] == 0x20 || untrimmed[end - 1] == 0x09 { end -= 1 }
        var parts = Parts()
        var current: Int64 = -1
        var digits = 0
        for byte in untrimmed[first..<end] {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                current = (current < 0 ? 0 : current) * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
                if digits > 4 { return nil }
            } else {
                guard current >= 0, parts.append(current) else { return nil }
                parts.appendSeparator(byte)
                current = -1
                digits = 0
            }
        }
        if current >= 0 {
            guard parts.append(current) else { return nil }
        } else if parts.count > 0 {
            parts.separatorCount -= 1
        }
        if parts.separatorCount > 0 && parts.separator(parts.separatorCount - 1) == UInt8(ascii: "Z") { parts.separatorCount -= 1 }
        guard parts.count >= 3 else { return nil }

        var year: Int64, month: Int64, day: Int64
        var slashed: SlashedForm?
        let firstSeparator = parts.separatorCount > 0 ? parts.separator(0) : 0
        switch firstSeparator {
        case UInt8(ascii: "-"):
            guard parts.separatorCount >= 2, parts.separator(1) == UInt8(ascii: "-") else { return nil }
            (year, month, day) = (parts.number(0), parts.number(1), parts.number(2))
        case UInt8(ascii: "/"), UInt8(ascii: "."):
            guard parts.separatorCount >= 2, parts.separator(1) == firstSeparator else { return nil }
            (day, month, year) = (parts.number(0), parts.number(1), parts.number(2))
            if firstSeparator == UInt8(ascii: "/") {
                let form: SlashedForm = day > 12 ? .dayFirstOnly : (month > 12 ? .monthFirstOnly : .either)
                if form == .monthFirstOnly || (form == .either && monthFirst) { swap(&day, &month) }
                slashed = form
            }
        default:
            return nil
        }
        guard (1000...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }

        let timeCount = parts.count - 3
        var time: (hour: Int64, minute: Int64, second: Int64) = (0, 0, 0)
        if timeCount > 0 {
            guard parts.separator(2) == UInt8(ascii: " ") || parts.separator(2) == UInt8(ascii: "T"), timeCount >= 2 else { return nil }
            for index in 3..<parts.separatorCount where parts.separator(index) != UInt8(ascii: ":") { return nil }
            time = (parts.number(3), parts.number(4), timeCount == 3 ? parts.number(5) : 0)
        }
        guard time.hour < 24, time.minute < 60, time.second < 60 else { return nil }
        let seconds = CivilDate.toDays(year: year, month: month, day: day) * 86_400 + time.hour * 3600 + time.minute * 60 + time.second
        let precision: Precision = timeCount == 3 ? .second : (timeCount == 2 ? .minute : .day)
        return (Parsed(seconds: seconds, precision: precision), slashed)
    }
}
