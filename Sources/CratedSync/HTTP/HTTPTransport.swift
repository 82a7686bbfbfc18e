import Foundation
import HTTPTypes

/// Sends one HTTP request and returns the whole response. Sync depends on this protocol only;
/// `CurlHTTPTransport` is the production implementation. Requests and response heads are
/// swift-http-types' `HTTPRequest` and `HTTPResponse`, as in the server.
public protocol HTTPTransport: Sendable {
    /// Throws `HTTPTransportError` for failures below HTTP (no connection, timeout, a body over the
    /// cap, too many redirects, cancellation). Any HTTP status, 500 included, is a response.
    func send(_ request: HTTPRequest, body: [UInt8]?) async throws -> HTTPTransportResponse
}

extension HTTPTransport {
    public func send(_ request: HTTPRequest) async throws -> HTTPTransportResponse {
        try await send(request, body: nil)
    }
}

/// A whole response: its head, its body (decompressed when the server sent it compressed), and the
/// URL that answered, after any redirects.
public struct HTTPTransportResponse: Sendable {
    /// The status and header fields of the final response (after any redirects).
    public var head: HTTPResponse
    public var body: [UInt8]
    public var url: String

    public init(head: HTTPResponse, body: [UInt8] = [], url: String = "") {
        self.head = head
        self.body = body
        self.url = url
    }

    public init(status: Int, headerFields: HTTPFields = [:], body: [UInt8] = [], url: String = "") {
        self.init(head: HTTPResponse(status: .init(code: status), headerFields: headerFields), body: body, url: url)
    }

    public var status: Int { head.status.code }
    public var headerFields: HTTPFields { head.headerFields }
}

extension HTTPField.Name {
    /// How many more requests Discogs allows in its moving minute.
    public static let discogsRateLimitRemaining = Self("X-Discogs-Ratelimit-Remaining")!
}

/// Why a request produced no HTTP response.
public enum HTTPTransportError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case couldNotConnect(String)
    case timedOut
    /// The connection ended before the whole response arrived (a truncated body, a reset).
    case connectionLost(String)
    case tooManyRedirects(limit: Int)
    case responseTooLarge(limit: Int)
    case tls(String)
    case cancelled
    case other(code: Int, message: String)

    /// Whether trying again later can succeed: the network or the server may recover, whereas a
    /// redirect loop, an oversized body or a bad URL will be the same next time.
    public var isTransient: Bool {
        switch self {
        case .couldNotConnect, .timedOut, .connectionLost, .other: true
        case .invalidURL, .tooManyRedirects, .responseTooLarge, .tls, .cancelled: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL \(url)"
        case .couldNotConnect(let message): "could not connect: \(message)"
        case .timedOut: "timed out"
        case .connectionLost(let message): "connection lost before the response was complete: \(message)"
        case .tooManyRedirects(let limit): "more than \(limit) redirects"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .tls(let message): "TLS: \(message)"
        case .cancelled: "cancelled"
        case .other(let code, let message): "transfer failed (curl \(code)): \(message)"
        }
    }
}
