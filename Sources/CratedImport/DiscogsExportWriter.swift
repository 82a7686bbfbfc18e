import CratedCore
import Foundation

/// Writes a user's collection as a Discogs collection export: the 13 columns Discogs writes, in its
/// order, then a `Collection <Field>` column for each custom field, quoted as `CSVReader` reads (RFC
/// 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled).
///
/// What the import reads back is what was exported: importing the file into an empty database gives
/// the same copies, albums, conditions, notes, custom fields and crates (tests hold it to that).
public enum DiscogsExportWriter {
    /// Discogs' own header, as `DiscogsExportHeader.expected`.
    public static let defaultColumns = DiscogsExportHeader.expected.split(separator: ",").map(String.init)

    public static func write(_ export: CollectionExport, to output: BufferedOutput) throws -> ExportSummary {
        let customFields = columnNames(of: try export.customFieldNames())
        var summary = ExportSummary(user: export.user.name)
        try output.write(header(customFields: customFields) + "\n")
        // A crate reaches the file only as the folder of a copy in it: an empty one, or one of the
        // user's own, does not (the JSON export holds every crate).
        var folders = Set<String>()
        for id in try export.copyIdsKeepingFolderOrder() {
            guard let copy = try export.copy(id: id) else { continue }
            guard let line = row(copy, customFields: customFields) else {
                summary.copiesWithoutReleaseId += 1
                continue
            }
            try output.write(line + "\n")
            summary.copies += 1
            if let folder = copy.folder { folders.insert(folder) }
        }
        summary.crates = folders.count
        try output.flush()
        return summary
    }

    /// One column per field as the import finds columns, case-insensitively: names that differ only
    /// in case (`Color` on one copy, `color` on another) share the first one's column.
    static func columnNames(of fieldNames: [String]) -> [String] {
        var seen = Set<String>()
        return fieldNames.filter { seen.insert($0.lowercased()).inserted }
    }

    public static func header(customFields: [String]) -> String {
        (defaultColumns + customFields.map { "Collection \($0)" }).map(quoted).joined(separator: ",")
    }

    /// The copy's line, or nil when its album has no Discogs release id (the import requires one).
    public static func row(_ copy: ExportedCopy, customFields: [String]) -> String? {
        guard let releaseId = copy.discogsReleaseId else { return nil }
        let values = Dictionary(copy.customFields.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let fields: [String] = [
            catalogNumbers(copy.labels),
            copy.discogsArtistCredit,
            copy.title,
            copy.labels.map(\.name).joined(separator: ", "),
            copy.format,
            copy.rating.map(String.init) ?? "",
            copy.year.map(String.init) ?? "0",
            String(releaseId),
            copy.folder ?? "Uncategorized",
            discogsDate(copy.dateAdded),
            copy.mediaCondition ?? "",
            copy.sleeveCondition ?? "",
            copy.notes ?? "",
        ] + customFields.map { values[$0.lowercased()] ?? "" }
        return fields.map(quoted).joined(separator: ",")
    }

    /// The `Catalog#` cell that `DiscogsText.labels` pairs back with the `Label` cell: one number per
    /// label (`none` for a missing one), or the number once when every label has the same, which is
    /// what the import gave every label of a cell whose counts did not match.
    static func catalogNumbers(_ labels: [ExportedLabel]) -> String {
        guard let first = labels.first else { return "" }
        if labels.allSatisfy({ $0.catalogNumber == first.catalogNumber }) { return first.catalogNumber ?? "none" }
        return labels.map { $0.catalogNumber ?? "none" }.joined(separator: ", ")
    }

    /// `2019-03-02T10:15:00Z` as Discogs writes it: `2019-03-02 10:15:00`.
    static func discogsDate(_ stored: String) -> String {
        var text = stored
        if text.hasSuffix("Z") { text.removeLast() }
        return text.replacingOccurrences(of: "T", with: " ")
    }

    static func quoted(_ field: String) -> String {
        let needsQuotes = field.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
        guard needsQuotes else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
