import CratedJSON
import CratedTestSupport
import Foundation
import Testing

/// `JSONText` writes the JSON columns the database stores: it must read back as what it was given
/// through JSONDecoder, and an object's text must not depend on the order of its fields.
@Suite struct JSONTextTests {
    static let pieces = ["a", "Déjà", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{8}", "\u{C}", "\u{1F}", " ", "e\u{301}", "\u{301}", "😀", "/", "{", "", "x:y"]

    @Test func arraysAndObjectsReadBackAsTheyWereGiven() throws {
        let texts = SeededGenerator.texts(count: 5_000, seed: 5, pieces: Self.pieces)
        var generator = SeededGenerator(seed: 6)
        for _ in 0..<2_000 {
            let values = (0..<Int.random(in: 0...3, using: &generator)).map { _ in texts.randomElement(using: &generator)! }
            #expect(try JSONDecoder().decode([String].self, from: Data(JSONText.array(values).utf8)) == values)
            let pairs = values.map { (name: texts.randomElement(using: &generator)!, value: $0) }
            let object = JSONText.object(pairs)
            // Later fields win, as a re-import of a row with a repeated column does.
            let expected = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            let decoded = try JSONDecoder().decode([String: String].self, from: Data(object.utf8))
            if expected.count == pairs.count { #expect(decoded == expected) }
            #expect(JSONText.object(pairs.reversed()) == object || expected.count < pairs.count)
        }
    }

    @Test func emptyAndEscapedTextIsCompact() {
        #expect(JSONText.array([]) == "[]")
        #expect(JSONText.object([]) == "{}")
        #expect(JSONText.array(["LP", "Album"]) == #"["LP","Album"]"#)
        #expect(JSONText.object([("b", "2"), ("a", "1\n\"")]) == #"{"a":"1\n\"","b":"2"}"#)
        #expect(JSONText.array(["\u{1}\u{8}"]) == #"["\u0001\b"]"#)
    }
}
