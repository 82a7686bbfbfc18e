import Foundation

extension StringProtocol {
    /// `trimmingCharacters(in: set)` for a set of blanks (`.whitespaces`, `.whitespacesAndNewlines`),
    /// skipping Foundation when neither end is blank, which is nearly always so for what Discogs
    /// sends: on Linux each call goes through NSString and cost more than the rest of a release's
    /// mapping. Both sets lie within Unicode's White_Space, so an end outside it trims nothing.
    func trimmed(_ set: CharacterSet = .whitespaces) -> String {
        guard let first = unicodeScalars.first, let last = unicodeScalars.last else { return "" }
        if first.properties.isWhitespace || last.properties.isWhitespace { return trimmingCharacters(in: set) }
        return String(self)
    }
}
