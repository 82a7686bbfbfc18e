@testable import CratedAPI
import CratedTestSupport
import CratedCore
import CratedPlayback
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import Yams

/// The OpenAPI document is the API's contract: these tests hold it and the router together, so a
/// route added without documenting it (or documented without existing) fails here.
@Suite struct OpenAPIDocumentTests {
    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// The document compiled into the binary, parsed.
    static func document() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8))
        return try #require(object as? [String: Any], "openapi.json is not a JSON object")
    }

    /// `{name}` for Hummingbird's `:name`, so router paths and OpenAPI paths compare directly.
    /// (Hummingbird 2's `RouterPath.description` already writes captures as `{name}`.)
    static func openAPIPath(_ path: String) -> String {
        "/" + path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
    }

    /// Every operation of the document as `method /path`, e.g. `get /v1/albums/{id}`, with its operation object.
    static func documentedOperations() throws -> [String: [String: Any]] {
        let paths = try #require(try document()["paths"] as? [String: Any], "the document has no paths")
        var operations: [String: [String: Any]] = [:]
        for (path, item) in paths {
            let item = try #require(item as? [String: Any], "path item \(path) is not an object")
            for (method, operation) in item where Self.methods.contains(method.lowercased()) {
                operations["\(method.lowercased()) \(path)"] = try #require(operation as? [String: Any], "\(method) \(path) is not an object")
            }
        }
        return operations
    }

    /// Every route of the daemon's router as `method /path`.
    static func routedOperations(_ server: TestServer) -> Set<String> {
        var logger = Logger(label: "crated-openapi-tests")
        logger.logLevel = .warning
        let router = buildRouter(services: server.services)
        return Set(router.routes.map { "\($0.method.rawValue.lowercased()) \(openAPIPath($0.path.description))" })
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsRouted() throws {
        let server = try TestServer()
        let routed = Self.routedOperations(server)
        let documented = Set(try Self.documentedOperations().keys)
        #expect(routed.contains("get /healthz"))
        #expect(routed.contains("get /v1/albums/{id}"))
        let undocumented = routed.subtracting(documented).sorted()
        let unrouted = documented.subtracting(routed).sorted()
        #expect(undocumented.isEmpty, "routes missing from Resources/openapi.json: \(undocumented)")
        #expect(unrouted.isEmpty, "operations in Resources/openapi.json that the router does not have: \(unrouted)")
    }

    @Test func servedDocumentIsOpenAPI31() async throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        let info = try #require(document["info"] as? [String: Any])
        #expect(info["title"] as? String == "crated")
        #expect(info["version"] as? String == CratedVersion.current)

        let server = try TestServer()
        try await server.test { client in
            let response = try await client.call(.get, "/v1/openapi.json", token: nil)
            #expect(response.status == .ok)
            // The document itself, not a DTO: read as JSON.
            #expect((try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["openapi"] as? String == "3.1.0")
            let headers = response.headers
            #expect(headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }

    @Test func embeddedDocumentIsTheResourceFile() throws {
        let path = Paths.packageRoot.appending(path: "Sources/CratedAPI/Resources/openapi.json").path
        let file = try String(contentsOfFile: path, encoding: .utf8)
        #expect(OpenAPIDocument.json.trimmingCharacters(in: .whitespacesAndNewlines) == file.trimmingCharacters(in: .whitespacesAndNewlines),
                "the binary embeds a stale openapi.json; rebuild")
    }

    @Test func yamlIsTheSameDocumentInTheSameOrder() async throws {
        let server = try TestServer()
        try await server.test { client in
            let response = try await client.call(.get, "/v1/openapi.yaml", token: nil)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/yaml") == true)
            let yaml = String(decoding: response.body, as: UTF8.self)
            // Block style, strings unquoted where that keeps them strings.
            #expect(yaml.hasPrefix("openapi: 3.1.0\ninfo:\n  title: crated\n"), "not block-style YAML: \(yaml.prefix(80))")
            // Composed from YAML and from JSON, the two are one node tree (order included).
            let fromYAML = try #require(try Yams.compose(yaml: yaml))
            let fromJSON = try #require(try Yams.compose(yaml: OpenAPIDocument.json))
            #expect(fromYAML.mapping?.keys.map(\.string) == fromJSON.mapping?.keys.map(\.string))
            let same = Self.plain(fromYAML) == Self.plain(fromJSON)
            #expect(same, "the YAML document differs from the JSON one")
        }
    }

    /// A node as nested arrays of strings, styles and marks left out, for comparing documents.
    static func plain(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): "\(node.tag):\(scalar.string)"
        case .mapping(let mapping): "{" + mapping.map { plain($0.key) + "=" + plain($0.value) }.joined(separator: ",") + "}"
        case .sequence(let sequence): "[" + sequence.map(plain).joined(separator: ",") + "]"
        case .alias: "*"
        }
    }

    /// What swift-openapi-generator (1.14, runtime 1.13 defaults) needs to decode every answer: null
    /// said in a type, never as an `anyOf` branch (the generator drops the property); answers open to
    /// new properties; times in the one form the default date transcoder reads.
    @Test func theDocumentIsOneAGeneratedSwiftClientDecodes() throws {
        let document = try Self.document()
        var nullBranches: [String] = []
        var closedAnswers: [String] = []
        var fractionalTimes: [String] = []
        let requestBodies: Set<String> = ["AlbumIdsBody", "CopyIdsBody", "CrateMoveBefore", "CrateMoveAfter", "CrateNameBody", "CrateOrderBody",
                                          "EditCopyBody", "PlayAlbum", "PlayAlbumSide", "PlayAlbumTrack", "PlayCrate", "RevisionBody",
                                          "SeekBody", "SignIn", "StartSyncBody", "TokenSignIn"]
        func walk(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for keyword in ["anyOf", "oneOf"] {
                    if let branches = object[keyword] as? [[String: Any]], branches.contains(where: { $0["type"] as? String == "null" }) {
                        nullBranches.append(path)
                    }
                }
                let schemaName = path.split(separator: "/").dropFirst(2).first.map(String.init) ?? ""
                if path.hasPrefix("components/schemas/"), object["additionalProperties"] as? Bool == false, !requestBodies.contains(schemaName) {
                    closedAnswers.append(path)
                }
                for (key, child) in object { walk(child, path.isEmpty ? key : path + "/" + key) }
            } else if let array = value as? [Any] {
                for (index, child) in array.enumerated() { walk(child, path + "[\(index)]") }
            } else if let text = value as? String,
                      text.range(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+"#, options: .regularExpression) != nil {
                fractionalTimes.append(path)
            }
        }
        walk(document, "")
        #expect(nullBranches.isEmpty, "anyOf/oneOf with a null branch, which the generator drops: \(nullBranches)")
        #expect(closedAnswers.isEmpty, "answers closed to new properties: \(closedAnswers)")
        #expect(fractionalTimes.isEmpty, "times with fractional seconds: \(fractionalTimes)")
    }

    /// Each operation documents its path parameters, the errors every `/v1` route can answer, and has an id.
    /// A client generated from the document learns the error codes from `Error.code`: every code
    /// the player answers, and the API's own, are listed there.
    @Test func errorCodesAreListed() throws {
        let schemas = try #require((try Self.document()["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let error = try #require(((schemas["Error"] as? [String: Any])?["properties"] as? [String: Any])?["error"] as? [String: Any])
        let code = try #require((error["properties"] as? [String: Any])?["code"] as? [String: Any])
        let listed = Set((code["description"] as? String ?? "").split { !$0.isLetter && $0 != "_" }.map(String.init))
        let player = PlaybackError.Conflict.allCases.map(\.rawValue) + PlaybackError.Rule.allCases.map(\.rawValue)
            + PlaybackError.Resource.allCases.map { "\($0.rawValue)_not_found" } + ["revision_conflict"]
        let api = [APIError.badParameter("x", "").code, APIError.badBody("").code, APIError.unauthorized("").code,
                   APIError.forbidden("").code, APIError.notFound("").code, APIError.conflict("").code,
                   APIError.unprocessable("").code, APIError.bodyTooLarge.code]
        for missing in (player + api).filter({ !listed.contains($0) }) {
            Issue.record("Error.code does not list \(missing)")
        }
    }

    @Test func operationsDescribeParametersAndErrors() throws {
        let document = try Self.document()
        let components = try #require(document["components"] as? [String: Any])
        let sharedParameters = components["parameters"] as? [String: Any] ?? [:]
        var operationIds: Set<String> = []
        for (key, operation) in try Self.documentedOperations() {
            let parts = key.split(separator: " ", maxSplits: 1).map(String.init)
            let method = parts[0]
            let path = parts[1]
            let operationId = try #require(operation["operationId"] as? String, "\(key) has no operationId")
            let unique = operationIds.insert(operationId).inserted
            #expect(unique, "operationId \(operationId) is used twice")

            var declaredPathParameters: Set<String> = []
            for case let parameter as [String: Any] in (operation["parameters"] as? [Any]) ?? [] {
                var resolved = parameter
                if let ref = parameter["$ref"] as? String, let shared = sharedParameters[String(ref.split(separator: "/").last ?? "")] as? [String: Any] {
                    resolved = shared
                }
                if resolved["in"] as? String == "path", let name = resolved["name"] as? String {
                    declaredPathParameters.insert(name)
                }
            }
            let templated = Set(path.split(separator: "/").filter { $0.hasPrefix("{") && $0.hasSuffix("}") }.map { String($0.dropFirst().dropLast()) })
            #expect(declaredPathParameters == templated, "\(key): the path has parameters \(templated.sorted()) but declares \(declaredPathParameters.sorted())")

            let responses = try #require(operation["responses"] as? [String: Any], "\(key) has no responses")
            let statuses = Set(responses.keys)
            let succeeds = statuses.contains { $0.hasPrefix("2") }
            #expect(succeeds, "\(key) documents no success response")
            // Open to all: the document, covers (their URLs carry random keys) and signing in.
            let isOpen = (operation["security"] as? [Any])?.isEmpty == true
            // `/metrics` sits beside `/v1` but needs a token all the same.
            if (path.hasPrefix("/v1/") || path == "/metrics") && path != "/v1/openapi.json" && !isOpen {
                #expect(statuses.contains("401"), "\(key) does not document 401")
                // Behind the cap on a user's requests waiting for an answer (`UserRequestLimitMiddleware`).
                if !path.hasPrefix("/v1/tokens"), !path.hasPrefix("/v1/session"), path != "/metrics" {
                    #expect(statuses.contains("429"), "\(key) does not document 429")
                }
                if method != "get" {
                    #expect(statuses.contains("403"), "\(key) does not document 403")
                }
                if !templated.isEmpty {
                    #expect(statuses.isSuperset(of: ["400", "404"]), "\(key) does not document 400 and 404")
                }
            } else if !templated.isEmpty {
                #expect(statuses.contains("404"), "\(key) does not document 404")
            } else {
                let security = operation["security"] as? [Any]
                #expect(security?.isEmpty == true, "\(key) needs no token, so it must say `security: []`")
            }
        }
    }
}
