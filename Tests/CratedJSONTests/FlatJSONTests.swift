@testable import CratedJSON
import Foundation
import Testing

/// `FlatJSON` stands in for `JSONDecoder` on the small JSON crated stores; where it answers, it must
/// answer what JSONDecoder does, and it must refuse what it does not read (the caller falls back).
@Suite struct FlatJSONTests {
    static let arrays = [
        #"[]"#, #"["LP"]"#, #"["LP", "Album", "Reissue"]"#, #" [ "a" , "b" ] "#, #"["quote \" back \\ slash \/"]"#,
        #"["\n\t\r\b\f"]"#, #"["\u00e9\u0041"]"#, #"["\ud83c\udfb5 note"]"#, #"["Déjà vu 🎵"]"#, #"[""]"#,
    ]
    static let objects = [
        #"{}"#, #"{"Shelf": "B3"}"#, #"{"a": "1", "b": "two", "": "empty"}"#, #"{"quote \"": "line\nbreak \u00e9"}"#,
        #" { "spaced" : "out" } "#,
    ]
    /// Not flat, not strings, or not JSON: nil, so that the caller decides.
    static let refused = [
        #""#, #"["a","#, #"["a" "b"]"#, #"[1, 2]"#, #"[["a"]]"#, #"["a"] x"#, #"{"a": 1}"#, #"{"a": {"b": "c"}}"#,
        #"{"a": "1", "a": "2"}"#, #"["\x"]"#, #"["\ud83c"]"#, "[\"raw\u{01}control\"]", #"{"a" "b"}"#, #"null"#,
    ]

    @Test(arguments: arrays) func arraysOfStringsReadAsJSONDecoderReadsThem(_ text: String) throws {
        let expected = try JSONDecoder().decode([String].self, from: Data(text.utf8))
        #expect(FlatJSON.stringArray(text) == expected)
    }

    @Test(arguments: objects) func objectsOfStringsReadAsJSONDecoderReadsThem(_ text: String) throws {
        let expected = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        #expect(FlatJSON.stringObject(text) == expected)
    }

    @Test(arguments: refused) func anythingElseIsLeftToTheCaller(_ text: String) {
        #expect(FlatJSON.stringArray(text) == nil)
        #expect(FlatJSON.stringObject(text) == nil)
    }
}
