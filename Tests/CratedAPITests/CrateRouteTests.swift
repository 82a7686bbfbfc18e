@testable import CratedAPI
import CratedCore
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

    @Test func badCrateNames() async throws {
        let server = try TestServer()
        try await server.test { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{"name": ""}"#, .unprocessableContent, "name"),
                (#"{"name": "   "}"#, .unprocessableContent, "name"),
                (#"{"name": "\#(String(repeating: "x", count: 10_000))"}"#, .unprocessableContent, "name"),
                (#"{"name": "jazz"}"#, .conflict, "name"),
                (#"{"name": "bad\u0007bell"}"#, .unprocessableContent, "name"),
                (#"{"name": 42}"#, .badRequest, "name"),
                (#"{"name": null}"#, .badRequest, "name"),
                (#"{"title": "x"}"#, .badRequest, "title"),
                (#"{"name": "ok", "extra": 1}"#, .badRequest, "extra"),
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
            #expect(try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: #"{"copyIds": [-1]}"#).status == .notFound)
            #expect(try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: #"{"copyIds": ["1"]}"#).status == .badRequest)
            #expect(try await client.call(.post, "/v1/crates/\(id)/copies", token: server.writeToken, json: #"{"copyIds": [1e300]}"#).status == .badRequest)
        }
    }
}
