import Foundation

/// `If-None-Match` against a strong ETag, for the grid pages and the artwork route alike.
public enum ETagMatch {
    /// Whether `header` (a tag, a comma-separated list or `*`) names `etag`, weakly or strongly.
    /// Swift OpenAPI clients percent-encode header values, so `%22g4-ab%22` (and `%2C` between
    /// tags) counts as `"g4-ab"`.
    public static func matches(ifNoneMatch header: String, etag: String) -> Bool {
        let decoded = header.replacingOccurrences(of: "%22", with: "\"").replacingOccurrences(of: "%2C", with: ",")
            .replacingOccurrences(of: "%2c", with: ",")
        return decoded.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
