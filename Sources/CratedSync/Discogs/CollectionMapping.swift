import CratedCore
import Foundation

/// Turns collection listing items into copies as crated stores them.
enum CollectionMapping {
    /// The notes fields every Discogs collection starts with, by id.
    static let defaultFieldNames: [Int64: String] = [1: "Media Condition", 2: "Sleeve Condition", 3: "Notes"]

    static func instance(_ item: DiscogsCollectionPage.Item, fieldNames: [Int64: String]?) throws -> DiscogsCollectionSnapshot.Instance {
        guard let dateText = item.dateAdded, let dates = dateAdded(dateText) else {
            throw DiscogsError.malformedResponse("instance \(item.instanceId) has no readable date_added")
        }
        var media: String?, sleeve: String?, notes: String?
        var custom: [(name: String, value: String)] = []
        for note in item.notes ?? [] {
            guard let value = ReleaseMapping.nonEmpty(note.value) else { continue }
            switch (fieldNames ?? defaultFieldNames)[note.fieldId] {
            case "Media Condition": media = value
            case "Sleeve Condition": sleeve = value
            case "Notes": notes = value
            case let name?: custom.append((name, value))
            case nil: continue
            }
        }
        let release = item.basicInformation.map(ReleaseMapping.metadata)
            ?? ReleaseMetadata(title: "", artists: [], year: nil, released: nil, country: nil, masterId: nil,
                               genres: [], styles: [], labels: [], formats: [], images: [], tracks: [])
        return DiscogsCollectionSnapshot.Instance(
            instanceId: item.instanceId,
            releaseId: item.id,
            folderId: item.folderId ?? 1,
            dateAdded: dates.wallClock,
            dateAddedAlternatives: dates.wallClock == dates.utc ? [] : [dates.utc],
            rating: item.rating.flatMap { (1...5).contains($0) ? $0 : nil },
            notes: item.notes == nil ? nil : DiscogsCollectionSnapshot.Notes(mediaCondition: media, sleeveCondition: sleeve, notes: notes),
            customFields: fieldNames == nil || item.notes == nil ? nil : custom,
            release: release)
    }

    /// The API writes `2020-01-19T14:19:11-08:00`; the CSV export writes a date without a zone,
    /// which the import stores as if it were UTC. The copy is stored under the wall-clock time
    /// (`2020-01-19T14:19:11Z`), as an import of the same copy would store it, and also matched
    /// against the true UTC instant in case the export used that.
    static func dateAdded(_ text: String) -> (wallClock: String, utc: String)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 19, let wall = DiscogsDate.epochSeconds(String(trimmed.prefix(19))) else { return nil }
        let zone = trimmed.dropFirst(19).drop { $0 == "." || $0.isNumber }  // fractional seconds, if any
        var offsetSeconds: Int64 = 0
        if !zone.isEmpty && zone != "Z" {
            let sign: Int64 = zone.first == "-" ? -1 : 1
            let digits = zone.dropFirst().split(separator: ":")
            guard ["+", "-"].contains(zone.first), digits.count == 2,
                  let hours = Int64(digits[0]), let minutes = Int64(digits[1]), hours < 24, minutes < 60 else { return nil }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        }
        return (Timestamp.string(fromEpochSeconds: wall), Timestamp.string(fromEpochSeconds: wall - offsetSeconds))
    }
}
