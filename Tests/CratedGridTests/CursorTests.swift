import CratedTestSupport
import CratedJSON
import CratedCore
@testable import CratedGrid
import Foundation
import GRDB
import Testing

/// Cursors are opaque, and refused as a bad `cursor` when they are not for this user and this grid.
@Suite struct CursorTests {
    @Test func aCursorRoundTripsAndStaysValidAcrossLayouts() throws {
        let fixture = try GridServiceTests.Fixture()
        let first = try fixture.page(["sort": "title", "layout": "iPhonePortrait", "limit": "1"])
        #expect(first.items.count == 2)
        let next = try #require(first.next)
        // The token is base64url: no padding, no characters that need escaping in a query string.
        #expect(next.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let second = try fixture.page(["sort": "title", "layout": "iPadFullscreen", "cursor": next])
        #expect(second.start == 2)
        #expect(second.items.map(\.title) == ["A Love Supreme", "Revolver"])
        #expect(second.next == nil)
        #expect(second.previous != nil)
    }

    /// The artist sort's key holds the credit and the title: a long one in a script of 3-byte
    /// letters still makes a cursor the server takes back.
    @Test func aCursorHoldsTheLongestArtistKey() throws {
        let key = GridKey.artist(creditSortKey: String(repeating: "坂本", count: 500), year: 1990, titleSortKey: String(repeating: "日", count: 1000))
        let cursor = GridCursor(userId: 7, order: "abc123", direction: .after, anchor: GridAnchor(key: .text(key), albumId: 99),
                                placement: GridCursor.Placement(position: 150_000, generation: 12))
        #expect(cursor.token.utf8.count > 4096)
        #expect(try GridCursor(token: cursor.token, userId: 7, order: "abc123") == cursor)
        #expect(throws: GridError.self) { try GridCursor(token: String(repeating: "A", count: GridCursor.maximumLength + 1), userId: 7, order: "abc123") }
    }

    @Test func cursorsHoldAnySortKeyAndReadJSONAsOtherEncodersWriteIt() throws {
        let awkward = "Déjà \"Vu\" \\ back/slash\n\t\u{01}\u{1F} 😀 ünïcode"
        for key in [SortKey.text(awkward), .text(""), .integer(-42), .integer(Int64.max)] {
            for direction in [GridCursor.Direction.after, .before] {
                for placement in [nil, GridCursor.Placement(position: 150_000, generation: 12), GridCursor.Placement(position: 0, generation: -1)] {
                    let cursor = GridCursor(userId: 7, order: "abc123", direction: direction, anchor: GridAnchor(key: key, albumId: 99),
                                            placement: placement)
                    #expect(try GridCursor(token: cursor.token, userId: 7, order: "abc123") == cursor)
                }
            }
        }
        // The same object as another encoder writes it: escaped slashes, \u escapes, a surrogate pair
        // and spaces. Cursors made before this server wrote its own JSON read the same way.
        let cursor = GridCursor(userId: 7, order: "abc123", direction: .after, anchor: GridAnchor(key: .text(awkward), albumId: 99))
        let json = String(decoding: try #require(Data(base64Encoded: base64(cursor.token))), as: UTF8.self)
        let rewritten = json
            .replacingOccurrences(of: "/", with: "\\/")
            .replacingOccurrences(of: "😀", with: "\\ud83d\\ude00")
            .replacingOccurrences(of: "Déjà", with: "D\\u00e9j\\u00E0")
            .replacingOccurrences(of: ",", with: " , ")
        #expect(rewritten != json)
        #expect(try GridCursor(token: base64url(Data(rewritten.utf8)), userId: 7, order: "abc123") == cursor)
        // Not the object a cursor holds: refused, whatever JSON it is.
        for broken in [
            json.replacingOccurrences(of: "\"i\":99", with: "\"i\":99.5"),
            json.replacingOccurrences(of: "\"i\":99", with: "\"i\":99,\"i\":99"),
            json.replacingOccurrences(of: "\"i\":99", with: "\"i\":{\"n\":99}"),
            json.replacingOccurrences(of: "\"i\":99", with: "\"i\":99999999999999999999"),
            json.replacingOccurrences(of: "😀", with: "\\ud83d"),
            json + "x", String(json.dropLast()),
        ] {
            #expect(throws: GridError.self, "\(broken)") {
                try GridCursor(token: base64url(Data(broken.utf8)), userId: 7, order: "abc123")
            }
        }
    }

