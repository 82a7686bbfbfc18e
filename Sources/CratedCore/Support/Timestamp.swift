import Foundation

/// RFC 3339 timestamps in UTC, the one form crated stores and sends.
public enum Timestamp {
    public static func now() -> String { string(from: Date()) }

    /// Dates past the years 0 to 9999 (a wait added that no host meant) are written as the nearest of them.
    public static func string(from date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return string(fromEpochSeconds: 0) }
        return string(fromEpochSeconds: Int64(min(max(seconds, -62_167_219_200), 253_402_300_799)))
    }

    /// Formats whole seconds since 1970 without Foundation's calendar machinery: every imported copy
    /// and every logged request. Years 0 to 9999 are written digit by digit into the string's own
    /// storage; others (no real date) take the general way.
    public static func string(fromEpochSeconds seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.fromDays(days)
        guard (0...9999).contains(year) else { return paddedString(fromEpochSeconds: seconds) }
        return String(unsafeUninitializedCapacity: 20) { buffer in
            func put(_ value: Int64, width: Int, at offset: Int) {
                var value = value
                for index in (offset..<offset + width).reversed() {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, width: 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(month, width: 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(day, width: 2, at: 8)
            buffer[10] = UInt8(ascii: "T")
            put(secondOfDay / 3600, width: 2, at: 11)
            buffer[13] = UInt8(ascii: ":")
            put(secondOfDay / 60 % 60, width: 2, at: 14)
            buffer[16] = UInt8(ascii: ":")
            put(secondOfDay % 60, width: 2, at: 17)
            buffer[19] = UInt8(ascii: "Z")
            return 20
        }
    }

    /// The general way, for any year: each part padded to its width.
    static func paddedString(fromEpochSeconds seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.fromDays(days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))Z"
    }

    public static func date(from string: String) -> Date? {
        try? Date(string, strategy: .iso8601)
    }
}

/// Days since 1970-01-01 to and from proleptic Gregorian dates (Howard Hinnant's algorithms).
enum CivilDate {
    static func toDays(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func fromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
