/// How a sort's keys fall into the jump bar's sections, and where the next section's keys begin, so
/// that a large grid finds each section's first album with one index seek.
enum SectionScheme {
    /// Artist and title: the key's first letter (`GridSection` letters).
    case initial
    /// Year: the decade (`1970s`); unknown years are `?`, last.
    case decade
    /// Date added, newest first: the year the copy was added (`2024`).
    case yearAdded
    /// Rating, best first: the stars (`5` to `1`); unrated albums are `?`, last.
    case stars

    init?(_ sort: GridSort) {
        switch sort {
        case .artist, .title: self = .initial
        case .year: self = .decade
        case .dateAdded: self = .yearAdded
        case .rating: self = .stars
        case .crate: return nil
        }
    }

    /// What the jump bar shows for the section `key` is in.
    func label(_ key: SortKey) -> String {
        switch (self, key) {
        case (.initial, _): Self.letter(key)
        case (.decade, .integer(let year)): GridFilters.yearRange.contains(Int(year)) ? "\(year / 10 * 10)s" : "?"
        case (.yearAdded, .text(let date)): date.count >= 4 && date.prefix(4).allSatisfy(\.isASCIIDigit) ? String(date.prefix(4)) : "?"
        case (.stars, .integer(let stars)): stars > 0 ? "\(stars)" : "?"
        default: "?"
        }
    }

    /// A key between the section of `key` and the next one in grid order: the next section's keys
    /// are at least it in an ascending sort, and below it in a descending one (see
    /// `GridSQL.firstAnchorStatement(pastSectionBound:)`). Nil when no later key is in another section.
    func nextSectionBound(after key: SortKey) -> SortKey? {
        switch (self, key) {
        case (.initial, .text(let text)):
            guard let initial = text.unicodeScalars.first else { return .text("\u{1}") }  // past the empty key
            // Past Cyrillic every initial is a `#`.
            guard initial.value < Self.lettersEnd else { return nil }
            return .text(String(Character(Unicode.Scalar(initial.value + 1)!)))
        case (.decade, .integer(let year)):
            return GridFilters.yearRange.contains(Int(year)) ? .integer((year / 10 + 1) * 10) : nil
        case (.yearAdded, .text(let date)):
            // Every key of a year sorts at or after the year alone (`2024` < `2024-05-01T…`). A key
            // that is no date (none is, as crated writes them) is its own bound.
            return .text(label(key) == "?" ? date : String(date.prefix(4)))
        case (.stars, .integer(let stars)):
            return stars > 0 ? .integer(stars) : nil
        default:
            return nil
        }
    }

    /// The jump bar's letters: `A`...`Z` for keys starting with a Latin letter (sort keys are folded,
    /// so `É` is under E), the capital of a letter of the other cased alphabets up to Cyrillic (`Ω`,
    /// `К`), `#` for digits, symbols and other scripts.
    static func letter(_ key: SortKey) -> String {
        guard case .text(let text) = key, let initial = text.unicodeScalars.first,
              initial.value < lettersEnd, initial.properties.isAlphabetic else { return "#" }
        // A letter with a capital of its own: Latin, Greek, Cyrillic (not `ß`, whose capital is two).
        let capital = String(initial).uppercased()
        if initial.isASCII || (capital.unicodeScalars.count == 1 && capital != String(initial)) { return capital }
        return "#"
    }

    /// Where the alphabets that have letters of their own in the jump bar end: after Cyrillic, so
    /// that a Russian or Greek collection can be jumped through; other scripts are `#`.
    private static let lettersEnd: UInt32 = 0x0530
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
