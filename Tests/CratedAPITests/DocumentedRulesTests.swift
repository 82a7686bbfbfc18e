@testable import CratedAPI
import CratedCore
import CratedGrid
import CratedTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing
import Yams

/// The rules the OpenAPI document states with schema keywords (`oneOf`, `pattern`, `minimum`, ...)
/// are the ones the server enforces: each test runs the same values through the documented schema
/// and the server, and expects them to agree. A fuzzer that trusts the document (schemathesis) then
/// finds bodies the server takes, and answers that fit.
@Suite struct DocumentedRulesTests {
    static func check() throws -> SchemaCheck {
        SchemaCheck(document: try OpenAPIDocumentTests.document())
    }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    /// The schema of a documented query or header parameter of an operation, its `$ref` followed.
    static func parameterSchema(_ check: SchemaCheck, path: String, name: String) throws -> [String: Any] {
        let paths = try #require(check.document["paths"] as? [String: Any])
        let operation = try #require((paths[path] as? [String: Any])?["get"] as? [String: Any])
        for case let parameter as [String: Any] in operation["parameters"] as? [Any] ?? [] {
            let resolved = (parameter["$ref"] as? String).flatMap(check.resolve) ?? parameter
            if resolved["name"] as? String == name { return try #require(resolved["schema"] as? [String: Any]) }
        }
        throw DocumentError(description: "GET \(path) documents no parameter \(name)")
    }

    struct DocumentError: Error, CustomStringConvertible {
        let description: String
    }

    /// `POST /v1/player/play` takes one of four closed bodies: an album, an album from a side, an
    /// album from a track, or a crate. For every body below, exactly one of them fits exactly when
    /// the server does not refuse the body as malformed (400).
    @Test func thePlayBodyIsOneOfFourShapesAndTheServerTakesExactlyThose() async throws {
        let check = try Self.check()
        let playBody = try #require(check.resolve("#/components/schemas/PlayBody"))
        let branches = try #require(playBody["oneOf"] as? [[String: Any]])
        let names = ["PlayAlbum", "PlayAlbumSide", "PlayAlbumTrack", "PlayCrate"]
        #expect(branches.compactMap { $0["$ref"] as? String } == names.map { "#/components/schemas/\($0)" })
        for name in names {
            let branch = try #require(check.resolve("#/components/schemas/\(name)"))
            #expect(branch["additionalProperties"] as? Bool == false, "\(name) is not closed: a oneOf of open objects would let a body fit two")
        }

        let server = try TestServer()
        let (albumId, trackIds) = try server.seedKindOfBlueTracks()
        try await server.test { client in
            // Looked up again in here: the parsed document is not Sendable.
            let check = try Self.check()
            let playBody = try #require(check.resolve("#/components/schemas/PlayBody"))
            let cases: [(body: String, status: HTTPResponse.Status)] = [
                (#"{"albumId": \#(albumId)}"#, .ok),
                (#"{"albumId": \#(albumId), "side": "b"}"#, .ok),
                (#"{"albumId": \#(albumId), "trackId": \#(trackIds[2])}"#, .ok),
                (#"{"albumId": \#(albumId), "expectedRevision": null}"#, .ok),
                // Well-formed, but the album has no such side, or there is no such album or crate.
                (#"{"albumId": \#(albumId), "side": "AA"}"#, .unprocessableContent),
                (#"{"albumId": 987654321}"#, .notFound),
                (#"{"crateId": 987654321}"#, .notFound),
                // Both, neither, or a side or track where it does not belong.
                (#"{}"#, .badRequest),
                (#"{"albumId": \#(albumId), "crateId": 1}"#, .badRequest),
                (#"{"albumId": \#(albumId), "side": "B", "trackId": \#(trackIds[0])}"#, .badRequest),
                (#"{"crateId": 1, "side": "A"}"#, .badRequest),
                (#"{"crateId": 1, "trackId": \#(trackIds[0])}"#, .badRequest),
                (#"{"side": "A"}"#, .badRequest),
                (#"{"expectedRevision": 3}"#, .badRequest),
                // Not a side, not an id, not a field.
                (#"{"albumId": \#(albumId), "side": ""}"#, .badRequest),
                (#"{"albumId": \#(albumId), "side": "side B"}"#, .badRequest),
                (#"{"albumId": \#(albumId), "side": "ABC"}"#, .badRequest),
                (#"{"albumId": \#(albumId), "side": "é"}"#, .badRequest),
                (#"{"albumId": "\#(albumId)"}"#, .badRequest),
                (#"{"album": \#(albumId)}"#, .badRequest),
            ]
            for (body, status) in cases {
                let response = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: body)
                #expect(response.status == status, "\(body): \(String(decoding: response.body, as: UTF8.self))")
                let problems = check.problems(try Self.json(body), playBody)
                #expect(problems.isEmpty == (response.status != .badRequest), "\(body): the document says \(problems), the server \(response.status)")
            }
        }
    }

    /// A double-A side (Discogs' `AA1`) is a side like any other: `side: "aa"` plays it.
    @Test func aDoubleASideIsPlayable() async throws {
        let server = try TestServer()
        let albumId = try server.albumId(release: 1002)
        try await server.database.writer.write { db in
            for (order, track) in [("AA1", "AA", "Double A"), ("B1", "B", "Flip")].enumerated() {
                var record = Track(albumId: albumId, position: track.0, side: track.1, sortOrder: order, title: track.2, durationMs: 60_000, kind: .track)
                try record.insert(db)
            }
        }
        try await server.test { client in
            let response = try await client.call(.post, "/v1/player/play", token: server.writeToken, json: #"{"albumId": \#(albumId), "side": "aa"}"#)
            #expect(response.status == .ok, "\(String(decoding: response.body, as: UTF8.self))")
            let player = try #require(try Self.json(String(decoding: response.body, as: UTF8.self)) as? [String: Any])
            #expect(player["side"] as? String == "AA")
            #expect((player["track"] as? [String: Any])?["title"] as? String == "Double A")
        }
    }

    /// Each event of the player's stream fits the event schema the document gives (OpenAPI 3.2's
    /// model of a Server-Sent Event: `event`, `id`, and `data` holding the MiniPlayer as JSON), over
    /// real HTTP; so does the documented example, and an event without a MiniPlayer does not.
    @Test func eachEventOfThePlayerStreamFitsItsDocumentedSchema() async throws {
        let check = try Self.check()
        let schema = try Self.eventSchema(check)
        let media = try Self.eventMedia(check)
        #expect(schema["type"] as? String == "object")
        let example = try #require(media["example"])
        #expect(check.problems(example, schema).isEmpty, "the example: \(check.problems(example, schema))")
        #expect(!check.problems(["event": "player", "id": "1", "data": "{}"], schema).isEmpty)
        #expect(!check.problems(["event": "player", "id": "v1", "data": "{}"], schema).isEmpty)

        let server = try TestServer()
        let (albumId, _) = try server.seedKindOfBlueTracks()
        try await server.makeApplication().test(.live) { client in
            let port = try #require(client.port)
            let stream = try SSEClient(port: port, path: "/v1/player/events?scale=3", token: server.readToken)
            let idle = try #require(await stream.next())
            #expect(try await client.call(.post, "/v1/player/play", token: server.writeToken, json: #"{"albumId": \#(albumId)}"#).status == .ok)
            let playing = try #require(await stream.next())
            #expect(playing.data.contains(#""isPlaying":true"#))
            let check = try Self.check()
            let schema = try Self.eventSchema(check)
            for event in [idle, playing] {
                var object: [String: Any] = ["data": event.data]
                object["id"] = event.id
                object["event"] = event.event
                let problems = check.problems(object, schema)
                #expect(problems.isEmpty, "event \(event.id ?? "-"): \(problems)")
            }
        }
    }

    static func eventMedia(_ check: SchemaCheck) throws -> [String: Any] {
        let paths = try #require(check.document["paths"] as? [String: Any])
        let operation = try #require((paths["/v1/player/events"] as? [String: Any])?["get"] as? [String: Any])
        let ok = try #require((operation["responses"] as? [String: Any])?["200"] as? [String: Any])
        return try #require((ok["content"] as? [String: Any])?["text/event-stream"] as? [String: Any])
    }

    static func eventSchema(_ check: SchemaCheck) throws -> [String: Any] {
        try #require(try eventMedia(check)["schema"] as? [String: Any])
    }

    /// The YAML document is documented as what it is once read: an object (the document).
    @Test func theYAMLDocumentIsDocumentedAsAnObject() async throws {
        let server = try TestServer()
        try await server.test { client in
            let check = try Self.check()
            let paths = try #require(check.document["paths"] as? [String: Any])
            let operation = try #require((paths["/v1/openapi.yaml"] as? [String: Any])?["get"] as? [String: Any])
            let ok = try #require((operation["responses"] as? [String: Any])?["200"] as? [String: Any])
            let schema = try #require(((ok["content"] as? [String: Any])?["application/yaml"] as? [String: Any])?["schema"] as? [String: Any])
            #expect(schema["type"] as? String == "object")
            let response = try await client.call(.get, "/v1/openapi.yaml", token: nil)
            let loaded = try #require(try Yams.load(yaml: String(decoding: response.body, as: UTF8.self)) as? [String: Any])
            #expect(check.problems(loaded, schema).isEmpty)
            #expect(loaded["openapi"] as? String == "3.1.0")
        }
    }

    /// Grid parameters: every width under the documented minimum is refused in every environment,
    /// the minimum itself is taken, and the cursors the server writes fit the documented cursor.
    @Test func gridWidthAndCursorAreAsDocumented() async throws {
        let server = try TestServer()
        try await server.test { client in
            let check = try Self.check()
            let width = try Self.parameterSchema(check, path: "/v1/grid/collection", name: "width")
            let minimum = try #require(SchemaCheck.number(width["minimum"] as Any))
            let cursor = try Self.parameterSchema(check, path: "/v1/grid/collection", name: "cursor")
            for environment in LayoutEnvironment.allCases {
                let narrow = try await client.call(.get, "/v1/grid/collection?layout=\(environment.rawValue)&width=\(minimum - 0.5)", token: server.readToken)
                #expect(narrow.status == .badRequest, "\(environment.rawValue) at \(minimum - 0.5) points")
                #expect(narrow.error?.field == "width")
            }
            let narrowest = try await client.call(.get, "/v1/grid/collection?layout=iPhonePortrait&width=\(minimum)", token: server.readToken)
            #expect(narrowest.status == .ok, "iPhonePortrait at \(minimum) points")
            #expect(check.problems(NSNumber(value: minimum - 0.5), width).count == 1)
            #expect(check.problems(NSNumber(value: minimum), width).isEmpty)

            let first = try await client.decoded(GridPage.self, "/v1/grid/collection?layout=iPhonePortrait&limit=2", token: server.readToken)
            let next = try #require(first.next)
            #expect(check.problems(next, cursor).isEmpty, "the server's cursor \(next): \(check.problems(next, cursor))")
            let second = try await client.decoded(GridPage.self, "/v1/grid/collection?layout=iPhonePortrait&limit=2&cursor=\(next)", token: server.readToken)
            let previous = try #require(second.previous)
            #expect(check.problems(previous, cursor).isEmpty)
            // What the pattern leaves out, the server refuses too.
            let maxLength = Int(try #require(SchemaCheck.number(cursor["maxLength"] as Any)))
            #expect(maxLength == 16_384)
            for bad in ["abc=", "a b", String(repeating: "A", count: maxLength + 1)] {
                #expect(!check.problems(bad, cursor).isEmpty, "'\(bad.prefix(10))' fits the cursor's schema")
                let encoded = bad.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? bad
                let response = try await client.call(.get, "/v1/grid/collection?layout=iPhonePortrait&cursor=\(encoded)", token: server.readToken)
                #expect(response.status == .badRequest, "cursor '\(bad.prefix(10))'")
            }
            // What it lets through empty is no cursor: the first page.
            #expect(check.problems("", cursor).isEmpty)
            let empty = try await client.decoded(GridPage.self, "/v1/grid/collection?layout=iPhonePortrait&limit=2&cursor=", token: server.readToken)
            #expect(empty.items.map(\.albumId) == first.items.map(\.albumId))
        }
    }

    /// Sign-in: what the document's `minLength` and `pattern` leave out, the server refuses with 422
    /// before it looks at a password; what they let through is checked as a password (401 here).
    @Test func signInNamesAndPasswordsAreAsDocumented() async throws {
        let server = try TestServer()
        try await server.test { client in
            let check = try Self.check()
            let signIn = try #require(check.resolve("#/components/schemas/SignIn"))
            let cases: [(body: String, status: HTTPResponse.Status)] = [
                (#"{"name": "", "password": "secret"}"#, .unprocessableContent),
                (#"{"name": "  \t ", "password": "secret"}"#, .unprocessableContent),
                (#"{"name": "nobody-1", "password": ""}"#, .unprocessableContent),
                (#"{"name": "\#(String(repeating: "n", count: 65))", "password": "secret"}"#, .unprocessableContent),
                (#"{"name": "nobody-2", "password": "secret"}"#, .unauthorized),
                (#"{"name": " nobody-3 ", "password": "secret"}"#, .unauthorized),
            ]
            for (body, status) in cases {
                var headers = HTTPFields()
                headers[.contentType] = "application/json"
                let response = try await client.execute(uri: "/v1/session", method: .post, headers: headers, body: ByteBuffer(string: body)) { $0 }
                #expect(response.status == status, "\(body)")
                let problems = check.problems(try Self.json(body), signIn)
                #expect(problems.isEmpty == (status != .unprocessableContent), "\(body): \(problems)")
            }
        }
    }
}
