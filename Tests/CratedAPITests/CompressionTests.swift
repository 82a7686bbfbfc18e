@testable import CratedAPI
import CompressNIO
import CratedCore
import CratedTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// JSON answers are gzipped for a client that accepts it, with a weak ETag that still brings a 304;
/// the same answers go as they were to a client that does not.
@Suite struct CompressionTests {
    func get(_ client: any TestClientProtocol, _ uri: String, token: String?, _ extra: HTTPFields = [:],
             method: HTTPRequest.Method = .get) async throws -> (status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer) {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: uri, method: method, headers: headers) { ($0.status, $0.headers, $0.body) }
    }

    @Test func aGridPageIsGzippedForAClientThatAcceptsIt() async throws {
        let server = try TestServer()
        try await server.test { client in
            let uri = "/v1/grid/collection?layout=iPadFullscreen&limit=500"
            let plain = try await get(client, uri, token: server.readToken)
            #expect(plain.headers[.contentEncoding] == nil && plain.headers[.vary] == "Accept-Encoding")
            let strong = try #require(plain.headers[.eTag])
            #expect(!strong.hasPrefix("W/"))

            let gzipped = try await get(client, uri, token: server.readToken, [.acceptEncoding: "br;q=1.0, gzip;q=0.8"])
            #expect(gzipped.status == .ok)
            #expect(gzipped.headers[.contentEncoding] == "gzip" && gzipped.headers[.vary] == "Accept-Encoding")
            #expect(gzipped.headers[.eTag] == "W/" + strong)
            var body = gzipped.body
            #expect(body.readableBytes * 2 < plain.body.readableBytes, "\(body.readableBytes) of \(plain.body.readableBytes) bytes")
            #expect(try body.decompress(with: .gzip()) == plain.body)

            // The weak tag brings a 304, which carries it.
            let again = try await get(client, uri, token: server.readToken, [.acceptEncoding: "gzip", .ifNoneMatch: "W/" + strong])
            #expect(again.status == .notModified && again.headers[.eTag] == "W/" + strong)
            // And says what the answer it stands for varies by, as that answer does, whatever was accepted.
            #expect(again.headers[.vary] == "Accept-Encoding")
            let plainAgain = try await get(client, uri, token: server.readToken, [.ifNoneMatch: strong])
            #expect(plainAgain.status == .notModified && plainAgain.headers[.vary] == "Accept-Encoding" && plainAgain.headers[.eTag] == strong)
        }
    }

    @Test func whatIsNotCompressed() async throws {
        let server = try TestServer()
        try await server.test { client in
            let gzip: HTTPFields = [.acceptEncoding: "gzip"]
            // Refused outright, or too small to be worth it.
            let refused = try await get(client, "/v1/grid/collection?limit=500", token: server.readToken, [.acceptEncoding: "gzip;q=0, identity"])
            #expect(refused.status == .ok && refused.headers[.contentEncoding] == nil)
            let small = try await get(client, "/v1/me", token: server.readToken, gzip)
            #expect(small.status == .ok && small.headers[.contentEncoding] == nil && small.body.readableBytes < ResponseCompressionMiddleware<AppRequestContext>.minimumBytes)
            // A HEAD sends no body to compress (the web client's files, gzipped ahead, WebClientTests).
            let head = try await get(client, "/v1/grid/collection?limit=500", token: server.readToken, gzip, method: .head)
            #expect(head.status == .ok && head.headers[.contentEncoding] == nil)
            // The OpenAPI document, the largest answer, is.
            let document = try await get(client, "/v1/openapi.json", token: nil, gzip)
            #expect(document.headers[.contentEncoding] == "gzip")
        }
    }

    @Test(arguments: [("gzip", true), ("GZIP", true), ("*", true), ("deflate, gzip;q=0.5", true), ("gzip;q=0", false),
                      ("identity", false), ("", false), ("x-gzip", true), ("gzip ; q=0.000", false)] as [(String, Bool)])
    func acceptEncodingIsRead(header: String, accepts: Bool) throws {
        let request = Request(head: HTTPRequest(method: .get, scheme: "http", authority: "x", path: "/", headerFields: [.acceptEncoding: header]),
                              body: .init(buffer: ByteBuffer()))
        #expect(ResponseCompressionMiddleware<AppRequestContext>.acceptsGzip(request) == accepts)
    }
}
