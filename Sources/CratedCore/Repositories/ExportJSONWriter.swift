import CratedJSON
import Foundation

/// How many of each thing an export wrote.
public struct ExportSummary: Sendable, Equatable {
    public var user: String
    public var copies = 0
    public var crates = 0
    public var plays = 0
    /// Copies left out of a CSV because their album has no Discogs release id (its `release_id`
    /// column is required); a JSON export leaves nothing out.
    public var copiesWithoutReleaseId = 0

    public init(user: String) { self.user = user }
}

/// Writes everything a user owns as one JSON document, a line per copy, crate and play, so that
/// memory stays flat however large the collection. The shape is in docs/design.md ("Backup, restore
/// and export"); keys whose value is unknown or empty (`rating`, `notes`, ...) are left out, as the
/// API leaves them out.
public enum ExportJSONWriter {
    public static let formatName = "crated-collection-export"
    public static let formatVersion = 1

    public static func write(_ export: CollectionExport, to output: BufferedOutput, exportedAt: String = Timestamp.now()) throws -> ExportSummary {
        let encoder = StreamingJSONEncoder()
        var summary = ExportSummary(user: export.user.name)
        func field(_ name: String, _ value: some Encodable, first: Bool = false) throws {
            try output.write("\(first ? "" : ",\n")\"\(name)\": ")
            try output.write(try encoder.encode(value))
        }
        // An array's elements one a line: `[`, then `\n` before the first and `,\n` before the others.
        var elementsInArray = 0
        func beginArray(_ name: String) throws {
            try output.write(",\n\"\(name)\": [")
            elementsInArray = 0
        }
        func element(_ value: some Encodable) throws {
            try output.write(elementsInArray == 0 ? "\n" : ",\n")
            try output.write(try encoder.encode(value))
            elementsInArray += 1
        }
        func endArray() throws -> Int {
            try output.write(elementsInArray == 0 ? "]" : "\n]")
            return elementsInArray
        }

        try output.write("{\n")
        try field("format", formatName, first: true)
        try field("version", formatVersion)
        try field("exportedAt", exportedAt)
        try field("user", ExportedUser(id: export.user.id!, name: export.user.name, createdAt: export.user.createdAt))
        try field("customFields", try export.customFieldNames())
        try beginArray("copies")
        for id in try export.copyIds() {
            if let copy = try export.copy(id: id) { try element(copy) }
        }
        summary.copies = try endArray()
        try beginArray("crates")
        for crate in try export.crates() { try element(crate) }
        summary.crates = try endArray()
        try beginArray("playHistory")
        try export.forEachPlay { try element($0) }
        summary.plays = try endArray()
        try output.write(",\n\"player\": ")
        if let player = try export.player() {
            try output.write(try encoder.encode(player))
        } else {
            try output.write("null")
        }
        try output.write("\n}\n")
        try output.flush()
        return summary
    }

    private struct ExportedUser: Encodable {
        var id: Int64
        var name: String
        var createdAt: String
    }
}
