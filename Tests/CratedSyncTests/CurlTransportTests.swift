@testable import CratedSync
import CratedTestSupport
import Foundation
import HTTPTypes
import Testing

/// The libcurl transport against a real server on 127.0.0.1.
@Suite struct CurlTransportTests {
    // Timeouts far beyond any passing transfer: on a loaded 2-core CI machine a 10 s limit was
    // once reached by a test that takes 0.5 s alone. The timeout test sets its own.
    let options = CurlTransportOptions(connectTimeout: .seconds(30), totalTimeout: .seconds(60), maxRedirects: 3, maxResponseBytes: 64 * 1024)

    static func get(_ url: String, _ headers: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .get, url: URL(string: url)!, headerFields: headers)
    }

    private func send(_ path: String, via fake: FakeDiscogs, headers: HTTPFields = [:], options: CurlTransportOptions? = nil) async throws -> HTTPTransportResponse {
        try await CurlHTTPTransport(options: options ?? self.options).send(Self.get(fake.baseURL + path, headers))
    }

    private func transportError(_ path: String, via fake: FakeDiscogs, options: CurlTransportOptions? = nil) async -> HTTPTransportError? {
        do {
            _ = try await send(path, via: fake, options: options)
            return nil
        } catch {
            return error as? HTTPTransportError
        }
    }

    @Test func sendsHeadersAndReturnsStatusHeadersAndBody() async throws {
        try await FakeDiscogs.with { fake in
            fake.serve("/hello", json: #"{"hello": "world"}"#)

            let response = try await send("/hello", via: fake, headers: [.userAgent: "crated/test", HTTPField.Name("X-Custom")!: "yes"])

            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"hello": "world"}"#)
            #expect(response.headerFields[.contentType] == "application/json")
            #expect(response.headerFields[.discogsRateLimitRemaining] == "1000000")
            let recorded = try #require(fake.requests.first)
            #expect(recorded.headers["user-agent"] == "crated/test")
            #expect(recorded.headers["x-custom"] == "yes")
            #expect(recorded.headers["accept-encoding"]?.contains("gzip") == true)
        }
    }

    @Test func errorStatusesAreResponsesWithTheirHeaders() async throws {
        try await FakeDiscogs.with { fake in
            fake.inject(.status(429, retryAfter: "7"), on: "/busy")

            let response = try await send("/busy", via: fake)

            #expect(response.status == 429)
            #expect(response.headerFields[.retryAfter] == "7", "\(response.headerFields)")
        }
    }

    @Test func decompressesGzip() async throws {
        try await FakeDiscogs.with { fake in
            // gzip of {"compressed": true, "title": "gzip works"}
            let gzipped: [UInt8] = [
                31, 139, 8, 0, 0, 0, 0, 0, 2, 255, 171, 86, 74, 206, 207, 45, 40, 74, 45, 46, 78, 77, 81, 178, 82, 40, 41, 42, 77,
                213, 81, 80, 42, 201, 44, 201, 73, 5, 114, 149, 210, 171, 50, 11, 20, 202, 243, 139, 178, 139, 149, 106, 1, 88, 180,
                179, 60, 43, 0, 0, 0,
            ]
            fake.serve("/compressed", encoded: gzipped, contentEncoding: "gzip")

            let response = try await send("/compressed", via: fake)

            #expect(String(decoding: response.body, as: UTF8.self) == #"{"compressed": true, "title": "gzip works"}"#)
        }
    }

    @Test func aServerSlowerThanTheTotalTimeoutTimesOut() async throws {
        try await FakeDiscogs.with { fake in
            fake.serve("/slow", json: "{}")
            fake.inject(.slow(.seconds(20)), on: "/slow")
            var quick = options
            quick.totalTimeout = .milliseconds(300)

            #expect(await transportError("/slow", via: fake, options: quick) == .timedOut)
        }
    }

    @Test func aTruncatedBodyIsAConnectionLostNotAResponse() async throws {
        try await FakeDiscogs.with { fake in
            fake.serve("/cut", json: String(repeating: "x", count: 4000))
            fake.inject(.truncated, on: "/cut")

            let error = await transportError("/cut", via: fake)
            guard case .connectionLost? = error else {
                Issue.record("expected connectionLost, got \(String(describing: error))")
                return
            }
            #expect(error?.isTransient == true)
        }
    }

    @Test func aRedirectLoopStopsAtTheLimit() async throws {
        try await FakeDiscogs.with { fake in
            fake.injectOnEveryRequest(.redirectLoop)

            #expect(await transportError("/loop", via: fake) == .tooManyRedirects(limit: 3))
            // The first request and three redirects, then curl gives up.
            #expect(fake.requests.count == 4)
        }
    }

    @Test(arguments: [true, false])
    func aBodyOverTheCapIsRefused(declaredLength: Bool) async throws {
        try await FakeDiscogs.with { fake in
            fake.inject(.oversized(bytes: 1 << 20, declaredLength: declaredLength), on: "/big")

            #expect(await transportError("/big", via: fake) == .responseTooLarge(limit: 64 * 1024))
        }
    }

    @Test func aBodyJustUnderTheCapArrivesWhole() async throws {
        try await FakeDiscogs.with { fake in
            fake.inject(.oversized(bytes: 64 * 1024, declaredLength: false), on: "/fits")

            let response = try await send("/fits", via: fake)
            #expect(response.body.count == 64 * 1024)
        }
    }

    /// A port held bound but not listening: a stopped server's port could be taken at once by a
    /// parallel test's server, which would answer.
    @Test func aClosedPortCannotConnect() async throws {
        let (socket, port) = try LoopbackSocket.bound()
        defer { close(socket) }
        var error: HTTPTransportError?
        do {
            _ = try await CurlHTTPTransport(options: options).send(Self.get("http://127.0.0.1:\(port)/gone"))
        } catch let refused as HTTPTransportError {
            error = refused
        }
        guard case .couldNotConnect? = error else {
            Issue.record("expected couldNotConnect, got \(String(describing: error))")
            return
        }
    }

    @Test func cancellingTheTaskAbortsTheTransfer() async throws {
        try await FakeDiscogs.with { fake in
            fake.injectOnEveryRequest(.hold)
            let transport = CurlHTTPTransport(options: CurlTransportOptions(totalTimeout: .seconds(600)))

            let transfer = Task { try await transport.send(Self.get(fake.baseURL + "/held")) }
            try await waitUntil("the request to arrive") { !fake.requests.isEmpty }
            transfer.cancel()

            await #expect(throws: HTTPTransportError.cancelled) { try await transfer.value }
        }
    }

    @Test func connectionsAreReusedAcrossRequests() async throws {
        try await FakeDiscogs.with { fake in
            fake.serve("/again", json: "{}")
            let transport = CurlHTTPTransport(options: options)
            for _ in 0..<5 {
                let response = try await transport.send(Self.get(fake.baseURL + "/again"))
                #expect(response.status == 200)
            }
            #expect(fake.requests.count == 5)
            // One kept-alive connection: every request came from the same client port.
            #expect(Set(fake.requests.map(\.clientPort)).count == 1)
        }
    }

    /// Only http and https: another scheme, asked for or redirected to, is an invalid URL, which is
    /// not retried (a transient error would be).
    @Test func anInvalidURLIsRefusedWithoutATransfer() async throws {
        let transport = CurlHTTPTransport(options: options)
        func refusal(_ url: String) async -> HTTPTransportError? {
            do {
                _ = try await transport.send(Self.get(url))
                return nil
            } catch {
                return error as? HTTPTransportError
            }
        }
        let asked = await refusal("ftp://127.0.0.1/file")
        guard case .invalidURL? = asked else { Issue.record("ftp:// gave \(String(describing: asked))"); return }
        #expect(asked?.isTransient == false)

        try await FakeDiscogs.with { fake in
            fake.inject(.redirect(to: "ftp://127.0.0.1/file"), on: "/elsewhere")
            let redirected = await refusal(fake.baseURL + "/elsewhere")
            guard case .invalidURL? = redirected else { Issue.record("a redirect to ftp:// gave \(String(describing: redirected))"); return }
            #expect(fake.requests.count == 1)
        }
    }
}

