/// Parses the `Date Added` column: Discogs writes `YYYY-MM-DD HH:MM:SS` (no zone; taken as UTC), and
/// files re-saved by a spreadsheet carry other forms, all accepted here:
/// `YYYY-MM-DD HH:MM`, `YYYY-MM-DDTHH:MM:SS[Z]`, `YYYY-MM-DD`, `DD/MM/YYYY HH:MM[:SS]`,
/// `MM/DD/YYYY ...` when the day cannot be a month, `DD.MM.YYYY HH:MM[:SS]`.
/// A slashed date whose first two numbers could both be a month (`03/04/2023`) is read day first,
/// as spreadsheets outside the US write it and as Discogs users' re-saved files show.
public enum DiscogsDate {
    /// Seconds since 1970 (UTC), or nil when the text is not a date crated can read.
    public static func epochSeconds(_ text: String) -> Int64? {
        var numbers: [Int64] = []
        var separators: [UInt8] = []
        numbers.reserveCapacity(6)
        separators.reserveCapacity(6)
        var current: Int64 = -1
        var digits = 0
        for byte in text.trimmedSpaces.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                current = (current < 0 ? 0 : current) * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
                if digits > 4 { return nil }
            } else {
                guard current >= 0 else { return nil }
                numbers.append(current)
                separators.append(byte)
                current = -1
                digits = 0
            }
        }
        if current >= 0 { numbers.append(current) } else if !numbers.isEmpty { separators.removeLast() }
        if separators.last == UInt8(ascii: "Z") { separators.removeLast() }
        guard numbers.count >= 3 else { return nil }

        var year: Int64, month: Int64, day: Int64
        switch separators.first {
        case UInt8(ascii: "-"):
            guard separators.count >= 2, separators[1] == UInt8(ascii: "-") else { return nil }
            (year, month, day) = (numbers[0], numbers[1], numbers[2])
        case UInt8(ascii: "/"), UInt8(ascii: "."):
            guard separators.count >= 2, separators[1] == separators[0] else { return nil }
            (day, month, year) = (numbers[0], numbers[1], numbers[2])
            if separators[0] == UInt8(ascii: "/") && month > 12 && day <= 12 { swap(&day, &month) }
        default:
            return nil
        }
        guard (1000...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= CivilDate.daysInMonth(year: year, month: month) else { return nil }

        let time = numbers.dropFirst(3)
        guard time.count <= 3 else { return nil }
        if !time.isEmpty {
            let timeSeparators = separators.dropFirst(3)
            guard separators[2] == UInt8(ascii: " ") || separators[2] == UInt8(ascii: "T"),
                  timeSeparators.allSatisfy({ $0 == UInt8(ascii: ":") }), time.count >= 2 else { return nil }
        }
        let parts = Array(time) + Array(repeating: 0, count: 3 - time.count)
        let (hour, minute, second) = (parts[0], parts[1], parts[2])
        guard hour < 24, minute < 60, second < 60 else { return nil }
        return CivilDate.toDays(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }
}
