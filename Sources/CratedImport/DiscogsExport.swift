import CratedCore
import Foundation

/// The columns of a Discogs collection export, found by header name (their order and the custom
/// `Collection <Field>` columns vary from one user's export to another's).
struct DiscogsExportHeader {
    let names: [String]
    let catalogNumber: Int?
    let artist: Int
    let title: Int
    let label: Int?
    let format: Int?
    let rating: Int?
    let released: Int?
    let releaseId: Int
    let folder: Int?
    let dateAdded: Int
    let mediaCondition: Int?
    let sleeveCondition: Int?
    let notes: Int?
    /// Custom fields: (column index, field name without the `Collection ` prefix).
    let customFields: [(index: Int, name: String)]
    /// The columns read neither as one of the above nor as a custom field, as the summary lists
    /// them: a near miss of a column read says which it may have meant (`Notes`, meant as
    /// `Collection Notes`), since its values are left out without a word otherwise.
    var ignoredColumns: [String] {
        let read = Set([catalogNumber, label, format, rating, released, folder, mediaCondition, sleeveCondition, notes].compactMap { $0 }
                       + [artist, title, releaseId, dateAdded] + customFields.map(\.index))
        return names.indices.filter { !read.contains($0) && !names[$0].isEmpty }.map { index in
            let name = names[index]
            guard let meant = Self.nearMisses[name.lowercased()] else { return name }
            return "\(name) (crated reads \(meant))"
        }
    }

    /// Names spreadsheets and other tools give the columns crated reads, lowercased.
    private static let nearMisses = [
        "notes": "Collection Notes", "media condition": "Collection Media Condition", "sleeve condition": "Collection Sleeve Condition",
        "condition": "Collection Media Condition", "folder": "CollectionFolder",
        "catalog #": "Catalog#", "catalog number": "Catalog#", "catno": "Catalog#",
        "year": "Released", "labels": "Label", "formats": "Format",
    ]

    static let required = ["release_id", "Artist", "Title", "Date Added"]
    static let expected = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added,Collection Media Condition,Collection Sleeve Condition,Collection Notes"
    /// Lowercased, as headers are matched.
    private static let knownCollectionColumns: Set<String> = [
        "collection media condition", "collection sleeve condition", "collection notes",
    ]

    init(fields: [String]) throws {
        let names = fields.map { $0.trimmingCharacters(in: .whitespaces) }
        self.names = names
        func index(_ name: String) -> Int? {
            names.firstIndex { $0.caseInsensitiveCompare(name) == .orderedSame }
        }
        let missing = Self.required.filter { index($0) == nil }
        if !missing.isEmpty {
            // A wantlist export shares the first columns but has `Notes` and no folder or date added.
            if index("release_id") != nil, index("Notes") != nil, index("CollectionFolder") == nil {
                throw ImportError.wantlist
            }
            // Excel saves "CSV" with semicolons where the decimal separator is a comma; "Text" with tabs.
            let line = fields.joined(separator: ",")
            for (separator, separators) in [(Character(";"), "semicolons"), (Character("\t"), "tabs")] {
                let split = line.split(separator: separator).map { $0.trimmingCharacters(in: CharacterSet.whitespaces.union(["\""])) }
                if Self.required.allSatisfy({ column in split.contains { $0.caseInsensitiveCompare(column) == .orderedSame } }) {
                    throw ImportError.separatedBy(separators)
                }
            }
            throw ImportError.notACollectionExport(
                reason: "its header lacks the column\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", "))",
                header: names.joined(separator: ","))
        }
        var seen = Set<String>()
        for name in names where !name.isEmpty {
            guard seen.insert(name.lowercased()).inserted else {
                throw ImportError.notACollectionExport(reason: "its header names the column '\(name)' twice", header: names.joined(separator: ","))
            }
        }
        catalogNumber = index("Catalog#")
        artist = index("Artist")!
        title = index("Title")!
        label = index("Label")
        format = index("Format")
        rating = index("Rating")
        released = index("Released")
        releaseId = index("release_id")!
        folder = index("CollectionFolder")
        dateAdded = index("Date Added")!
        mediaCondition = index("Collection Media Condition")
        sleeveCondition = index("Collection Sleeve Condition")
        notes = index("Collection Notes")
        customFields = names.enumerated().compactMap { offset, name in
            // Case-insensitively, as every column is found: `collection notes` is the notes.
            guard name.lowercased().hasPrefix("collection "), !Self.knownCollectionColumns.contains(name.lowercased()) else { return nil }
            let field = String(name.dropFirst("Collection ".count)).trimmingCharacters(in: .whitespaces)
            return field.isEmpty ? nil : (offset, field)
        }
    }

    func columnName(_ index: Int) -> String { index < names.count ? names[index] : "column \(index + 1)" }
}

