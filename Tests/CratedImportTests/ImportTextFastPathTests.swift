@testable import CratedCore
@testable import CratedImport
import CratedTestSupport
import Foundation
import Testing

/// The import's text work takes byte-level paths for the common cases (ASCII text, one label, no
/// escapes). Each is checked here against the general way: the sources' own where they keep it for
/// other text, otherwise the one it replaced, kept below as it was written,
/// on tricky input: suffixes, articles, spaces and tabs, CR LF, case, `none`, quotes and controls,
/// combining marks and other non-ASCII text.
@Suite struct ImportTextFastPathTests {
    static let namePieces = [
        " (", "(", ")", " ", "  ", "\t", "2", "14", "0", "x", "The ", "the ", "THE ", "A ", "a ", "An ", "an ", "The", "A",
        "Casey", "Bob", " & ", ", ", "\r\n", "\n", "Déjà", "Björk", "e\u{301}", "\u{301}", "坂本", "Ελένη", "Σ", "ß", "İ",
        "ｶﾞ", "", "(2)", " (2)", " (2\u{301})", " (2)\u{301}", "\u{600} (2)", "Ö", "ǅ", "ﬁ",
    ]

    @Test func displayNamesAreTheOnesTheGeneralWayGives() {
        let names = SeededGenerator.texts(count: 20_000, seed: 1, pieces: Self.namePieces) + [
            "Casey (2)", "Casey (2) & Bob (14)", "Witness (1 Hope)", "Sonic Boom (2), The Others", " ( (2)", "A (2", "(2)", " (2)",
            "Sigur Rós (2)", "坂本龍一 (3)", "Casey (2\u{301})", "Casey (2)\u{301} & Bob (3)",
        ]
        for name in names {
            #expect(DiscogsText.displayName(name) == DiscogsText.generalDisplayName(name), "\(name.debugDescription)")
        }
    }

    @Test func sortKeysAndFoldsAreTheOnesTheGeneralWayGives() {
        for text in SeededGenerator.texts(count: 20_000, seed: 2, pieces: Self.namePieces) + ["The", "the ", "The  Beatles", "A", "an", "an x", "THE\r\n", "Vol. 007", "0", "1234567890x", "123456789", String(repeating: "7", count: 120),
                                                                                              "'Allelujah", "»Eroica«", "...", " (2) The x", "!!!"] {
            #expect(DiscogsText.sortKey(text) == Reference.sortKey(text), "\(text.debugDescription)")
            #expect(DiscogsText.fold(text) == Reference.fold(text), "\(text.debugDescription)")
        }
    }

    @Test func labelsAreTheOnesTheGeneralWayGives() {
        let pieces = ["Label", "Atlantic", ", ", ",", " ", "\t", "none", "NONE", "None", "nonE", "non", "nones", "SD 1361", "Déjà", "", "ｎｏｎｅ",
                      " (3)", " (", "2)"]
        let cells = SeededGenerator.texts(count: 3_000, seed: 3, pieces: pieces)
        var generator = SeededGenerator(seed: 4)
        for label in cells {
            let catalogNumbers = cells.randomElement(using: &generator)!
            let fast = DiscogsText.labels(label: label, catalogNumbers: catalogNumbers)
            let general = Reference.labels(label: label, catalogNumbers: catalogNumbers)
            #expect(fast.map(\.name) == general.map(\.name), "\(label.debugDescription) \(catalogNumbers.debugDescription)")
            #expect(fast.map(\.catalogNumber) == general.map(\.catalogNumber), "\(label.debugDescription) \(catalogNumbers.debugDescription)")
        }
    }