    /// A cursor's wire form (checksum, JSON, base64url) is pinned, so that changing it is a deliberate
    /// new `version`; a cursor of the first version, whose checksum was FNV-1a, is refused as a bad cursor.
    @Test func theCursorsWireFormIsPinned() throws {
        let order = GridRequest().orderFingerprint
        #expect(order == "fe7ab74525625435")
        let cursor = GridCursor(userId: 1, order: order, direction: .after, anchor: GridAnchor(key: .text("ulste nesbertorti"), albumId: 77250),
                                placement: GridCursor.Placement(position: 150_029, generation: 2))
        #expect(cursor.token == "eyJjIjoiZDFhNjE4MTYxNmViZTJkNyIsImQiOiJhIiwiZyI6MiwiaSI6NzcyNTAsImsiOiJ1bHN0ZSBuZXNiZXJ0b3J0aSIsIm8iOiJmZTdhYjc0NTI1NjI1NDM1IiwicCI6MTUwMDI5LCJ1IjoxLCJ2IjoyfQ")
        #expect(try GridCursor(token: cursor.token, userId: 1, order: order) == cursor)
        let firstVersion = "eyJjIjoiMDliZGI5MzJkOTFhNWUzMiIsImQiOiJhIiwiZyI6MiwiaSI6NzcyNTAsImsiOiJ1bHN0ZSBuZXNiZXJ0b3J0aSIsIm8iOiIxZDEwZmE0MDA3YmUwZDUxIiwicCI6MTUwMDI5LCJ1IjoxLCJ2IjoxfQ"
        #expect(throws: GridError.self) { try GridCursor(token: firstVersion, userId: 1, order: "1d10fa4007be0d51") }
    }

    /// The checksum is compared as a number, but only as the 16 lowercase hex digits cursors carry.
    @Test func aChecksumWrittenAnotherWayIsRefused() throws {
        let cursor = GridCursor(userId: 7, order: "abc123", direction: .after, anchor: GridAnchor(key: .integer(1999), albumId: 5))
        let json = String(decoding: try #require(Base64URL.decode(cursor.token)), as: UTF8.self)
        let checksum = try #require(json.split(separator: "\"").dropFirst(3).first.map(String.init))
        #expect(checksum.count == 16)
        #expect(try GridCursor(token: Base64URL.encode(Array(json.utf8)), userId: 7, order: "abc123") == cursor)
        let unpadded = String(UInt64(checksum, radix: 16)!, radix: 16)
        for other in [checksum.uppercased(), "+" + checksum.dropFirst(), String(repeating: "0", count: 17 - unpadded.count) + unpadded, "0x" + checksum.dropFirst(2)]
        where other != checksum {
            let altered = json.replacingOccurrences(of: checksum, with: other)
            #expect(throws: GridError.self, "\(other)") {
                try GridCursor(token: Base64URL.encode(Array(altered.utf8)), userId: 7, order: "abc123")
            }
        }
    }

