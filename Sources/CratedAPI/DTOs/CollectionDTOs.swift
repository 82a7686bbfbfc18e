import CratedJSON
import CratedCore
import Foundation
import Hummingbird

struct CrateRefDTO: Codable, Equatable {
    var id: Int64
    var name: String
}

struct CopyDTO: ResponseCodable {
    var id: Int64
    var albumId: Int64
    var dateAdded: String
    var rating: Int?
    var mediaCondition: String?
    var sleeveCondition: String?
    var notes: String?
    var customFields: [String: String]
    var discogsInstanceId: Int64?
    var crates: [CrateRefDTO]

    init(_ copy: CollectionItem, crates: [Crate]) {
        id = copy.id!
        albumId = copy.albumId
        dateAdded = copy.dateAdded
        rating = copy.rating
        mediaCondition = copy.mediaCondition
        sleeveCondition = copy.sleeveCondition
        notes = copy.notes
        customFields = copy.customFieldValues
        discogsInstanceId = copy.discogsInstanceId
        self.crates = crates.map { CrateRefDTO(id: $0.id!, name: $0.name) }
    }
}

struct CrateDTO: ResponseCodable {
    var id: Int64
    var name: String
    var copies: Int
    var createdAt: String
    var updatedAt: String
    /// The front album's cover at list-row size.
    var artwork: NullableArtwork

    init(_ summary: CrateSummary, scale: Double) {
        id = summary.crate.id!
        name = summary.crate.name
        copies = summary.copies
        createdAt = summary.crate.createdAt
        updatedAt = summary.crate.updatedAt
        artwork = NullableArtwork(summary.cover?.artwork(pixels: ArtworkSize.Drawn.listItem * scale))
    }
}

struct CrateListDTO: ResponseCodable {
    var crates: [CrateDTO]
}

struct CrateDetailDTO: ResponseCodable {
    struct Entry: Codable {
        var position: Int
        var addedAt: String
        var copyId: Int64
        var album: AlbumListingDTO
    }
    var id: Int64
    var name: String
    var copies: Int
    var createdAt: String
    var updatedAt: String
    var items: [Entry]
    /// Pass as `after` for the next page; absent on the last page.
    var next: String?
}

struct AddedDTO: ResponseCodable {
    var added: Int
}

// MARK: - Request bodies

struct CrateNameBody: StrictBody {
    static let fields: Set<String> = ["name"]
    var name: String
}

/// Where to move a copy in its crate: exactly one of `before` and `after`, another copy of the crate.
struct CrateMoveBody: StrictBody {
    static let fields: Set<String> = ["before", "after"]
    var placement: CratePlacement

    private enum Key: String, CodingKey { case before, after }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        switch (try container.decodeIfPresent(Int64.self, forKey: .before), try container.decodeIfPresent(Int64.self, forKey: .after)) {
        case (let before?, nil): placement = .before(copyId: before)
        case (nil, let after?): placement = .after(copyId: after)
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "give exactly one of before and after: the id of another copy in the crate"))
        }
    }
}

struct CopyIdsBody: StrictBody {
    static let fields: Set<String> = ["copyIds"]
    var copyIds: [Int64]
}

struct AlbumIdsBody: StrictBody {
    static let fields: Set<String> = ["albumIds"]
    var albumIds: [Int64]
}

/// PATCH semantics: a field left out is unchanged; `null` clears it.
struct EditCopyBody: StrictBody {
    static let fields: Set<String> = ["rating", "mediaCondition", "sleeveCondition", "notes", "customFields", "crateIds", "clear"]
    /// The fields `clear` can name. A field is cleared by naming it in `clear`, or by sending it as
    /// null: a generated client leaves nil out of its JSON, so it cannot say null.
    static let clearable: [String] = ["rating", "mediaCondition", "sleeveCondition", "notes"]
    var changes: CopyChanges

    private enum Key: String, CodingKey { case rating, mediaCondition, sleeveCondition, notes, customFields, crateIds, clear }

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        // The lists and the field map have no null in the document: one is refused, not taken as
        // if left out, which would change nothing where the client meant something.
        func present<T: Decodable>(_ key: Key, _ type: T.Type) throws -> T? {
            if container.contains(key), try container.decodeNil(forKey: key) {
                throw APIError.badBody("\(key.stringValue) cannot be null; leave it out to keep what is stored", field: key.stringValue)
            }
            return try container.decodeIfPresent(T.self, forKey: key)
        }
        let cleared = Set(try present(.clear, [String].self) ?? [])
        if let unknown = cleared.sorted().first(where: { !Self.clearable.contains($0) }) {
            throw APIError.unprocessable("clear names '\(unknown)'; it can name \(Self.clearable.joined(separator: ", "))", field: "clear")
        }
        func optional<T: Decodable>(_ key: Key, _ type: T.Type) throws -> T?? {
            let clears = cleared.contains(key.stringValue)
            guard container.contains(key) else { return clears ? .some(nil) : nil }
            if try container.decodeNil(forKey: key) { return .some(nil) }
            if clears {
                throw APIError.unprocessable("\(key.stringValue) is both set and named in clear", field: key.stringValue)
            }
            return .some(try container.decode(T.self, forKey: key))
        }
        changes = CopyChanges(
            rating: try optional(.rating, Int.self),
            mediaCondition: try optional(.mediaCondition, String.self),
            sleeveCondition: try optional(.sleeveCondition, String.self),
            notes: try optional(.notes, String.self),
            customFields: try present(.customFields, [String: String].self),
            crateIds: try present(.crateIds, [Int64].self))
    }
}

extension CopyDTO: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("albumId", albumId)
            $0.field("dateAdded", dateAdded)
            $0.field("rating", rating)
            $0.field("mediaCondition", mediaCondition)
            $0.field("sleeveCondition", sleeveCondition)
            $0.field("notes", notes)
            $0.field("customFields", customFields)
            $0.field("discogsInstanceId", discogsInstanceId)
            $0.field("crates", crates)
        }
    }
}

extension CrateRefDTO: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("name", name)
        }
    }
}
