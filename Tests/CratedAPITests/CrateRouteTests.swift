@testable import CratedAPI
import CratedCore
import CratedTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct CrateRouteTests {
    @Test func listCreateRenameDelete() async throws {
        let server = try TestServer()
        try await server.test { client in
            let crates = try await client.decoded(CrateListDTO.self, "/v1/crates", token: server.writeToken).crates
            #expect(crates.map(\.name) == ["Ambient", "Dub & Reggae", "Jazz", "Rock", "Sell, maybe", "Soul & Funk"])
            #expect(crates.first { $0.name == "Jazz" }?.copies == 3)

            let created = try await client.call(.post, "/v1/crates", token: server.writeToken, json: #"{"name": "  Sunday Morning  "}"#)
            #expect(created.status == .created)
            let crate = try created.decode(CrateDTO.self)
            #expect(crate.name == "Sunday Morning")
            let id = crate.id
            #expect(created.headers[.location] == "/v1/crates/\(id)")

            let renamed = try await client.call(.patch, "/v1/crates/\(id)", token: server.writeToken, json: #"{"name": "Sunday"}"#)
            #expect(try renamed.decode(CrateDTO.self).name == "Sunday")
            #expect(try await client.call(.delete, "/v1/crates/\(id)", token: server.writeToken).status == .noContent)
            #expect(try await client.call(.get, "/v1/crates/\(id)", token: server.writeToken).status == .notFound)
            #expect(try await client.call(.delete, "/v1/crates/\(id)", token: server.writeToken).status == .notFound)
        }
    }

    /// Each crate in the list shows the cover of the album at its front (its first copy in crate order)
    /// at list-row size: 60 points at the request's scale. Null for an empty crate, or when the front
    /// album has no cover.
    @Test func listShowsEachCratesFrontCover() async throws {
        let server = try TestServer()
        let userId = try #require(try server.database.user(named: "collector")?.id)
        let summaries = try server.database.crates(userId: userId)
        let jazz = try #require(summaries.first { $0.crate.name == "Jazz" }).crate.id!
        let jazzCopies = try server.database.crateContents(id: jazz, userId: userId).entries
        #expect(jazzCopies.count == 3)
        let (first, second) = (jazzCopies[0].album.albumId, jazzCopies[1].album.albumId)
        let (firstURL, secondURL) = ("https://img.example/first.jpg", "https://img.example/second.jpg")
        let (firstKey, secondKey) = try await server.database.writer.write { db in
            try db.insertImage(albumId: first, uri: firstURL, uri150: "", width: 600)
            try db.insertImage(albumId: second, uri: secondURL, uri150: "", width: 600)
            return (try db.artworkKey(of: firstURL), try db.artworkKey(of: secondURL))
        }
        // Whichever crate has one of those two albums at its front shows its cover; every other is null.
        let fronts = try Dictionary(uniqueKeysWithValues: summaries.map { summary in
            (summary.crate.name, try server.database.crateContents(id: summary.crate.id!, userId: userId, limit: 1).entries.first?.album.albumId)
        })
        let keys = [first: firstKey, second: secondKey]
        let token = server.writeToken

        try await server.test { client in
            func listed(_ query: String) async throws -> [String: CrateDTO] {
                let crates = try await client.decoded(CrateListDTO.self, "/v1/crates" + query, token: token).crates
                return Dictionary(uniqueKeysWithValues: crates.map { ($0.name, $0) })
            }
            for (query, width) in [("?scale=3", 192), ("?scale=1", 64), ("", 128)] {
                let crates = try await listed(query)
                #expect(crates["Jazz"]?.artwork.value?.url == "/v1/artwork/\(firstKey)/\(width)", "\(query)")
                #expect(crates["Jazz"]?.artwork.value?.width == width, "\(query)")
                for (name, crate) in crates {
                    let expected = fronts[name].flatMap { $0 }.flatMap { keys[$0] }.map { "/v1/artwork/\($0)/\(width)" }
                    #expect(crate.artwork.value?.url == expected, "\(name) \(query)")
                }
            }
            // A scale need not be whole, as on the grids: an app passes its screen's as it is.
            #expect(try await listed("?scale=2.5")["Jazz"]?.artwork.value?.width == 192)

            // Reordered, the crate shows its new front copy's cover.
            let reordered = [jazzCopies[1], jazzCopies[0], jazzCopies[2]].map { String($0.copy.id!) }.joined(separator: ", ")
            let reorder = try await client.call(.put, "/v1/crates/\(jazz)/copies", token: token, json: #"{"copyIds": [\#(reordered)]}"#)
            #expect(reorder.status == .ok)
            #expect(try await listed("")["Jazz"]?.artwork.value?.url == "/v1/artwork/\(secondKey)/128")

            // The renamed crate's answer carries it too, at the request's scale.
            let renamed = try await client.decoded(CrateDTO.self, "/v1/crates/\(jazz)?scale=3", method: .patch, token: token, json: #"{"name": "Jazz, mostly"}"#)
            #expect(renamed.artwork.value?.url == "/v1/artwork/\(secondKey)/192")
            // A bad scale is refused before the rename, which is not made.
            let refused = try await client.call(.patch, "/v1/crates/\(jazz)?scale=9", token: token, json: #"{"name": "Never"}"#)
            #expect(refused.status == .badRequest)
            #expect(refused.error?.field == "scale")
            #expect(try await listed("")["Jazz, mostly"] != nil)

            // A new crate is empty: null (written, not left out) when made and when listed.
            let created = try await client.call(.post, "/v1/crates", token: token, json: #"{"name": "Empty"}"#)
            #expect(created.status == .created)
            #expect(String(decoding: created.body, as: UTF8.self).contains(#""artwork":null"#))
            #expect(try await listed("")["Empty"].map { $0.artwork.value == nil } == true)

            for bad in ["0", "4", "3.01", "nan", "inf", "0x2", "x"] {
                let response = try await client.call(.get, "/v1/crates?scale=\(bad)", token: token)
                #expect(response.status == .badRequest, "scale=\(bad)")
                #expect(response.error?.field == "scale", "scale=\(bad)")
                #expect(response.error?.message == "scale must be a number from 1 to 3", "scale=\(bad)")
            }
        }
    }

    @Test func badCrateNames() async throws {
        let server = try TestServer()
        try await server.test { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{"name": ""}"#, .unprocessableContent, "name"),
                (#"{"name": "   "}"#, .unprocessableContent, "name"),
                (#"{"name": "\#(String(repeating: "x", count: 10_000))"}"#, .unprocessableContent, "name"),
                // One character that carries 5,000 combining marks.
                (#"{"name": "a\#(String(repeating: "\u{301}", count: 5000))"}"#, .unprocessableContent, "name"),
                (#"{"name": "jazz"}"#, .conflict, "name"),
                (#"{"name": "bad\u0007bell"}"#, .unprocessableContent, "name"),
                (#"{"name": 42}"#, .badRequest, "name"),
                (#"{"name": null}"#, .badRequest, "name"),
                (#"{"title": "x"}"#, .badRequest, "title"),
                (#"{"name": "ok", "extra": 1}"#, .badRequest, "extra"),
                // Which of two values was meant is not known: neither is taken.
                (#"{"name": "Dub", "name": "Dub Plates"}"#, .badRequest, "name"),
            ]
            for (json, status, field) in cases {
                let response = try await client.call(.post, "/v1/crates", token: server.writeToken, json: json)
                #expect(response.status == status, "\(json.prefix(40))")
                #expect(response.error?.field == field, "\(json.prefix(40))")
            }
            for malformed in ["{", "[]", "\"name\"", "", "{\"name\": \"x\"} trailing", "null"] {
                let response = try await client.call(.post, "/v1/crates", token: server.writeToken, json: malformed)
                #expect(response.status == .badRequest, "\(malformed)")
                #expect(response.error?.code == "bad_request")
            }
            let huge = #"{"name": ""# + String(repeating: "x", count: 100_000) + #""}"#
            let response = try await client.call(.post, "/v1/crates", token: server.writeToken, json: huge)
            #expect(response.status == .contentTooLarge)
            #expect(response.error?.code == "body_too_large")
        }
        #expect(try server.database.crates(userId: 1).count == 6)
    }

    /// A user makes at most `maxCratesPerUser` crates: the next is a 409 that says so, and deleting
    /// one makes room. Another user is not held back.
    @Test func aUsersCratesAreCapped() async throws {
        let server = try TestServer()
        let existing = try server.database.crates(userId: 1).count
        try await server.database.writer.write { db in
            for index in existing..<AppDatabase.maxCratesPerUser {
                try db.execute(sql: "INSERT INTO crate (user_id, name, created_at, updated_at) VALUES (1, ?, '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z')",
                               arguments: ["Made \(index)"])
            }
        }
        try await server.test { client in
            let refused = try await client.call(.post, "/v1/crates", token: server.writeToken, json: #"{"name": "One more"}"#)
            #expect(refused.status == .conflict)
            #expect(refused.error?.field == nil)
            #expect(refused.error?.message == "you have 1000 crates, the most one user may have; delete one to make another")
            #expect(try await client.call(.post, "/v1/crates", token: server.aliceToken, json: #"{"name": "Alice's next"}"#).status == .created)
            let last = try #require(try server.database.crates(userId: 1).last?.crate.id)
            #expect(try await client.call(.delete, "/v1/crates/\(last)", token: server.writeToken).status == .noContent)
            #expect(try await client.call(.post, "/v1/crates", token: server.writeToken, json: #"{"name": "One more"}"#).status == .created)
        }
    }

    /// Crates are listed by name as a collector reads it, case and accents aside, numbers by value,
    /// on the crate list, a copy's page and an album's.
    @Test func cratesAreListedByNameCaseAndAccentsAside() async throws {
        let server = try TestServer()
        let copy = try server.copyIds(user: "collector")[0]
        try await server.test { client in
            var made: [Int64] = []
            for name in ["Zydeco Nights", "Électro Pop", "Dub Plates 10", "ambient drones", "Dub Plates 2", "eclectic mix"] {
                made.append(try await client.decoded(CrateDTO.self, "/v1/crates", method: .post, token: server.writeToken,
                                                     json: #"{"name": "\#(name)"}"#, expecting: .created).id)
                #expect(try await client.call(.post, "/v1/crates/\(made.last!)/copies", token: server.writeToken, json: #"{"copyIds": [\#(copy)]}"#).status == .ok)
            }
            let listed = try await client.decoded(CrateListDTO.self, "/v1/crates", token: server.readToken).crates.map(\.name)
            let ours = listed.filter { ["Zydeco Nights", "Électro Pop", "Dub Plates 10", "ambient drones", "Dub Plates 2", "eclectic mix"].contains($0) }
            #expect(ours == ["ambient drones", "Dub Plates 2", "Dub Plates 10", "eclectic mix", "Électro Pop", "Zydeco Nights"])
        }
        let onCopy = try server.database.copy(id: copy, userId: 1).crates.map(\.name).filter { ["Zydeco Nights", "Électro Pop", "Dub Plates 10", "ambient drones", "Dub Plates 2", "eclectic mix"].contains($0) }
        #expect(onCopy == ["ambient drones", "Dub Plates 2", "Dub Plates 10", "eclectic mix", "Électro Pop", "Zydeco Nights"])
    }

    /// A name is taken whatever its case and however its accents are encoded.
    @Test func crateNamesAreComparedAfterNormalisationAndCaseFolding() async throws {
        let server = try TestServer()
        try await server.test { client in
            for (name, status) in [("Äb", HTTPResponse.Status.created), ("äb", .conflict), ("ÄB", .conflict),
                                   ("Caf\u{E9}", .created), ("Cafe\u{301}", .conflict), ("CAFÉ", .conflict),
                                   ("Straße", .created), ("STRASSE", .conflict)] {
                let response = try await client.call(.post, "/v1/crates", token: server.writeToken, json: #"{"name": "\#(name)"}"#)
                #expect(response.status == status, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
                if status == .conflict { #expect(response.error?.field == "name") }
            }
            // Stored composed: a name typed decomposed reads back as one character.
            let decomposed = try await client.decoded(CrateDTO.self, "/v1/crates", method: .post, token: server.writeToken,
                                                      json: #"{"name": "Ole\u0301"}"#, expecting: .created)
            #expect(decomposed.name.unicodeScalars.count == 3)
        }
    }

    /// Another process holds the write lock past the busy timeout: a write answers 503 with
    /// `Retry-After` and a clear code, never a 500, and reads go on.
    @Test func aWriteThatCannotGetTheLockIs503WithRetryAfter() async throws {
        let server = try TestServer(busyTimeoutMs: 100)
        // Another process's connection, holding the write lock across the requests.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true
        let other = try DatabaseQueue(path: server.directory.path("crated.sqlite"), configuration: holding)
        try other.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        try await server.test { client in
            let refused = try await client.call(.post, "/v1/crates", token: server.writeToken, json: #"{"name": "Later"}"#)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.error?.code == "database_busy")
            #expect(refused.headers[.retryAfter] == "2")
            #expect(try await client.call(.get, "/v1/crates", token: server.writeToken).status == .ok)
        }
        try other.inDatabase { db in try db.execute(sql: "COMMIT") }
        #expect(try server.database.crates(userId: 1).count == 6)
    }

    @Test func addRemoveAndReorderCopies() async throws {
        let server = try TestServer()
        let mine = try server.copyIds(user: "collector")
        let alices = try server.copyIds(user: "alice")
        try await server.test { client in
            let id = try await client.decoded(CrateDTO.self, "/v1/crates", method: .post, token: server.writeToken, json: #"{"name": "Queue"}"#,
                                              expecting: .created).id
            // The crate list's counts are kept between writes: each write must show in the next list.
            let listedCopies = { @Sendable () async throws -> Int? in
                try await client.decoded(CrateListDTO.self, "/v1/crates", token: server.writeToken).crates.first { $0.id == id }?.copies
            }
            let empty = try await listedCopies()
            #expect(empty == 0)
            let added = try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: "{\"copyIds\": [\(mine[2]), \(mine[0]), \(mine[1]), \(mine[0])]}")
            #expect(try added.decode(AddedDTO.self).added == 3)
            let three = try await listedCopies()
            #expect(three == 3)

            var detail = try await client.decoded(CrateDetailDTO.self, "/v1/crates/\(id)", token: server.writeToken)
            #expect(detail.items.map(\.copyId) == [mine[2], mine[0], mine[1]])

            let reordered = try await client.call(.put, "/v1/crates/\(id)/copies", token: server.writeToken, json: "{\"copyIds\": [\(mine[0]), \(mine[1]), \(mine[2])]}")
            #expect(reordered.status == .ok)
            #expect(try reordered.decode(CrateDetailDTO.self).items.map(\.copyId) == [mine[0], mine[1], mine[2]])
            let partial = try await client.call(.put, "/v1/crates/\(id)/copies", token: server.writeToken, json: "{\"copyIds\": [\(mine[0])]}")
            #expect(partial.status == .unprocessableContent)
            // The answer's parameters are read before the write: a bad one reorders nothing.
            for query in ["scale=9", "limit=0", "limit=x"] {
                let refused = try await client.call(.put, "/v1/crates/\(id)/copies?\(query)", token: server.writeToken,
                                                    json: "{\"copyIds\": [\(mine[2]), \(mine[1]), \(mine[0])]}")
                #expect(refused.status == .badRequest && refused.error?.field == query.prefix { $0 != "=" }.description, "\(query)")
            }
            detail = try await client.decoded(CrateDetailDTO.self, "/v1/crates/\(id)", token: server.writeToken)
            #expect(detail.items.map(\.copyId) == [mine[0], mine[1], mine[2]])
            let firstTwo = try await client.call(.put, "/v1/crates/\(id)/copies?limit=2", token: server.writeToken,
                                                 json: "{\"copyIds\": [\(mine[0]), \(mine[1]), \(mine[2])]}")
            #expect(try firstTwo.decode(CrateDetailDTO.self).items.map(\.copyId) == [mine[0], mine[1]])

            #expect(try await client.call(.delete, "/v1/crates/\(id)/copies/\(mine[1])", token: server.writeToken).status == .noContent)
            #expect(try await client.call(.delete, "/v1/crates/\(id)/copies/\(mine[1])", token: server.writeToken).status == .notFound)
            detail = try await client.decoded(CrateDetailDTO.self, "/v1/crates/\(id)", token: server.writeToken)
            #expect(detail.copies == 2)
            let two = try await listedCopies()
            #expect(two == 2)

            // Someone else's copy or crate does not exist for this user.
            let foreignCopy = try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: "{\"copyIds\": [\(alices[0])]}")
            #expect(foreignCopy.status == .notFound)
            #expect(try await client.call(.get, "/v1/crates/\(id)", token: server.aliceToken).status == .notFound)
            #expect(try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: #"{"copyIds": []}"#).status == .unprocessableContent)
            #expect(try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: #"{"copyIds": [-1]}"#).status == .unprocessableContent)
            #expect(try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: #"{"copyIds": ["1"]}"#).status == .badRequest)
            for json in [#"{"copyIds": [1e300]}"#, #"{"copyIds": [1.5]}"#, #"{"copyIds": [99999999999999999999999]}"#] {
                let notAnId = try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: json)
                #expect(notAnId.status == .badRequest, "\(json)")
                #expect(notAnId.error?.field == "copyIds", "\(json)")
                #expect(notAnId.error?.message.hasPrefix("copyIds must be a whole number") == true, "\(json): \(notAnId.error?.message ?? "")")
            }
        }
    }

    /// An app's grid lists albums: `POST /v1/crates/{id}/albums` files a copy of each, the first
    /// copy of an album the crate does not hold, all or nothing.
    @Test func albumsAreAddedAsACopyOfEach() async throws {
        let server = try TestServer()
        let (collector, alice) = try await server.database.reader.read { db in
            (try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'collector'")!, try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'alice'")!)
        }
        // Each album of the collector's with its copies, first copy first.
        let copiesByAlbum = try await server.database.reader.read { db in
            Dictionary(grouping: try Row.fetchAll(db, sql: "SELECT album_id, id FROM collection_item WHERE user_id = ? ORDER BY id", arguments: [collector]),
                       by: { $0["album_id"] as Int64 }).mapValues { $0.map { $0["id"] as Int64 } }
        }
        let twoCopies = try #require(copiesByAlbum.first { $0.value.count == 2 }?.key, "Kind Of Blue, twice in the sample")
        let others = copiesByAlbum.keys.filter { $0 != twoCopies }.sorted().prefix(2)
        let (second, third) = (others.first!, others.last!)
        let alicesOnly = try await server.database.reader.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT album_id FROM collection_item WHERE user_id = ? AND album_id NOT IN (SELECT album_id FROM collection_item WHERE user_id = ?)
                """, arguments: [alice, collector])!
        }
        try await server.test { client in
            let id = try await client.decoded(CrateDTO.self, "/v1/crates", method: .post, token: server.writeToken, json: #"{"name": "From the grid"}"#,
                                              expecting: .created).id
            let add = { @Sendable (json: String, token: String) async throws -> APIResponse in
                try await client.call(.post, "/v1/crates/\(id)/albums", token: token, json: json)
            }
            let items = { @Sendable () async throws -> [Int64] in
                try await client.decoded(CrateDetailDTO.self, "/v1/crates/\(id)", token: server.writeToken).items.map(\.copyId)
            }
            let added = try await add("{\"albumIds\": [\(twoCopies), \(second), \(twoCopies)]}", server.writeToken)
            #expect(added.status == .ok)
            #expect(try added.decode(AddedDTO.self).added == 2)
            #expect(try await items() == [copiesByAlbum[twoCopies]![0], copiesByAlbum[second]![0]])
            // An album the crate holds a copy of adds nothing, its other copy included.
            #expect(try await add("{\"albumIds\": [\(twoCopies)]}", server.writeToken).decode(AddedDTO.self).added == 0)

            // An album not in the collection: 404, and the others of the request are not added.
            let foreign = try await add("{\"albumIds\": [\(third), \(alicesOnly)]}", server.writeToken)
            #expect(foreign.status == .notFound)
            #expect(foreign.error?.message.contains("album \(alicesOnly)") == true, "\(foreign.error?.message ?? "")")
            #expect(try await items().count == 2)

            #expect(try await add(#"{"albumIds": []}"#, server.writeToken).status == .unprocessableContent)
            let tooMany = "{\"albumIds\": [\(Array(repeating: String(third), count: 1001).joined(separator: ","))]}"
            #expect(try await add(tooMany, server.writeToken).status == .unprocessableContent)
            #expect(try await add(#"{"albumIds": ["1"]}"#, server.writeToken).status == .badRequest)
            for ids in ["[0]", "[-1]"] {
                let notAnId = try await add("{\"albumIds\": \(ids)}", server.writeToken)
                #expect(notAnId.status == .unprocessableContent && notAnId.error?.field == "albumIds", "\(ids)")
                let notACopy = try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: "{\"copyIds\": \(ids)}")
                #expect(notACopy.status == .unprocessableContent && notACopy.error?.field == "copyIds", "\(ids)")
            }
            #expect(try await add(#"{"albumIds": [1], "copyIds": [1]}"#, server.writeToken).status == .badRequest)
            #expect(try await add("{\"albumIds\": [\(third)]}", server.readToken).status == .forbidden)
            // Another user's crate is not there for them.
            #expect(try await add("{\"albumIds\": [\(alicesOnly)]}", server.aliceToken).status == .notFound)
            #expect(try await client.call(.post, "/v1/crates/999999/albums", token: server.writeToken, json: "{\"albumIds\": [\(third)]}").status == .notFound)
            #expect(try await items().count == 2)

            // Out again by album, as a client editing the crate from its grid does: every copy of it.
            let secondCopy = copiesByAlbum[twoCopies]![1]
            #expect(try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: "{\"copyIds\": [\(secondCopy)]}").status == .ok)
            #expect(try await items().count == 3)
            #expect(try await client.call(.delete, "/v1/crates/\(id)/albums/\(twoCopies)", token: server.readToken).status == .forbidden)
            #expect(try await client.call(.delete, "/v1/crates/\(id)/albums/\(twoCopies)", token: server.aliceToken).status == .notFound)
            #expect(try await items().count == 3)
            #expect(try await client.call(.delete, "/v1/crates/\(id)/albums/\(twoCopies)", token: server.writeToken).status == .noContent)
            #expect(try await items() == [copiesByAlbum[second]![0]])
            let again = try await client.call(.delete, "/v1/crates/\(id)/albums/\(twoCopies)", token: server.writeToken)
            #expect(again.status == .notFound && again.error?.message.contains("album \(twoCopies) in crate \(id)") == true)
            for bad in ["0", "-1", "x"] {
                #expect(try await client.call(.delete, "/v1/crates/\(id)/albums/\(bad)", token: server.writeToken).status == .badRequest, "\(bad)")
            }
        }
    }

    /// Every copy of the crate, walking its pages by `next`.
    static func walk(_ client: some TestClientProtocol, crate id: Int64, token: String, limit: Int) async throws -> [Int64] {
        var copies: [Int64] = []
        var after: String?
        repeat {
            let page = try await client.decoded(CrateDetailDTO.self, "/v1/crates/\(id)?limit=\(limit)" + (after.map { "&after=\($0)" } ?? ""), token: token)
            #expect(page.items.count <= limit)
            copies += page.items.map(\.copyId)
            after = page.next
        } while after != nil
        return copies
    }

    /// A crate's copies come in pages that together hold each copy once, in crate order; a move puts
    /// one copy before or after another and leaves the others in their order.
    @Test func crateContentsComeInPagesAndMovesReorderThem() async throws {
        let server = try TestServer()
        let mine = try server.copyIds(user: "collector")
        try await server.test { client in
            let crate = try await client.decoded(CrateDTO.self, "/v1/crates", method: .post, token: server.writeToken,
                                                 json: #"{"name": "Everything"}"#, expecting: .created)
            let added = try await client.decoded(AddedDTO.self, "/v1/crates/\(crate.id)/copies", method: .post, token: server.writeToken,
                                                 json: "{\"copyIds\": \(mine)}")
            #expect(added.added == mine.count)
            let first = try await client.decoded(CrateDetailDTO.self, "/v1/crates/\(crate.id)?limit=5", token: server.writeToken)
            #expect(first.copies == mine.count)
            #expect(first.items.map(\.copyId) == Array(mine.prefix(5)))
            #expect(first.next != nil)
            var model = mine
            #expect(try await Self.walk(client, crate: crate.id, token: server.readToken, limit: 7) == model)

            // Random moves, checked against a list moved the same way.
            var generator = SeededGenerator(seed: 17)
            for _ in 0..<40 {
                let moving = model.randomElement(using: &generator)!
                let anchor = model.filter { $0 != moving }.randomElement(using: &generator)!
                let after = Bool.random(using: &generator)
                let moved = try await client.call(.patch, "/v1/crates/\(crate.id)/copies/\(moving)", token: server.writeToken,
                                                  json: "{\"\(after ? "after" : "before")\": \(anchor)}")
                #expect(moved.status == .noContent)
                model.removeAll { $0 == moving }
                let anchorIndex = model.firstIndex(of: anchor)!
                model.insert(moving, at: after ? anchorIndex + 1 : anchorIndex)
            }
            #expect(try await Self.walk(client, crate: crate.id, token: server.readToken, limit: 6) == model)
            #expect(try await Self.walk(client, crate: crate.id, token: server.readToken, limit: 500) == model)
        }
    }

    @Test func badPagesAndMoves() async throws {
        let server = try TestServer()
        let mine = try server.copyIds(user: "collector")
        let alices = try server.copyIds(user: "alice")
        let jazz = try server.database.crates(userId: 1).first { $0.crate.name == "Jazz" }!.crate.id!
        let inJazz = try server.database.crateContents(id: jazz, userId: 1).entries.map { $0.copy.id! }
        let notInJazz = mine.first { !inJazz.contains($0) }!
        try await server.test { client in
            for query in ["limit=0", "limit=501", "limit=x", "after=x", "after=1_0", "after=-1_5", "after=1_2_3", "after=_"] {
                let response = try await client.call(.get, "/v1/crates/\(jazz)?\(query)", token: server.readToken)
                #expect(response.status == .badRequest, "\(query)")
                #expect(response.error?.code == "bad_parameter", "\(query)")
            }
            let cases: [(String, String, HTTPResponse.Status)] = [
                ("\(inJazz[0])", #"{"before": \#(inJazz[0])}"#, .unprocessableContent),
                ("\(inJazz[0])", #"{"before": \#(inJazz[1]), "after": \#(inJazz[2])}"#, .badRequest),
                ("\(inJazz[0])", #"{}"#, .badRequest),
                ("\(inJazz[0])", #"{"before": "x"}"#, .badRequest),
                ("\(inJazz[0])", #"{"beside": 1}"#, .badRequest),
                ("\(inJazz[0])", #"{"before": \#(notInJazz)}"#, .notFound),
                ("\(notInJazz)", #"{"before": \#(inJazz[0])}"#, .notFound),
                ("\(alices[0])", #"{"before": \#(inJazz[0])}"#, .notFound),
                ("0", #"{"before": \#(inJazz[0])}"#, .badRequest),
            ]
            for (copy, json, status) in cases {
                let response = try await client.call(.patch, "/v1/crates/\(jazz)/copies/\(copy)", token: server.writeToken, json: json)
                #expect(response.status == status, "\(copy) \(json)")
            }
            let read = try await client.call(.patch, "/v1/crates/\(jazz)/copies/\(inJazz[0])", token: server.readToken, json: #"{"after": \#(inJazz[1])}"#)
            #expect(read.status == .forbidden)
            let alicesCrate = try await client.call(.patch, "/v1/crates/\(jazz)/copies/\(inJazz[0])", token: server.aliceToken, json: #"{"after": \#(inJazz[1])}"#)
            #expect(alicesCrate.status == .notFound)
        }
        #expect(try server.database.crateContents(id: jazz, userId: 1).entries.map { $0.copy.id! } == inJazz)
    }
}
