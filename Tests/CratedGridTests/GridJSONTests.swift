@testable import CratedCore
@testable import CratedGrid
import CratedJSON
import Foundation
import Testing

/// Grid pages write their JSON by hand (`JSONWritable`); it must be, byte for byte, what their
/// `Encodable` conformance gives.
@Suite struct GridJSONTests {
    private func expectSameJSON(_ page: GridPage, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let encoder = StreamingJSONEncoder()
        let handWritten = String(decoding: try encoder.encode(page), as: UTF8.self)
        let throughCodable = String(decoding: try encoder.encodeThroughCodable(page), as: UTF8.self)
        #expect(handWritten == throughCodable, sourceLocation: sourceLocation)
    }

    @Test func pagesOfARealGridMatchTheirCodableEncoding() throws {
        let fixture = try GridServiceTests.Fixture()
        for query in [
            ["layout": "iPhonePortrait", "limit": "2"],
            ["layout": "iPadFullscreen", "sort": "year"],
            ["layout": "iPhoneLandscape", "sort": "rating", "limit": "1"],
            ["layout": "iPadSplitView", "sort": "title", "sections": "true"],
        ] {
            let first = try fixture.page(query)
            try expectSameJSON(first)
            if let next = first.next {
                var following = query
                following["cursor"] = next
                let second = try fixture.page(following)
                #expect(second.previous != nil)
                try expectSameJSON(second)
            }
        }
    }

    @Test func missingFieldsEscapesAndArtworkMatchTheirCodableEncoding() throws {
        let layout = GridLayout(environment: .iPadFullscreen, width: 1194.5, height: 834, limit: 7)
        let items = [
            GridItem(position: 0, albumId: 1, title: #"Quote " and \ back"#, artist: "Björk\n\t\u{01}🎵", year: nil, copyCount: 2,
                     rating: nil, dateAdded: "2024-01-01T00:00:00Z", artwork: nil),
            GridItem(position: 1, albumId: Int64.max, title: "", artist: "/slash/", year: 1969, copyCount: 1, rating: 5,
                     dateAdded: "2024-01-02T00:00:00Z", artwork: ArtworkReference(url: "/v1/artwork/a\"b\\/640", width: 600, height: 598, color: "#a0b1c2")),
            GridItem(position: 2, albumId: -3, title: "No width", artist: "A", year: 0, copyCount: 0, rating: 1,
                     dateAdded: "", artwork: ArtworkReference(url: "u", width: 1, height: 1, color: nil)),
        ]
        let page = GridPage(layout: layout, items: items, start: 0, total: 3, next: "abc", previous: nil,
                            sections: [GridSection(letter: "#", position: 0), GridSection(letter: "É", position: 2)])
        try expectSameJSON(page)
        // GridItem's Codable is written out: what it writes, missing fields included, reads back the same.
        #expect(try JSONDecoder().decode(GridPage.self, from: Data(StreamingJSONEncoder().encode(page))) == page)
        try expectSameJSON(GridPage(layout: layout, items: [], start: 9, total: 0, next: nil, previous: "p", sections: []))
        try expectSameJSON(GridPage(layout: layout, items: [], start: 0, total: 0, next: nil, previous: nil, sections: nil))
    }

    @Test func cursorPayloadsMatchTheirCodableEncoding() throws {
        let encoder = StreamingJSONEncoder()
        for key in [SortKey.integer(-1969), .integer(0), .text("beatles \"the\" \\ é"), .text("")] {
            for (g, p) in [(nil, nil), (Int64(31), 150_000)] as [(Int64?, Int?)] {
                let payload = GridCursor.Payload(c: "0123abcd", d: .before, g: g, i: 42, k: key, o: "order", p: p, u: 7, v: GridCursor.version)
                #expect(try encoder.encode(payload) == (try encoder.encodeThroughCodable(payload)))
            }
        }
    }

    @Test func aNumberJSONCannotHoldIsAnErrorAsThroughCodable() throws {
        var layout = GridLayout(environment: .iPhonePortrait)
        layout.spacing = .nan
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(layout) }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encodeThroughCodable(layout) }
    }
}
