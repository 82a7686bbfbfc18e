import Foundation

/// Sends one HTTP request and returns the whole response. Sync depends on this protocol only;
/// `CurlHTTPTransport` is the production implementation.
public protocol HTTPTransport: Sendable {
    /// Throws `HTTPTransportError` for failures below HTTP (no connection, timeout, a body over the
    /// cap, too many redirects, cancellation). Any HTTP status, 500 included, is a response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// Header fields in order, names compared without regard to case.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name, value))
    }

    /// Replaces every field of that name with one.
    public mutating func set(_ name: String, _ value: String) {
        fields.removeAll { Self.sameName($0.name, name) }
        fields.append((name, value))
    }

    /// The first value of the field, if present.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Header names are ASCII tokens, compared without regard to the case of their letters; byte by
    /// byte, since Foundation's `caseInsensitiveCompare` is slow for the few lookups of every response.
    static func sameName(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        a.utf8.elementsEqual(b.utf8) { x, y in
            x == y || (x ^ y == 0x20 && (0x61...0x7A).contains(x | 0x20))
        }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: HTTPHeaders
    public var body: [UInt8]?

    public init(method: String = "GET", url: String, headers: HTTPHeaders = [:], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// The headers of the final response (after any redirects).
    public var headers: HTTPHeaders
    /// The body, decompressed when the server sent it compressed.
    public var body: [UInt8]
    /// The URL that answered, after redirects.
    public var url: String

    public init(status: Int, headers: HTTPHeaders = [:], body: [UInt8] = [], url: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }
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