    @Test func base64URLIsBase64WithTheURLAlphabetAndNoPadding() {
        var random = SeededGenerator(seed: 5)
        for length in 0...66 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(Base64URL.encode(bytes) == base64url(Data(bytes)), "\(length) bytes")
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes, "\(length) bytes")
        }
        #expect(Base64URL.encode(Array("subjects?_d".utf8)) == "c3ViamVjdHM_X2Q")
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xfb, 0xff])
        #expect(Base64URL.decode("") == [])
        // Not what `encode` writes: padding, the other alphabet, a length no bytes have, bits left
        // over in the last character, anything not ASCII.
        #expect(Base64URL.decode("QQ") == [0x41])
        for text in ["-_8=", "+/8", "c3ViamVjdHM/X2Q", "abcde", "-_9", "QR", "Zm9vYg==", "Zm9v Yg", "Zm9vé"] {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        }
    }

    @Test func aCursorsPlacementIsCheckedAndUsedOnlyWhileNothingChanged() throws {
        let fixture = try GridServiceTests.Fixture()
        let first = try fixture.page(["layout": "iPhonePortrait", "limit": "2"])
        let next = try #require(first.next)
        let json = String(decoding: try #require(Data(base64Encoded: base64(next))), as: UTF8.self)
        #expect(json.contains(#""p":1"#) && json.contains(#""g":"#), "\(json)")
        // Altered, or half there: refused like any altered cursor.
        for broken in [json.replacingOccurrences(of: #""p":1"#, with: #""p":0"#),
                       json.replacingOccurrences(of: #""p":1,"#, with: ""),
                       json.replacingOccurrences(of: #""p":1"#, with: #""p":-1"#)] {
            #expect(throws: GridError.self, "\(broken)") {
                try fixture.page(["layout": "iPhonePortrait", "limit": "2", "cursor": base64url(Data(broken.utf8))])
            }
        }
        // The page it leads to is the page after the first, with or without its placement.
        let withPlacement = try fixture.page(["layout": "iPhonePortrait", "limit": "2", "cursor": next])
        var counted = try GridCursor(token: next, userId: fixture.collector, order: GridRequest(scope: .collection, query: ["layout": "iPhonePortrait"]).orderFingerprint)
        counted.placement = nil
        let withoutPlacement = try fixture.page(["layout": "iPhonePortrait", "limit": "2", "cursor": counted.token])
        #expect(withPlacement.start == 2 && withPlacement.items.map(\.albumId) == withoutPlacement.items.map(\.albumId))
        #expect(withPlacement.start == withoutPlacement.start)
        // Once something changes, the placement is stale and the position is counted again.
        try fixture.temporary.database.writer.write { db in
            try db.execute(sql: "DELETE FROM collection_item WHERE user_id = ? AND album_id = ?", arguments: [fixture.collector, first.items[0].albumId])
        }
        let afterDelete = try fixture.page(["layout": "iPhonePortrait", "limit": "2", "cursor": next])
        #expect(afterDelete.start == 1)
        // Position 1 of two columns: the page fills the partial row first.
        #expect(afterDelete.items.map(\.albumId) == [withPlacement.items[0].albumId])
    }

    @Test func badCursorsAreRefusedNamingTheCursor() throws {
        let fixture = try GridServiceTests.Fixture()
        let next = try #require(try fixture.page(["sort": "title", "limit": "1"]).next)
        let payload = try #require(Data(base64Encoded: base64(next)))
        var altered = try JSONSerialization.jsonObject(with: payload) as! [String: Any]
        altered["i"] = (altered["i"] as! Int) + 1
        let tampered = base64url(try JSONSerialization.data(withJSONObject: altered))
        let truncated = String(next.dropLast(4))

        let cases: [(query: [String: String], user: Int64?, message: String)] = [
            (["sort": "title", "cursor": next], fixture.other, "belongs to another user"),
            (["sort": "artist", "cursor": next], nil, "belongs to another grid, sort or filter; start again without a cursor"),
            (["sort": "title", "genre": "Jazz", "cursor": next], nil, "belongs to another grid, sort or filter; start again without a cursor"),
            (["sort": "title", "cursor": "!!!not base64!!!"], nil, "is not a cursor from this server, or it was altered; start again without a cursor"),
            (["sort": "title", "cursor": "aGVsbG8gd29ybGQ"], nil, "is not a cursor from this server, or it was altered; start again without a cursor"),
            (["sort": "title", "cursor": truncated], nil, "is not a cursor from this server, or it was altered; start again without a cursor"),
            (["sort": "title", "cursor": tampered], nil, "is not a cursor from this server, or it was altered; start again without a cursor"),
            (["sort": "title", "cursor": String(repeating: "A", count: 5000)], nil, "is not a cursor from this server, or it was altered; start again without a cursor"),
        ]
        for (query, user, message) in cases {
            #expect(throws: GridError.badParameter("cursor", message), "\(query)") {
                try fixture.page(query, user: user)
            }
        }
        // The same cursor in another scope: another grid.
        #expect(throws: GridError.badParameter("cursor", "belongs to another grid, sort or filter; start again without a cursor")) {
            try fixture.page(["sort": "title", "cursor": next], scope: .crate(id: fixture.crate))
        }
    }

    @Test func gridParametersAreCheckedNamingTheParameter() throws {
        let fixture = try GridServiceTests.Fixture()
        let cases: [([String: String], String)] = [
            (["layout": "iPhoneMini"], "layout"),
            (["width": "0"], "width"),
            (["width": "-1"], "width"),
            (["width": "NaN"], "width"),
            (["width": "1e308"], "width"),
            (["limit": "0"], "limit"),
            (["limit": "100000"], "limit"),
            (["scale": "7"], "scale"),
            (["hsc": "huge"], "hsc"),
            (["sort": "colour"], "sort"),
            (["at": "-1"], "at"),
            (["at": "two"], "at"),
            (["around": "0"], "around"),
            (["crate": "x"], "crate"),
            (["artist": "-3"], "artist"),
            // One id, one spelling: no sign, no leading zero, no spaces.
            (["artist": "+13"], "artist"),
            (["crate": "013"], "crate"),
            (["around": " 13"], "around"),
            (["yearFrom": "10000"], "yearFrom"),
            (["yearFrom": "1980", "yearTo": "1970"], "yearTo"),
            (["genre": String(repeating: "g", count: 201)], "genre"),
            (["sections": "maybe"], "sections"),
            (["at": "3", "around": "1"], "around"),
            (["cursor": "abc", "at": "3"], "at"),
        ]
        for (query, parameter) in cases {
            let error = try #require(throws: GridError.self, "\(query)") { try fixture.page(query) }
            #expect(error.parameter == parameter, "\(query): \(error)")
            #expect(error.httpStatus == 400, "\(query)")
        }
    }

    private func base64(_ token: String) -> String {
        let standard = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return standard + String(repeating: "=", count: (4 - standard.count % 4) % 4)
    }

    private func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
