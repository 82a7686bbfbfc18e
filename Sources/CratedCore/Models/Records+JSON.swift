import CratedJSON
import Foundation

// The JSON columns as values. Most copies have no custom fields and most formats no descriptions:
// their stored `{}` and `[]` need no parser (JSONDecoder was 3% of an album page's time).

extension CollectionItem {
    /// Custom field name to value; empty when the stored text is not a JSON object of strings.
    public var customFieldValues: [String: String] {
        if customFields == "{}" { return [:] }
        return FlatJSON.stringObject(customFields)
            ?? (try? JSONDecoder().decode([String: String].self, from: Data(customFields.utf8))) ?? [:]
    }
}

extension AlbumFormat {
    /// The format's descriptions (`Album`, `RE`, `Gatefold`); empty when the stored text is not a JSON array of strings.
    public var descriptionList: [String] {
        if descriptions == "[]" { return [] }
        return FlatJSON.stringArray(descriptions) ?? (try? JSONDecoder().decode([String].self, from: Data(descriptions.utf8))) ?? []
    }
}
