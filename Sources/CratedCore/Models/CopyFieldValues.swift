import CratedJSON
import Foundation

/// A copy's own fields: those Discogs keeps and its export carries, which an import or a collection
/// sync brings in and the user may edit in crated.
public struct CopyFieldValues: Codable, Equatable, Sendable {
    public var rating: Int?
    public var mediaCondition: String?
    public var sleeveCondition: String?
    public var notes: String?
    /// Custom field name to value.
    public var customFields: [String: String]

    public init(rating: Int? = nil, mediaCondition: String? = nil, sleeveCondition: String? = nil, notes: String? = nil,
                customFields: [String: String] = [:]) {
        (self.rating, self.mediaCondition, self.sleeveCondition, self.notes, self.customFields) =
            (rating, mediaCondition, sleeveCondition, notes, customFields)
    }
}

/// Which of a copy's fields Discogs gives this time: an export has columns for some of them, and a
/// collection listing without notes (no token, or another user's) gives the rating alone.
public struct GivenCopyFields: Sendable {
    public var rating: Bool
    public var mediaCondition: Bool
    public var sleeveCondition: Bool
    public var notes: Bool
    /// Whether it gives the custom field of a name, trimmed and lowercased as export columns are matched.
    public var customField: @Sendable (String) -> Bool

    public init(rating: Bool, mediaCondition: Bool, sleeveCondition: Bool, notes: Bool, customField: @escaping @Sendable (String) -> Bool) {
        (self.rating, self.mediaCondition, self.sleeveCondition, self.notes, self.customField) =
            (rating, mediaCondition, sleeveCondition, notes, customField)
    }

    /// A custom field's name as export columns are matched (the API refuses two names alike but for these).
    public static func customFieldKey(_ name: String) -> String {
        name.trimmingCharacters(in: .whitespaces).lowercased()
    }
}

/// A copy's fields after Discogs gave its own.
public struct MergedCopyFields: Equatable, Sendable {
    /// The copy's fields.
    public var fields: CopyFieldValues
    /// The fields as Discogs gave them: what the next import or sync compares with.
    public var discogs: CopyFieldValues
    /// Fields the user changed in crated that Discogs now gives yet another value of: crated's is kept.
    public var editsKept: Int
}

extension CopyFieldValues {
    /// The fields after Discogs gives `theirs` for the fields in `given`, having last given `base`.
    /// Each field takes Discogs' value unless the user changed it in crated since (it differs from
    /// `base`): an edit made in crated is never undone by an import or a sync. Discogs keeps its own
    /// value, so keeping crated's loses neither.
    public func merged(with theirs: CopyFieldValues, base: CopyFieldValues, given: GivenCopyFields) -> MergedCopyFields {
        var result = MergedCopyFields(fields: self, discogs: base, editsKept: 0)
        func merge<Value: Equatable>(_ field: WritableKeyPath<CopyFieldValues, Value>, _ isGiven: Bool) {
            guard isGiven else { return }
            let (mine, was, now) = (self[keyPath: field], base[keyPath: field], theirs[keyPath: field])
            result.discogs[keyPath: field] = now
            if mine == was {
                result.fields[keyPath: field] = now
            } else if now != was && now != mine {
                result.editsKept += 1
            }
        }
        merge(\.rating, given.rating)
        merge(\.mediaCondition, given.mediaCondition)
        merge(\.sleeveCondition, given.sleeveCondition)
        merge(\.notes, given.notes)

        // Custom fields one by one, by name as columns are matched: an export's `Collection Price`
        // is the field the app calls `price`.
        typealias Field = (name: String, value: String)
        func byKey(_ fields: [String: String]) -> [String: Field] {
            Dictionary(fields.map { (GivenCopyFields.customFieldKey($0.key), (name: $0.key, value: $0.value)) }) { first, _ in first }
        }
        func replacing(_ key: String, with field: Field?, in fields: inout [String: String]) {
            fields = fields.filter { GivenCopyFields.customFieldKey($0.key) != key }
            if let field { fields[field.name] = field.value }
        }
        let (mine, was, now) = (byKey(customFields), byKey(base.customFields), byKey(theirs.customFields))
        for key in Set(mine.keys).union(was.keys).union(now.keys) where given.customField(key) {
            replacing(key, with: now[key], in: &result.discogs.customFields)
            if mine[key]?.value == was[key]?.value {
                replacing(key, with: now[key], in: &result.fields.customFields)
            } else if now[key]?.value != was[key]?.value && now[key]?.value != mine[key]?.value {
                result.editsKept += 1
            }
        }
        return result
    }
}

// MARK: - Stored

/// `collection_item.discogs_fields` (migration 0031): a copy's fields as Discogs last gave them, kept
/// only while the user's edits in crated make the copy's own differ. NULL means the copy's own are
/// Discogs' (most copies), so an import has nothing more to read or write for them.
public enum DiscogsCopyFields {
    /// The column's text for a copy whose fields are `fields` and to which Discogs last gave
    /// `discogs`: nil when they are the same.
    public static func text(discogs: CopyFieldValues, fields: CopyFieldValues) -> String? {
        guard discogs != fields else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(discogs)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The fields the column's text holds; nil for text that is not such fields (the copy's own are
    /// then taken for Discogs', as before the column existed).
    public static func decoded(_ text: String) -> CopyFieldValues? {
        try? JSONDecoder().decode(CopyFieldValues.self, from: Data(text.utf8))
    }
}

extension CollectionItem {
    /// The copy's own fields as values.
    public var fieldValues: CopyFieldValues {
        get {
            CopyFieldValues(rating: rating, mediaCondition: mediaCondition, sleeveCondition: sleeveCondition, notes: notes,
                            customFields: customFieldValues)
        }
        set {
            (rating, mediaCondition, sleeveCondition, notes) = (newValue.rating, newValue.mediaCondition, newValue.sleeveCondition, newValue.notes)
            // The stored text only when the fields changed: the same fields may be stored spaced otherwise.
            if newValue.customFields != customFieldValues {
                customFields = JSONText.object(newValue.customFields.map { (name: $0.key, value: $0.value) })
            }
        }
    }
}
