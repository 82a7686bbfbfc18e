@testable import CratedAPI
import CratedCore
import CratedGrid
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct CopyRouteTests {
    @Test func editACopy() async throws {
        let server = try TestServer()
        let copy = try server.copyIds(user: "collector")[0]
        let jazz = try server.database.crates(userId: 1).first { $0.crate.name == "Jazz" }!.crate.id!
        let rock = try server.database.crates(userId: 1).first { $0.crate.name == "Rock" }!.crate.id!
        try await server.test { client in
            let edited = try await client.call(.patch, "/v1/copies/\(copy)", token: server.writeToken, json: """
                {"rating": 3, "mediaCondition": "Mint (M)", "notes": "cleaned", "customFields": {"Shelf": "B4"}, "crateIds": [\(rock)]}
                """)
            #expect(edited.status == .ok)
            let body = try edited.decode(CopyDTO.self)
            #expect(body.rating == 3)
            #expect(body.mediaCondition == "Mint (M)")
            #expect(body.sleeveCondition == "Very Good (VG)")
            #expect(body.customFields == ["Shelf": "B4"])
            #expect(body.crates.map(\.id) == [rock])

            let cleared = try await client.call(.patch, "/v1/copies/\(copy)", token: server.writeToken, json: #"{"rating": null, "notes": null}"#)
            let clearedCopy = try cleared.decode(CopyDTO.self)
            #expect(clearedCopy.rating == nil)
            #expect(clearedCopy.notes == nil)
            #expect(clearedCopy.mediaCondition == "Mint (M)")
            // Cleared fields are left out of the answer, not sent as null.
            #expect(cleared.objectKeys.isDisjoint(with: ["rating", "notes"]))
            #expect(try server.database.crateContents(id: jazz, userId: 1).entries.allSatisfy { $0.copy.id != copy })
        }
    }

    /// A generated client leaves nil out of its JSON, so it clears by naming the fields in `clear`.
    @Test func clearNamesTheFieldsToClear() async throws {
        let server = try TestServer()
        let copy = try server.copyIds(user: "collector")[0]
        try await server.test { client in
            let set = try await client.call(.patch, "/v1/copies/\(copy)", token: server.writeToken, json: """
                {"rating": 3, "mediaCondition": "Mint (M)", "sleeveCondition": "Generic", "notes": "cleaned"}
                """)
            #expect(set.status == .ok)
            let partly = try await client.decoded(CopyDTO.self, "/v1/copies/\(copy)", method: .patch, token: server.writeToken,
                                                  json: #"{"clear": ["rating", "sleeveCondition"], "notes": "recleaned"}"#)
            #expect(partly.rating == nil && partly.sleeveCondition == nil)
            #expect(partly.mediaCondition == "Mint (M)" && partly.notes == "recleaned")
            // Line breaks and tabs are text, in notes and in a custom field's value.
            let lines = try await client.decoded(CopyDTO.self, "/v1/copies/\(copy)", method: .patch, token: server.writeToken,
                                                 json: #"{"notes": "side A:\tclean\r\nside B: a skip", "customFields": {"Story": "found\nin Leeds"}}"#)
            #expect(lines.notes == "side A:\tclean\r\nside B: a skip" && lines.customFields["Story"] == "found\nin Leeds")
            // Null beside `clear` says the same thing twice: allowed.
            let all = try await client.decoded(CopyDTO.self, "/v1/copies/\(copy)", method: .patch, token: server.writeToken,
                                               json: #"{"clear": ["mediaCondition", "notes", "rating"], "notes": null}"#)
            #expect(all.rating == nil && all.mediaCondition == nil && all.sleeveCondition == nil && all.notes == nil)
            let nothing = try await client.decoded(CopyDTO.self, "/v1/copies/\(copy)", method: .patch, token: server.writeToken, json: #"{"clear": []}"#)
            #expect(nothing.id == all.id && nothing.rating == nil && nothing.notes == nil)
        }
    }

    @Test func badEditsAreRefusedAndChangeNothing() async throws {
        let server = try TestServer()
        let copy = try server.copyIds(user: "collector")[0]
        let alicesCopy = try server.copyIds(user: "alice")[0]
        let before = try server.database.copy(id: copy, userId: 1)
        try await server.test { client in
            let cases: [(String, HTTPResponse.Status, String?)] = [
                (#"{"rating": 7}"#, .unprocessableContent, "rating"),
                (#"{"rating": -1}"#, .unprocessableContent, "rating"),
                (#"{"rating": 99999999999999999999}"#, .badRequest, "rating"),
                (#"{"rating": 4.5}"#, .badRequest, "rating"),
                (#"{"rating": "5"}"#, .badRequest, "rating"),
                (#"{"mediaCondition": "Great"}"#, .unprocessableContent, "mediaCondition"),
                (#"{"sleeveCondition": "Mint"}"#, .unprocessableContent, "sleeveCondition"),
                (#"{"crateIds": [999]}"#, .notFound, nil),
                (#"{"colour": "red"}"#, .badRequest, "colour"),
                (#"{"customFields": {"": "x"}}"#, .unprocessableContent, "customFields"),
                (#"{"customFields": {"a": 1}}"#, .badRequest, "customFields"),
                // An export would write these as the copy's own columns, or one column twice.
                (#"{"customFields": {"Notes": "x"}}"#, .unprocessableContent, "customFields"),
                (#"{"customFields": {" media condition ": "x"}}"#, .unprocessableContent, "customFields"),
                (#"{"customFields": {"Color": "Red", "color": "blue"}}"#, .unprocessableContent, "customFields"),
                (#"{"rating": 4, "crateIds": [999]}"#, .notFound, nil),
                // Stored, a NUL would cut the text short: refused instead.
                (#"{"notes": "before\u0000after"}"#, .unprocessableContent, "notes"),
                (#"{"customFields": {"Shelf": "B\u00004"}}"#, .unprocessableContent, "customFields"),
                // Printed by `crated export` to a terminal, an escape sequence would run there.
                (#"{"notes": "\u001b]0;pwned\u0007\u001b[2J"}"#, .unprocessableContent, "notes"),
                (#"{"notes": "C1 \u009b31m"}"#, .unprocessableContent, "notes"),
                (#"{"customFields": {"Color": "\u001b[41mX"}}"#, .unprocessableContent, "customFields"),
                (#"{"customFields": {"Shelf\nB": "4"}}"#, .unprocessableContent, "customFields"),
                // `clear` names only the clearable fields, and a field is set or cleared, not both.
                (#"{"clear": ["colour"]}"#, .unprocessableContent, "clear"),
                (#"{"clear": ["customFields"]}"#, .unprocessableContent, "clear"),
                (#"{"clear": "rating"}"#, .badRequest, "clear"),
                (#"{"rating": 4, "clear": ["rating"]}"#, .unprocessableContent, "rating"),
                (#"{"notes": "kept", "clear": ["notes", "rating"]}"#, .unprocessableContent, "notes"),
                // The lists and the field map have no null: refused, not taken as left out.
                (#"{"clear": null}"#, .badRequest, "clear"),
                (#"{"customFields": null}"#, .badRequest, "customFields"),
                (#"{"crateIds": null}"#, .badRequest, "crateIds"),
            ]
            for (json, status, field) in cases {
                let response = try await client.call(.patch, "/v1/copies/\(copy)", token: server.writeToken, json: json)
                #expect(response.status == status, "\(json)")
                if let field { #expect(response.error?.field == field, "\(json)") }
            }
            #expect(try await client.call(.patch, "/v1/copies/\(alicesCopy)", token: server.writeToken, json: #"{"rating": 1}"#).status == .notFound)
            #expect(try await client.call(.get, "/v1/copies/\(alicesCopy)", token: server.writeToken).status == .notFound)
            #expect(try await client.call(.get, "/v1/copies/\(copy)", token: server.writeToken).status == .ok)
        }
        let after = try server.database.copy(id: copy, userId: 1)
        #expect(after.copy == before.copy)
        #expect(after.crates == before.crates)
    }

    /// A record sold: its copy leaves the collection and its crates; the album leaves the grid,
    /// search and the album page with its last copy, and stays for another user's copy.
    @Test func removeACopy() async throws {
        let server = try TestServer()
        let kindOfBlue = try server.albumId(release: 1)
        let copies = try await server.database.reader.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM collection_item WHERE user_id = 1 AND album_id = ? ORDER BY date_added", arguments: [kindOfBlue])
        }
        try #require(copies.count == 2)
        let (first, second) = (copies[0], copies[1])
        let jazz = try server.database.crates(userId: 1).first { $0.crate.name == "Jazz" }!.crate.id!
        #expect(try server.database.crateContents(id: jazz, userId: 1).entries.contains { $0.copy.id == first })
        try await server.test { client in
            let grid = "/v1/grid/collection?layout=iPhonePortrait&limit=30"
            let before = try await client.call(.get, grid, token: server.writeToken)
            #expect(try before.decode(GridPage.self).total == 18)
            let etag = try #require(before.headers[.eTag])
            let jazzGrid = "/v1/grid/crates/\(jazz)?layout=iPhonePortrait&limit=30"
            let jazzBefore = try await client.decoded(GridPage.self, jazzGrid, token: server.writeToken)
            #expect(jazzBefore.items.contains { $0.albumId == kindOfBlue })

            #expect(try await client.call(.delete, "/v1/copies/\(first)", token: server.writeToken).status == .noContent)
            // The crate's grid, kept per crate generation, follows.
            let jazzAfter = try await client.decoded(GridPage.self, jazzGrid, token: server.writeToken)
            #expect(jazzAfter.total == jazzBefore.total - 1)
            #expect(!jazzAfter.items.contains { $0.albumId == kindOfBlue })
            #expect(try await client.call(.get, "/v1/copies/\(first)", token: server.writeToken).status == .notFound)
            #expect(try server.database.crateContents(id: jazz, userId: 1).entries.allSatisfy { $0.copy.id != first })
            // One copy left: the album is still there, with it alone.
            let page = try await client.decoded(AlbumDetailDTO.self, "/v1/albums/\(kindOfBlue)", token: server.writeToken)
            #expect(page.copies.map(\.id) == [second])
            #expect(try await client.decoded(GridPage.self, grid, token: server.writeToken).total == 18)

            #expect(try await client.call(.delete, "/v1/copies/\(second)", token: server.writeToken).status == .noContent)
            #expect(try await client.call(.get, "/v1/albums/\(kindOfBlue)", token: server.writeToken).status == .notFound)
            // The grid's tag changed with it: no 304 for the page as it was.
            let after = try await client.execute(uri: grid, method: .get, headers: [.authorization: "Bearer \(server.writeToken)", .ifNoneMatch: etag]) {
                APIResponse(status: $0.status, headers: $0.headers, body: Data(buffer: $0.body))
            }
            #expect(after.status == .ok)
            let afterPage = try after.decode(GridPage.self)
            #expect(afterPage.total == 17)
            #expect(!afterPage.items.contains { $0.albumId == kindOfBlue })
            let found = try await client.decoded(SearchResultsDTO.self, "/v1/search?q=kind%20of%20blue", token: server.writeToken)
            #expect(found.albums.isEmpty)
            // Alice's copy of the same release is hers to keep.
            let alices = try await client.decoded(SearchResultsDTO.self, "/v1/search?q=kind%20of%20blue", token: server.aliceToken)
            #expect(alices.albums.map(\.id) == [kindOfBlue])
            #expect(try await client.call(.get, "/v1/albums/\(kindOfBlue)", token: server.aliceToken).status == .ok)
        }
    }

    /// The mini-player and the history link to an album's page: a record played, then sold, keeps its
    /// page (no copies) and its artist's, where one never played goes with its last copy.
    @Test func aPlayedAlbumKeepsItsPageAfterItsLastCopyGoes() async throws {
        let server = try TestServer()
        let (kindOfBlue, _) = try server.seedKindOfBlueTracks()
        let copies = try await server.database.reader.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM collection_item WHERE user_id = 1 AND album_id = ?", arguments: [kindOfBlue])
        }
        let artist = try await server.database.reader.read { db in
            try #require(try Int64.fetchOne(db, sql: "SELECT artist_id FROM album_artist WHERE album_id = ?", arguments: [kindOfBlue]))
        }
        try await server.test { client in
            #expect(try await client.call(.post, "/v1/player/play", token: server.writeToken, json: #"{"albumId": \#(kindOfBlue)}"#).status == .ok)
            for copy in copies {
                #expect(try await client.call(.delete, "/v1/copies/\(copy)", token: server.writeToken).status == .noContent)
            }
            let player = try await client.call(.get, "/v1/player", token: server.writeToken)
            #expect(String(decoding: player.body, as: UTF8.self).contains(#""id":\#(kindOfBlue)"#))
            let page = try await client.decoded(AlbumDetailDTO.self, "/v1/albums/\(kindOfBlue)", token: server.writeToken)
            #expect(page.id == kindOfBlue && page.copies.isEmpty && !page.sides.isEmpty)
            let artistPage = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(artist)", token: server.writeToken)
            #expect(artistPage.id == artist && artistPage.albums.allSatisfy { $0.id != kindOfBlue })
            // The artist's grid, which an app asks for beside the page, answers too: without it.
            let artistGrid = try await client.decoded(GridPage.self, "/v1/grid/artists/\(artist)?layout=iPhonePortrait", token: server.writeToken)
            #expect(artistGrid.items.allSatisfy { $0.albumId != kindOfBlue })
            let filtered = try await client.call(.get, "/v1/grid/collection?layout=iPhonePortrait&artist=\(artist)", token: server.writeToken)
            #expect(filtered.status == .ok)
            // Someone who owns nothing of theirs and never played it learns nothing of the artist.
            _ = try server.database.addUser(named: "bob")
            let bobsToken = try server.database.createToken(userName: "bob", scope: .read, label: "bob").token
            #expect(try await client.call(.get, "/v1/grid/artists/\(artist)?layout=iPhonePortrait", token: bobsToken).status == .notFound)
            #expect(try await client.call(.get, "/v1/artists/\(artist)", token: bobsToken).status == .notFound)

            // Its first track played long enough to count: taken off the turntable, the album is
            // still in the history, and so is its page.
            server.clock.advance(byMs: 70_000)
            #expect(try await client.call(.post, "/v1/player/stop", token: server.writeToken, json: "{}").status == .ok)
            let history = try await client.call(.get, "/v1/history", token: server.writeToken)
            #expect(String(decoding: history.body, as: UTF8.self).contains(#""albumId":\#(kindOfBlue)"#))
            #expect(try await client.call(.get, "/v1/albums/\(kindOfBlue)", token: server.writeToken).status == .ok)
        }
    }

    @Test func removingWhatIsNotYoursOrWithAReadTokenChangesNothing() async throws {
        let server = try TestServer()
        let copy = try server.copyIds(user: "collector")[0]
        let alicesCopy = try server.copyIds(user: "alice")[0]
        let copiesBefore = try server.copyIds(user: "collector") + server.copyIds(user: "alice")
        try await server.test { client in
            #expect(try await client.call(.delete, "/v1/copies/\(alicesCopy)", token: server.writeToken).status == .notFound)
            #expect(try await client.call(.delete, "/v1/copies/999999", token: server.writeToken).status == .notFound)
            #expect(try await client.call(.delete, "/v1/copies/\(copy)", token: server.readToken).status == .forbidden)
            #expect(try await client.call(.delete, "/v1/copies/\(copy)", token: nil).status == .unauthorized)
            let badId = try await client.call(.delete, "/v1/copies/first", token: server.writeToken)
            #expect(badId.status == .badRequest)
            #expect(badId.error?.field == "id")
        }
        #expect(try server.copyIds(user: "collector") + server.copyIds(user: "alice") == copiesBefore)
    }
}
