import Foundation

/// How Discogs writes names, credits, formats and labels, and crated's display and sort forms of them.
public enum DiscogsText {
    /// Removes Discogs disambiguation suffixes: `Casey (2)` is shown as `Casey`, also inside a credit
    /// (`Casey (2) & Bob (14)` -> `Casey & Bob`).
    public static func displayName(_ discogsName: String) -> String {
        guard discogsName.contains(" (") else { return discogsName }
        var result = ""
        result.reserveCapacity(discogsName.utf8.count)
        var scalars = Substring(discogsName)
        while let open = scalars.range(of: " (") {
            result += scalars[..<open.lowerBound]
            let afterOpen = scalars[open.upperBound...]
            let digits = afterOpen.prefix { $0.isASCII && $0.isNumber }
            let rest = afterOpen.dropFirst(digits.count)
            if !digits.isEmpty, rest.first == ")" {
                scalars = rest.dropFirst()
            } else {
                result += " ("
                scalars = afterOpen
            }
        }
        result += scalars
        return result
    }

    /// The key crated sorts names and titles by: diacritics folded, lowercased, a leading English
    /// article dropped (`The Beatles` sorts under `beatles`), surrounding spaces trimmed.
    public static func sortKey(_ text: String) -> String {
        var folded = fold(text).trimmedSpaces
        for article in ["the ", "a ", "an "] where folded.hasPrefix(article) && folded.count > article.count {
            folded.removeFirst(article.count)
            break
        }
        return folded
    }

    /// Diacritics folded and lowercased (`Déjà Vu` -> `deja vu`), for sorting and search.
    public static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
    }

    /// Splits a `Label` or `Catalog#` cell (values joined by `, `) into trimmed values.
    public static func splitList(_ cell: String) -> [String] {
        cell.split(onASCII: ", ").map(\.trimmedSpaces).filter { !$0.isEmpty }
    }

    /// Pairs the `Label` and `Catalog#` cells of an export row. Discogs joins the values of each with
    /// `, ` and writes `none` for a missing catalogue number; when the counts differ the pairing is
    /// unknown, so every label keeps the whole catalogue cell rather than a guessed part of it.
    public static func labels(label: String, catalogNumbers: String) -> [(name: String, catalogNumber: String?)] {
        let names = splitList(label)
        let numbers = splitList(catalogNumbers).map { $0.lowercased() == "none" ? nil : $0 }
        if names.isEmpty { return [] }
        if numbers.count == names.count {
            return zip(names, numbers).map { ($0, $1) }
        }
        // `SD 1361, none` for one label: the `none` belongs to a label entry the export merged away.
        let known = numbers.compactMap { $0 }
        if known.count == names.count {
            return zip(names, known).map { ($0, $1) }
        }
        let whole = catalogNumbers.trimmedSpaces
        let shared: String? = numbers.count == 1 ? numbers[0] : (whole.isEmpty || whole.lowercased() == "none" ? nil : whole)
        return names.map { ($0, shared) }
    }

    public struct Format: Equatable, Sendable {
        public var name: String
        public var quantity: Int
        public var descriptions: [String]
    }

    /// Parses the export's abbreviated `Format` cell: `2xLP, Album, RE + CD, Album` is two formats.
    public static func formats(_ cell: String) -> [Format] {
        cell.split(onASCII: " + ").compactMap { part in
            var pieces = part.split(onASCII: ", ").map(\.trimmedSpaces)
            pieces.removeAll { $0.isEmpty }
            guard !pieces.isEmpty else { return nil }
            var name = pieces.removeFirst()
            var quantity = 1
            if let x = name.firstIndex(of: "x"), let count = Int(name[..<x]), count > 0, name.index(after: x) < name.endIndex {
                quantity = count
                name = String(name[name.index(after: x)...])
            }
            return Format(name: name, quantity: quantity, descriptions: pieces)
        }
    }
}