    @Test func notesAreTrimmedAsFoundationTrimsThem() {
        let pieces = ["note", " ", "\n", "\r\n", "\t", "\u{A0}", "\u{2028}", "\u{85}", "é", "\u{301}", "x", "\u{3000}", "\u{B}"]
        for text in SeededGenerator.texts(count: 5_000, seed: 7, pieces: pieces) {
            #expect(DiscogsExportRow.trimmingWhitespaceAndNewlines(text) == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    @Test func splittingOnASCIISeparatorsGivesTheGeneralWaysParts() {
        let pieces = ["a", "LP", ", ", " + ", ",", " +", "+ ", " ", "⅓", "é", "e\u{301}", "\u{301}", "坂", "x", ""]
        for text in SeededGenerator.texts(count: 10_000, seed: 12, pieces: pieces) {
            for separator in [", ", " + "] as [StaticString] {
                let general = text.generalSplit(onASCII: separator)
                #expect(text.split(onASCII: separator) == general, "\(text.debugDescription)")
                // On a slice of a larger string too (its view starts inside the storage).
                let sliced = ("xx" + text + "yy").dropFirst(2).dropLast(2)
                #expect(sliced.split(onASCII: separator) == sliced.generalSplit(onASCII: separator), "\(text.debugDescription)")
            }
        }
    }

    /// A field is decoded once and called valid exactly when `String(validating:)` accepts its bytes.
    @Test func fieldsAreDecodedAndValidatedAsValidatingDoes() {
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("é".utf8), Array("坂".utf8), Array("😀".utf8), [0xFF], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98],
            [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80], [0xEF, 0xBF, 0xBD], [0x00], [0x7F],
        ]
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<20_000 {
            let bytes = (0..<Int.random(in: 0...6, using: &generator)).flatMap { _ in pieces.randomElement(using: &generator)! }
            bytes.withUnsafeBufferPointer { buffer in
                let decoded = CSVReader.decode(buffer[...])
                let validated = String(validating: buffer, as: UTF8.self)
                #expect(decoded.valid == (validated != nil), "\(bytes)")
                #expect(decoded.string == (validated ?? String(decoding: buffer, as: UTF8.self)), "\(bytes)")
            }
        }
    }

    @Test func datesAreReadAsTheGeneralWayReadsThem() {
        let pieces = ["2020", "1999", "11", "18", "2", "29", "31", "13", "0", "00", "59", "60", "12345", "-", "/", ".", " ", "T", ":", "Z", "\t", "x", "  "]
        var texts = SeededGenerator.texts(count: 50_000, seed: 8, pieces: pieces)
        texts += ["2020-11-18 19:17:05", "2020-11-18 10Z00", "2020-11-18 10:00:00:00", "2020-11-18T19:17:05Z", "4/23/2023 4:38",
                  "2020-11-18 10:00Z", "2020-11-18Z", "2020-11-18 10:", " 1999-12-31 23:59:59 ", "2020-11-18 1:2:3:4"]
        for text in texts {
            #expect(DiscogsDate.epochSeconds(text) == Reference.epochSeconds(text), "\(text.debugDescription)")
        }
    }
}

/// The general ways, written plainly, that the byte-level paths must agree with.
private enum Reference {
    static func sortKey(_ text: String) -> String {
        let spaced = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 ? " " : $0 }))
        var folded = Substring(fold(SearchText.spelledOut(spaced)).trimmedSpaces)
        if let start = folded.firstIndex(where: { $0.isLetter || $0.isNumber }) { folded = folded[start...] }
        for article in ["the ", "a ", "an "] where folded.hasPrefix(article) && folded.count > article.count {
            folded.removeFirst(article.count)
            break
        }
        return numbersByValue(String(folded))
    }

    /// Each run of ASCII digits without its leading zeros, led by its length: one digit below 9,
    /// else 9 and two digits (99 at most).
    static func numbersByValue(_ key: String) -> String {
        var result = String.UnicodeScalarView()
        var digits = ""
        func endRun() {
            guard !digits.isEmpty else { return }
            let value = digits.drop { $0 == "0" }.isEmpty ? "0" : String(digits.drop { $0 == "0" })
            let capped = min(value.count, 99)
            let length = capped < 9 ? String(capped) : "9" + (capped < 10 ? "0" : "") + String(capped)
            result.append(contentsOf: (length + value).unicodeScalars)
            digits = ""
        }
        for scalar in key.unicodeScalars {
            if ("0"..."9").contains(scalar) {
                digits.unicodeScalars.append(scalar)
            } else {
                endRun()
                result.append(scalar)
            }
        }
        endRun()
        return String(result)
    }

    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.diacriticInsensitive, .caseInsensitive, .widthInsensitive], locale: nil)
    }

    static func splitList(_ cell: String) -> [String] {
        cell.split(onASCII: ", ").map(\.trimmedSpaces).filter { !$0.isEmpty }
    }

    static func labels(label: String, catalogNumbers: String) -> [(name: String, catalogNumber: String?)] {
        let names = splitList(label).map(DiscogsText.generalDisplayName)
        let numbers = splitList(catalogNumbers).map { $0.lowercased() == "none" ? nil : $0 }
        if names.isEmpty { return [] }
        if numbers.count == names.count {
            return zip(names, numbers).map { ($0, $1) }
        }
        let known = numbers.compactMap { $0 }
        if known.count == names.count {
            return zip(names, known).map { ($0, $1) }
        }
        let whole = catalogNumbers.trimmedSpaces
        let shared: String? = numbers.count == 1 ? numbers[0] : (whole.isEmpty || whole.lowercased() == "none" ? nil : whole)
        return names.map { ($0, shared) }
    }

    static func epochSeconds(_ text: String) -> Int64? {
        var numbers: [Int64] = []
        var separators: [UInt8] = []
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
