import CratedJSON
import Foundation
import Testing

/// The encoder every response body goes through: it must write what Foundation's `JSONEncoder`
/// writes (as parsed JSON), keep keys in declaration order, and never write broken JSON.
@Suite struct StreamingJSONEncoderTests {
    struct Track: Codable, Equatable {
        var title: String
        var duration: Int?
        var side: String?
    }

    struct Album: Codable, Equatable {
        var id: Int64
        var title: String
        var year: Int?
        var rating: Double
        var isCompilation: Bool
        var tracks: [Track]
        var genres: [String]
        var customFields: [String: String]
        var added: Date
        var cover: URL?
        var empty: [Int]
        var nested: [[Int]]
    }

    static let album = Album(
        id: 9_007_199_254_740_993, title: "Déjà Vu \"live\" \\ 1970 / side\nA\tB\u{01}\u{1F}😀", year: nil, rating: 4.5,
        isCompilation: false,
        tracks: [Track(title: "Carry On", duration: 265, side: "A"), Track(title: "", duration: nil, side: nil)],
        genres: ["Rock", "Folk Rock"], customFields: ["Media Condition": "Very Good Plus (VG+)", "": "empty key"],
        added: Date(timeIntervalSince1970: 1_700_000_000), cover: URL(string: "https://i.discogs.com/a/b.jpg?x=1&y=2"),
        empty: [], nested: [[1, 2], [], [3]])

    private func foundationEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private func parsed(_ bytes: some Sequence<UInt8>) throws -> NSObject {
        try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) as! NSObject
    }

    @Test func writesWhatJSONEncoderWritesAndDecodesBack() throws {
        let ours = try StreamingJSONEncoder().encode(Self.album)
        let theirs = try foundationEncoder().encode(Self.album)
        #expect(try parsed(ours) == parsed(theirs))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Album.self, from: Data(ours)) == Self.album)
    }

    @Test func keysKeepDeclarationOrderAndNilsAreLeftOut() throws {
        let bytes = try StreamingJSONEncoder().encode(Track(title: "Ohio", duration: nil, side: "B"))
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"title":"Ohio","side":"B"}"#)
    }

    @Test func numbersAsJSONEncoderWritesThem() throws {
        let values: [Double] = [150, 0.5, -0, 1e-7, 123_456_789_012, 1e300, 8.25]
        let ours = String(decoding: try StreamingJSONEncoder().encode(values), as: UTF8.self)
        let theirs = String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
        #expect(ours == theirs)
        #expect(String(decoding: try StreamingJSONEncoder().encode([Int64.min, 0, Int64.max]), as: UTF8.self)
            == "[-9223372036854775808,0,9223372036854775807]")
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNumberJSONCannotHoldIsAnError(_ value: Double) throws {
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(["width": value]) }
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(Self.album.with(rating: value)) }
    }

    @Test func everyStringSurvivesTheRoundTrip() throws {
        // Every ASCII character (the control characters among them) alone, then scalars from all
        // of Unicode, a step apart, in runs of eight that mix in quotes and backslashes.
        let ascii = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        let spread = stride(from: 0, through: 0x10_FFFF, by: 997).compactMap { Unicode.Scalar(UInt32($0)) }
        let runs = stride(from: 0, to: spread.count, by: 8).map { start in
            "\"" + String(String.UnicodeScalarView(spread[start..<min(start + 8, spread.count)])) + "\\\u{0}"
        }
        for text in ascii + runs + [""] {
            let bytes = try StreamingJSONEncoder().encode([text])
            #expect(try JSONDecoder().decode([String].self, from: Data(bytes)) == [text])
        }
    }

    /// A nested container is finished when its parent writes again, as custom `encode(to:)`s do.
    struct Interleaved: Encodable {
        enum Keys: String, CodingKey { case a, inner, list, z }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .a)
            var inner = container.nestedContainer(keyedBy: Keys.self, forKey: .inner)
            try inner.encode("x", forKey: .a)
            var list = inner.nestedUnkeyedContainer(forKey: .list)
            try list.encode(true)
            try list.encodeNil()
            var deeper = list.nestedContainer(keyedBy: Keys.self)
            try deeper.encode(2.5, forKey: .z)
            try container.encode("end", forKey: .z)
            // Asking for the container again continues the same object.
            var again = encoder.container(keyedBy: Keys.self)
            try again.encode([Int](), forKey: .list)
        }
    }

    @Test func nestedContainersCloseWhenTheirParentMovesOn() throws {
        let text = String(decoding: try StreamingJSONEncoder().encode(Interleaved()), as: UTF8.self)
        #expect(text == #"{"a":1,"inner":{"a":"x","list":[true,null,{"z":2.5}]},"z":"end","list":[]}"#)
        #expect(try parsed(Array(text.utf8)) == parsed(JSONEncoder().encode(Interleaved())))
    }

    struct LateWrite: Encodable {
        enum Keys: String, CodingKey { case inner, after, late }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var inner = container.nestedContainer(keyedBy: Keys.self, forKey: .inner)
            try container.encode(1, forKey: .after)
            try inner.encode(2, forKey: .late)
        }
    }

    @Test func writingIntoAFinishedContainerIsAnErrorNotBrokenJSON() throws {
        #expect(throws: EncodingError.self) { try StreamingJSONEncoder().encode(LateWrite()) }
    }

    /// A class hierarchy's `superEncoder`: the parent's fields go in an object of their own.
    struct WithSuper: Encodable {
        enum Keys: String, CodingKey { case name, `super`, unused }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode("child", forKey: .name)
            try Track(title: "parent", duration: 1, side: nil).encode(to: container.superEncoder())
            _ = container.superEncoder(forKey: .unused)
        }
    }

    @Test func superEncodersHoldTheirValueOrAnEmptyObject() throws {
        let ours = try StreamingJSONEncoder().encode(WithSuper())
        #expect(String(decoding: ours, as: UTF8.self) == #"{"name":"child","super":{"title":"parent","duration":1},"unused":{}}"#)
        #expect(try parsed(ours) == parsed(JSONEncoder().encode(WithSuper())))
    }
}

private extension StreamingJSONEncoderTests.Album {
    func with(rating: Double) -> Self {
        var copy = self
        copy.rating = rating
        return copy
    }
}