extension CurlTransportTests {
    /// A field name that is no HTTP token is dropped, and control bytes in a value become spaces:
    /// a server's bad header costs that header, never the response or the daemon.
    @Test func headerFieldsThatAreNotValidAreDropped() async throws {
        let server = try OneResponseServer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nBad Name: x\r\nX-Good: y\u{1}z\r\n\r\nok")
        let response = try await CurlHTTPTransport(options: options).send(Self.get("http://127.0.0.1:\(server.port)/"))
        #expect(response.status == 200)
        #expect(response.body == Array("ok".utf8))
        #expect(response.headerFields[HTTPField.Name("X-Good")!] == "y z")
        #expect(response.headerFields.map(\.name.canonicalName).sorted() == ["content-length", "x-good"])
    }
}

extension CurlTransportTests {
    /// A hostile server's flood of header fields is cut at a thousand, never a trap in HTTPFields.
    @Test func headerFieldsPastTheCapAreDropped() async throws {
        // 70,000 empty fields: more than HTTPFields holds, within libcurl's 300 KB of headers.
        let fields = String(repeating: "a:\r\n", count: 70_000)
        let server = try OneResponseServer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\(fields)\r\nok")
        let response = try await CurlHTTPTransport(options: options).send(Self.get("http://127.0.0.1:\(server.port)/"))
        #expect(response.status == 200)
        #expect(response.body == Array("ok".utf8))
        #expect(response.headerFields.count == 1000)
    }
}

/// A server on 127.0.0.1 that answers one connection with the bytes given, as they are: for
/// responses no HTTP library would send.
private final class OneResponseServer: Sendable {
    let port: Int
    private let socket: Int32

    init(_ response: String) throws {
        (socket, port) = try LoopbackSocket.listening()
        Self.answerOnce(on: socket, with: Array(response.utf8))
    }

    private static func answerOnce(on listener: Int32, with response: [UInt8]) {
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.suffix(4).elementsEqual("\r\n\r\n".utf8) {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                request += buffer[..<count]
            }
            _ = response.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, 0) }
            close(connection)
        }
    }

    deinit { close(socket) }
}
