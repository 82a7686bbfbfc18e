@testable import CratedCore
import CratedTestSupport
import Testing

/// The JSON columns read as values (Records+JSON.swift): through `FlatJSON` where it answers, through
/// JSONDecoder where it does not, and empty for text that is not JSON.
@Suite struct RecordsJSONTests {
    @Test func storedColumnsReadTheSameEitherWay() {
        let format = AlbumFormat(albumId: 1, position: 0, name: "Vinyl", quantity: 1, descriptions: #"["LP", "Album"]"#, text: nil)
        #expect(format.descriptionList == ["LP", "Album"])
        var broken = format
        broken.descriptions = "not json"
        #expect(broken.descriptionList == [])
    }

    @Test func customFieldsReadTheSameEitherWay() {
        var copy = CollectionItem(userId: 1, albumId: 1, dateAdded: "2020-01-01T00:00:00Z", copyOrdinal: 0,
                                  customFields: #"{"Purchased At": "Rough Trade", "Price": "\u00a312"}"#)
        #expect(copy.customFieldValues == ["Purchased At": "Rough Trade", "Price": "£12"])
        copy.customFields = "not json"
        #expect(copy.customFieldValues == [:])
    }
}
