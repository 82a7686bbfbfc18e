import CratedJSON
import Foundation
import GRDB

/// How Discogs writes names, credits, formats and labels, and crated's display and sort forms of them.
///
/// The import calls these for every row. Text that is all ASCII, most of an export, takes byte-level
/// paths that give what the general (Character and Foundation) ones give for it; any other text takes
/// the general ones.
public enum DiscogsText {
    /// Removes Discogs disambiguation suffixes: `Casey (2)` is shown as `Casey`, also inside a credit
    /// (`Casey (2) & Bob (14)` -> `Casey & Bob`).
    public static func displayName(_ discogsName: String) -> String {
        // No " (" bytes: nothing to remove (the search below could not match either).
        guard discogsName.utf8.containsSpaceParenthesis else { return discogsName }
        if discogsName.utf8.isASCII { return asciiDisplayName(discogsName) }
        return generalDisplayName(discogsName)
    }

    /// `displayName` over Characters, for any text.
    static func generalDisplayName(_ discogsName: String) -> String {
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

    /// `displayName` over bytes: in ASCII text every byte is a Character (CR LF aside, which never
    /// touches " (", a digit or ")"), so byte and Character matching agree.
    private static func asciiDisplayName(_ name: String) -> String {
        var name = name
        return name.withUTF8 { bytes in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var rest = 0
            var index = 0
            while index + 1 < bytes.count {
                guard bytes[index] == 0x20, bytes[index + 1] == 0x28 else { index += 1; continue }
                result.append(contentsOf: bytes[rest..<index])
                let afterOpen = index + 2
                var end = afterOpen
                while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 { end += 1 }
                if end > afterOpen, end < bytes.count, bytes[end] == 0x29 {
                    rest = end + 1
                } else {
                    result.append(0x20)
                    result.append(0x28)
                    rest = afterOpen
                }
                index = rest
            }
            result.append(contentsOf: bytes[rest...])
            return String(decoding: result, as: UTF8.self)
        }
    }

    /// The key crated sorts names and titles by: letters spelled out as search spells them
    /// (`Chœur` sorts with `choeur`), diacritics folded, lowercased, leading punctuation dropped
    /// (`'Allelujah!`, `»Eroica«` and `...And Justice` sort by their first word), a leading English
    /// article dropped (`The Beatles` sorts under `beatles`), surrounding spaces trimmed. Text of
    /// punctuation alone (`!!!`) keeps it. Numbers sort by value (`numbersByValue`).
    public static func sortKey(_ text: String) -> String {
        numbersByValue(lettersFirstKey(controlsAsSpaces(text)))
    }

    /// Control characters as spaces: the grid's artist key joins sort keys with U+001F
    /// (`GridKey.artist`), which must sort before anything a key holds.
    private static func controlsAsSpaces(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 }) else { return text }
        return String(decoding: text.utf8.map { $0 < 0x20 ? 0x20 : $0 }, as: UTF8.self)
    }

    private static func lettersFirstKey(_ text: String) -> String {
        let folded = fold(SearchText.spelledOut(text)).trimmedSpaces
        if folded.utf8.isASCII {
            // Bytes are Characters here (see `asciiDisplayName`): the same tests and cuts as below.
            let bytes = folded.utf8
            let start = bytes.firstIndex { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) } ?? bytes.startIndex
            let key = start == bytes.startIndex ? folded : String(folded[start...])
            for article in ["the ", "a ", "an "] where key.utf8.starts(with: article.utf8) && key.utf8.count > article.utf8.count {
                return String(key.dropFirst(article.count))
            }
            return key
        }
        var key = Substring(folded)
        if let start = key.firstIndex(where: { $0.isLetter || $0.isNumber }) { key = key[start...] }
        for article in ["the ", "a ", "an "] where key.hasPrefix(article) && key.count > article.count {
            return String(key.dropFirst(article.count))
        }
        return String(key)
    }

    /// Each run of digits led by its length, leading zeros dropped (`2` -> `12`, `10` -> `210`), so
    /// that `Vol. 2` sorts before `Vol. 10` and `2 Unlimited` before `10cc`. A length of 9 or more is
    /// written `9` and two digits (`909`, `910`, up to `999`), so that it still sorts after 8.
    static func numbersByValue(_ key: String) -> String {
        let bytes = Array(key.utf8)
        guard bytes.contains(where: isDigit) else { return key }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 4)
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]) else {
                result.append(bytes[index])
                index += 1
                continue
            }
            var end = index
            while end < bytes.count, isDigit(bytes[end]) { end += 1 }
            var start = index
            while start < end - 1, bytes[start] == 0x30 { start += 1 }
            let length = end - start
            if length < 9 {
                result.append(0x30 + UInt8(length))
            } else {
                let capped = min(length, 99)
                result.append(contentsOf: [0x39, 0x30 + UInt8(capped / 10), 0x30 + UInt8(capped % 10)])
            }
            result.append(contentsOf: bytes[start..<end])
            index = end
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// `displayName` as the SQL function `crated_display_name(name)`, for migration 0020, which
    /// takes the suffixes off the label names imports stored before `labels` did.
    static let displayNameSQLFunction = DatabaseFunction("crated_display_name", argumentCount: 1, pure: true) { values in
        guard let name = String.fromDatabaseValue(values[0]) else { return values[0] }
        return displayName(name)
    }

    /// `sortKey` as the SQL function `crated_sort_key(text)`, for migrations 0018 and 0028.
    static let sortKeySQLFunction = DatabaseFunction("crated_sort_key", argumentCount: 1, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return values[0] }
        return sortKey(text)
    }

    /// Diacritics folded and lowercased (`Déjà Vu` -> `deja vu`), for sorting and search.
    public static func fold(_ text: String) -> String {
        if text.utf8.isASCII { return asciiLowercased(text) }
        return text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
    }

    /// `lowercased()` of ASCII text, without a copy when it has no capital.
    private static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
        return String(unsafeUninitializedCapacity: text.utf8.count) { buffer in
            for (offset, byte) in text.utf8.enumerated() {
                buffer[offset] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return text.utf8.count
        }
    }

    /// Splits a `Label` or `Catalog#` cell (values joined by `, `) into trimmed values.
    public static func splitList(_ cell: String) -> [String] {
        cell.split(onASCII: ", ").map(\.trimmedSpaces).filter { !$0.isEmpty }
    }

    /// Whether a catalogue number is Discogs' `none`, in any case (only ASCII letters lowercase to
    /// those of `none`).
    private static func isNone(_ text: String) -> Bool {
        let bytes = text.utf8
        guard bytes.count == 4 else { return false }
        return zip(bytes, "none".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// Pairs the `Label` and `Catalog#` cells of an export row. Discogs joins the values of each with
    /// `, ` and writes `none` for a missing catalogue number; when the counts differ the pairing is
    /// unknown, so every label keeps the whole catalogue cell rather than a guessed part of it.
    /// Names come as shown (`displayName`: `Mondo (3)` is `Mondo`), as sync stores the API's.
    public static func labels(label: String, catalogNumbers: String) -> [(name: String, catalogNumber: String?)] {
        // One label and at most one number, as most rows have: what the general way gives them.
        if !label.utf8.containsCommaSpace && !catalogNumbers.utf8.containsCommaSpace {
            let name = displayName(label.trimmedSpaces)
            if name.isEmpty { return [] }
            let number = catalogNumbers.trimmedSpaces
            return [(name, number.isEmpty || isNone(number) ? nil : number)]
        }
        let names = splitList(label).map(displayName)
        if names.isEmpty { return [] }
        let numbers = splitList(catalogNumbers).map { isNone($0) ? nil : $0 }
        if numbers.count == names.count {
            return zip(names, numbers).map { ($0, $1) }
        }
        // `SD 1361, none` for one label: the `none` belongs to a label entry the export merged away.
        let known = numbers.compactMap { $0 }
        if known.count == names.count {
            return zip(names, known).map { ($0, $1) }
        }
        let whole = catalogNumbers.trimmedSpaces
        let shared: String? = numbers.count == 1 ? numbers[0] : (whole.isEmpty || isNone(whole) ? nil : whole)
        return names.map { ($0, shared) }
    }

    public struct Format: Equatable, Sendable {
        public var name: String
        public var quantity: Int
        public var descriptions: [String]
    }

    /// Parses the export's abbreviated `Format` cell into formats named as the API names them, so
    /// that an album's formats read (and filter) alike before and after its release syncs:
    /// `2xLP, Album, RE + CD, Album` is Vinyl x2 [LP, Album, RE] and CD [Album].
    public static func formats(_ cell: String) -> [Format] {
        var parts = cell.split(onASCII: " + ").map { part in
            part.split(onASCII: ", ").map(\.trimmedSpaces).filter { !$0.isEmpty }
        }
        // The export cuts the cell at 50 characters: `... + Box, Dl` is a Box Set described `Dl(x)`.
        // Bytes first: counting Characters walks the whole cell, and most cells are short.
        if cell.utf8.count >= formatCellLength, cell.count >= formatCellLength, let last = parts.last?.last, !isWholeFormatPiece(last) {
            parts[parts.count - 1].removeLast()
        }
        return parts.compactMap { part in
            var pieces = part.filter { !isCutFreeText($0) }
            guard !pieces.isEmpty else { return nil }
            let (quantity, name) = quantityAndName(pieces.removeFirst())
            let named = apiFormatName(name)
            return Format(name: named.name, quantity: quantity, descriptions: named.nameIsDescription ? [name] + pieces : pieces)
        }
    }

    /// `2xLP` is 2 of `LP`; a name without a count is one.
    private static func quantityAndName(_ piece: String) -> (Int, String) {
        // Most names (`LP`, `CD`, `12"`) have no `x` byte, so no `x` Character to look for.
        if piece.utf8.contains(UInt8(ascii: "x")), let x = piece.firstIndex(of: "x"), let count = Int(piece[..<x]), count > 0,
           piece.index(after: x) < piece.endIndex {
            return (count, String(piece[piece.index(after: x)...]))
        }
        return (1, piece)
    }

    /// The length at which the export cuts its `Format` cell.
    static let formatCellLength = 50

    /// A format's free text, which the export quotes and may cut short (`7", EP, Ltd, "Ye` for
    /// the text `Yellow`): a fragment no release is described by, so it is left out.
    private static func isCutFreeText(_ piece: String) -> Bool {
        piece.utf8.first == UInt8(ascii: "\"") && piece.count > 1 && piece.last != "\""
    }

    /// Whether a piece at the end of a cut cell is known to be whole: a name or All Media
    /// description the rules know. Anything else there may be a cut one and is left out.
    private static func isWholeFormatPiece(_ piece: String) -> Bool {
        let name = quantityAndName(piece).1
        let named = apiFormatName(name)
        return named.nameIsDescription || named.name != name || ["CD", "DVD", "File", "Vinyl"].contains(name)
    }

    /// All Media descriptions the export writes first in a format of descriptions alone.
    private static let allMediaDescriptions: Set<String> = [
        "Album", "Comp", "EP", "Single", "MiniAlbum", "Maxi", "Smplr", "RE", "RM", "RP", "Ltd", "Dlx", "S/Edition",
        "Unofficial", "Promo", "Num", "Mixed", "Mono", "Stereo", "Gat", "TP",
    ]

    /// The API's name for a format the export abbreviates, and whether the abbreviation is really
    /// the format's first description. The export leaves out `Vinyl` (its first piece is `LP` or
    /// a size such as `12"`), writes an All Media format as its descriptions alone (`RE, Gat`),
    /// and shortens Cassette and Box Set to `Cass` and `Box`. Other names are the API's already.
    public static func apiFormatName(_ exportName: String) -> (name: String, nameIsDescription: Bool) {
        if exportName == "LP" || (exportName.count > 1 && exportName.last == "\"" && exportName.first!.isASCII && exportName.first!.isNumber) {
            return ("Vinyl", true)
        }
        if allMediaDescriptions.contains(exportName) { return ("All Media", true) }
        switch exportName {
        case "Cass": return ("Cassette", false)
        case "Box": return ("Box Set", false)
        default: return (exportName, false)
        }
    }

    /// `apiFormatName` of a name as a client may write it, in any case (`lp`, `cass`): the grid's
    /// format filter, whose names match whatever their case.
    public static func apiFormatName(anyCase name: String) -> (name: String, nameIsDescription: Bool) {
        apiFormatName(exportAbbreviations[name.lowercased()] ?? name)
    }

    /// The export's names that `apiFormatName` renames, by their lower case.
    private static let exportAbbreviations = ["lp": "LP", "cass": "Cass", "box": "Box"]

    /// `apiFormatName` as the SQL functions `crated_format_name(name)` and
    /// `crated_format_descriptions(name, descriptions)`, for migration 0019, which renames the
    /// formats imports stored under the export's abbreviations.
    static let formatNameSQLFunction = DatabaseFunction("crated_format_name", argumentCount: 1, pure: true) { values in
        guard let name = String.fromDatabaseValue(values[0]) else { return values[0] }
        return apiFormatName(name).name
    }

    static let formatDescriptionsSQLFunction = DatabaseFunction("crated_format_descriptions", argumentCount: 2, pure: true) { values in
        guard let name = String.fromDatabaseValue(values[0]), let descriptions = String.fromDatabaseValue(values[1]),
              apiFormatName(name).nameIsDescription, let stored = FlatJSON.stringArray(descriptions) else { return values[1] }
        return JSONText.array([name] + stored)
    }
}

extension String.UTF8View {
    /// Whether every byte is ASCII.
    var isASCII: Bool {
        withContiguousStorageIfAvailable { $0.allSatisfy { $0 < 0x80 } } ?? allSatisfy { $0 < 0x80 }
    }

    /// Whether the bytes " (" occur.
    var containsSpaceParenthesis: Bool { contains(0x20, followedBy: 0x28) }

    /// Whether the bytes ", " occur (the separator of `splitList`).
    var containsCommaSpace: Bool { contains(0x2C, followedBy: 0x20) }

    private func contains(_ first: UInt8, followedBy second: UInt8) -> Bool {
        func search(_ bytes: some Sequence<UInt8>) -> Bool {
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == second && previous == first { return true }
                previous = byte
            }
            return false
        }
        return withContiguousStorageIfAvailable { search($0) } ?? search(self)
    }
}