/// One valid row of a collection export.
struct DiscogsExportRow {
    var line: Int
    var releaseId: Int64
    var artistCredit: String        // as Discogs writes it, suffixes kept
    var title: String
    var label: String
    var catalogNumbers: String
    var format: String
    var rating: Int?
    var year: Int?
    var folder: String?
    var dateAdded: Int64            // seconds since 1970, UTC
    /// How much of the time the file gave: a spreadsheet may drop the seconds, or the time.
    var dateAddedPrecision: DiscogsDate.Precision
    var mediaCondition: String?
    var sleeveCondition: String?
    var notes: String?
    var customFields: [(name: String, value: String)]

    /// Reads one record, or throws a `RowProblem` that names the line and column. `monthFirst`: the
    /// file's order for slashed dates that allow both (see `DiscogsDate.SlashedForm`).
    init(record: CSVRecord, header: DiscogsExportHeader, monthFirst: Bool = false) throws(RowProblem) {
        let fields = record.fields
        line = record.line
        guard fields.count == header.names.count else {
            throw RowProblem(line: record.line, column: nil,
                             reason: "has \(fields.count) field\(fields.count == 1 ? "" : "s") where the header has \(header.names.count)")
        }
        func text(_ index: Int?) -> String {
            guard let index else { return "" }
            return fields[index].trimmedSpaces
        }
        func optional(_ index: Int?) -> String? {
            let value = text(index)
            return value.isEmpty ? nil : value
        }
        func problem(_ index: Int, _ reason: String) -> RowProblem {
            RowProblem(line: record.line, column: index + 1, columnName: header.columnName(index), reason: reason)
        }

        let releaseText = text(header.releaseId)
        guard let releaseId = Int64(releaseText), releaseId > 0 else {
            throw problem(header.releaseId, releaseText.isEmpty ? "is empty; every row needs its Discogs release id" : "'\(releaseText)' is not a Discogs release id")
        }
        self.releaseId = releaseId
        artistCredit = text(header.artist)
        guard !artistCredit.isEmpty else { throw problem(header.artist, "is empty") }
        title = text(header.title)
        guard !title.isEmpty else { throw problem(header.title, "is empty") }
        let dateText = text(header.dateAdded)
        guard let dateAdded = DiscogsDate.parse(dateText, monthFirst: monthFirst) else {
            throw problem(header.dateAdded, dateText.isEmpty ? "is empty" : "'\(dateText)' is not a date (expected YYYY-MM-DD HH:MM:SS)")
        }
        self.dateAdded = dateAdded.seconds
        dateAddedPrecision = dateAdded.precision
        if let index = header.rating, let ratingText = optional(index) {
            guard let value = Int(ratingText), (0...5).contains(value) else {
                throw problem(index, "'\(ratingText)' is not a rating from 1 to 5")
            }
            rating = value == 0 ? nil : value
        }
        if let index = header.released, let releasedText = optional(index) {
            // Discogs writes the year, or 0 when it is unknown; a sign (`-001`) makes no year.
            let digits = releasedText.prefix(4)
            guard digits.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(digits),
                  releasedText.count == 4 || releasedText == "0" || releasedText.dropFirst(4).first == "-" else {
                throw problem(index, "'\(releasedText)' is not a year")
            }
            year = value == 0 ? nil : value
        }
        label = text(header.label)
        catalogNumbers = text(header.catalogNumber)
        format = text(header.format)
        folder = optional(header.folder)
        mediaCondition = optional(header.mediaCondition)
        sleeveCondition = optional(header.sleeveCondition)
        // Notes keep their inner line breaks; only the ends are trimmed.
        notes = header.notes.flatMap { fields[$0].isEmpty ? nil : Self.trimmingWhitespaceAndNewlines(fields[$0]) }
            .flatMap { $0.isEmpty ? nil : $0 }
        customFields = header.customFields.compactMap { column in
            optional(column.index).map { (column.name, $0) }
        }
    }
}

extension DiscogsExportRow {
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, without Foundation's copy through NSString when
    /// the text starts and ends with ASCII that is neither (the ends it would look at).
    static func trimmingWhitespaceAndNewlines(_ text: String) -> String {
        func kept(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte > 0x20 && byte < 0x80
        }
        if kept(text.utf8.first) && kept(text.utf8.last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why one row cannot be imported, with where it is.
public struct RowProblem: Error, Codable, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int?
    public var columnName: String?
    public var reason: String

    public init(line: Int, column: Int?, columnName: String? = nil, reason: String) {
        self.line = line
        self.column = column
        self.columnName = columnName
        self.reason = reason
    }

    public var description: String {
        if let column {
            return "line \(line), column \(column)\(columnName.map { " (\($0))" } ?? ""): \(reason)"
        }
        return "line \(line): the row \(reason)"
    }
}
