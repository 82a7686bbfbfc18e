import Foundation

/// A `Retry-After` header's wait: delay seconds, or an HTTP date (RFC 9110) from `now`.
public enum RetryAfter {
    /// The longest wait taken from a header: a day. Anything longer is a broken header (a proxy's),
    /// and a wait of `Int.max` seconds overflows every date and count made from it.
    public static let longest: Duration = .seconds(86_400)

    public static func wait(_ value: String?, now: Date) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return .seconds(min(max(0, seconds), Int(longest.components.seconds))) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return .seconds(min(max(0, date.timeIntervalSince(now).rounded(.up)), Double(longest.components.seconds)))
    }
}
