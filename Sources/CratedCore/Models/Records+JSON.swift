import CratedJSON
import Foundation

// The JSON columns as values. Most copies have no custom fields and most formats no descriptions:
// their stored `{}` and `[]` need no parser (JSONDecoder was 3% of an album page's time).

extension CollectionItem {
    /// Custom field name to value; empty when the stored text is not a JSON object of strings.
    public var customFieldValues: [String: String] {
        CopyFieldValues.customFields(stored: customFields)
    }
}

extension CopyFieldValues {
    /// Custom fields as `collection_item.custom_fields` stores them; empty for text that is not a JSON
    /// object of strings.
    public static func customFields(stored text: String) -> [String: String] {
        if text == "{}" { return [:] }
        return FlatJSON.stringObject(text) ?? (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }
}

extension AlbumFormat {
    /// The format's descriptions (`Album`, `RE`, `Gatefold`); empty when the stored text is not a JSON array of strings.
    public var descriptionList: [String] {
        if descriptions == "[]" { return [] }
        return FlatJSON.stringArray(descriptions) ?? (try? JSONDecoder().decode([String].self, from: Data(descriptions.utf8))) ?? []
    }
}
