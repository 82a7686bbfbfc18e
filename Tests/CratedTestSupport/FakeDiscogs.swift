import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// An in-process stand-in for api.discogs.com on 127.0.0.1 (a port the system picks): serves
/// release and collection JSON, answers `If-None-Match` with 304, reports a rate-limit count,
/// records every request, and injects faults on demand.
public final class FakeDiscogs: Sendable {
    public enum Fault: Sendable {
        case status(Int, retryAfter: String? = nil)
        /// Waits this long, then answers normally.
        case slow(Duration)
        /// Declares the whole length, sends half of the body, and drops the connection.
        case truncated
        case malformedJSON
        /// A 200 with an HTML page, as a proxy or an outage page sends.
        case htmlPage
        /// A 200 with no body at all.
        case emptyBody
        /// 302 to itself, for ever.
        case redirectLoop
        /// 302 to this URL.
        case redirect(to: String)
        /// A 200 with a body of this many bytes, with or without a Content-Length.
        case oversized(bytes: Int, declaredLength: Bool)
        /// Never answers; the request hangs until the server stops or dies.
        case hold
    }

    public struct RecordedRequest: Sendable {
        public var method: String
        /// Path and query, as sent.
        public var target: String
        public var path: String
        /// Header names lowercased.
        public var headers: [String: String]
        /// When it arrived, on the clock the server was given (else time since the server started).
        public var at: Duration
        /// The client's port: requests on one kept-alive connection share it.
        public var clientPort: Int?
    }

    private struct State {
        var bodies: [String: [UInt8]] = [:]
        /// `Content-Encoding` of bodies stored already encoded.
        var encodings: [String: String] = [:]
        /// `Content-Type` of bodies that are not JSON (images, pages).
        var contentTypes: [String: String] = [:]
        var faults: [String: [Fault]] = [:]
        var faultForEveryRequest: Fault?
        var requests: [RecordedRequest] = []
        var hostRemaining = 1_000_000
        var sendETags = true
        var dead = false
    }

    private let state = Mutex(State())
    private let timestamp: @Sendable () -> Duration
    private let serverTask: Task<Void, any Error>
    /// The listening socket, closed first when the fake stops.
    private let listener: any Channel
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Starts the server; `now` stamps recorded requests (a virtual clock's uptime, say).
    public static func start(now: (@Sendable () -> Duration)? = nil) async throws -> FakeDiscogs {
        let (listeners, listenerContinuation) = AsyncStream<any Channel>.makeStream()
        let box = Mutex<FakeDiscogs?>(nil)
        let responder = CallbackResponder<FakeDiscogsContext> { request, context in
            guard let fake = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await fake.respond(to: request, channel: context.channel)
        }
        let application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "fake-discogs"),
            onServerRunning: { channel in
                listenerContinuation.yield(channel)
                listenerContinuation.finish()
            },
            logger: {
                var logger = Logger(label: "fake-discogs")
                logger.logLevel = .critical
                return logger
            }()
        )
        let task = Task { try await application.runService(gracefulShutdownSignals: []) }
        var iterator = listeners.makeAsyncIterator()
        guard let listener = await iterator.next(), let port = listener.localAddress?.port, port > 0 else {
            task.cancel()
            throw FakeDiscogsError.didNotStart
        }
        let started = ContinuousClock.now
        let fake = FakeDiscogs(port: port, listener: listener, task: task, timestamp: now ?? { ContinuousClock.now - started })
        box.withLock { $0 = fake }
        return fake
    }

    private init(port: Int, listener: any Channel, task: Task<Void, any Error>, timestamp: @escaping @Sendable () -> Duration) {
        self.port = port
        self.listener = listener
        self.serverTask = task
        self.timestamp = timestamp
    }

    /// Runs `body` with a fake started for it, and stops the fake before returning, whether `body`
    /// returns or throws. A `Task` left to stop it may never run once the test process ends: the
    /// server, and whatever the task holds (a test's temporary folder), would outlive the test.
    public static func with<T>(
        now: (@Sendable () -> Duration)? = nil, _ body: (FakeDiscogs) async throws -> T
    ) async throws -> T {
        let fake = try await start(now: now)
        return try await fake.stopping { try await body(fake) }
    }

    /// Runs `body`, then stops the fake, whether `body` returns or throws (see `with`).
    public func stopping<T>(after body: () async throws -> T) async throws -> T {
        do {
            let result = try await body()
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    /// Stops listening, then drops every connection, held requests included. The listening socket
    /// is closed first and the server given a moment to take up what it had accepted: cancelling it
    /// while a connection is on its way in trips a precondition in NIO ("Deinited NIOAsyncWriter
    /// without calling finish()", apple/swift-nio#2637).
    public func stop() async {
        try? await listener.close()
        try? await ContinuousClock().sleep(for: .milliseconds(200))
        serverTask.cancel()
        _ = await serverTask.result
    }

    /// The host goes away without its port: held requests and every later one lose their
    /// connection unanswered. The port stays bound, so no other test's server can take it up
    /// and answer in its place, as it could after `stop()`.
    public func die() {
        state.withLock { $0.dead = true }
    }

    private var isDead: Bool { state.withLock { $0.dead } }

    // MARK: Content and faults

    public func serve(_ path: String, json: [UInt8]) {
        state.withLock { $0.bodies[path] = json }
    }

    /// Serves bytes that are already compressed, with their `Content-Encoding`.
    public func serve(_ path: String, encoded: [UInt8], contentEncoding: String) {
        state.withLock {
            $0.bodies[path] = encoded
            $0.encodings[path] = contentEncoding
        }
    }

    /// Serves any bytes with the `Content-Type` given: the fake is an image host too.
    public func serve(_ path: String, bytes: [UInt8], contentType: String) {
        state.withLock {
            $0.bodies[path] = bytes
            $0.contentTypes[path] = contentType
        }
    }

    public func serve(_ path: String, json: String) {
        serve(path, json: Array(json.utf8))
    }

    /// Serves `user`'s collection as Discogs lists it, in one page of the folder "All": no other
    /// folder, no custom fields, and `releases`, each a listed copy's JSON.
    public func serveCollection(of user: String, releases: [String] = []) {
        serve("/users/\(user)/collection/folders", json: #"{"folders": [{"id": 0, "name": "All", "count": \#(releases.count)}]}"#)
        serve("/users/\(user)/collection/fields", json: #"{"fields": []}"#)
        serve("/users/\(user)/collection/folders/0/releases?page=1&per_page=100", json: """
            {"pagination": {"page": 1, "pages": 1, "items": \(releases.count)}, "releases": [\(releases.joined(separator: ", "))]}
            """)
    }

    /// One copy of release `id` (titled "Record", by "Band", rated 4) as a collection's listing
    /// gives it.
    public static func listedCopy(release id: Int, dateAdded: String) -> String {
        """
        {"id": \(id), "instance_id": 1, "folder_id": 1, "rating": 4, "date_added": "\(dateAdded)",
         "basic_information": {"id": \(id), "title": "Record", "year": 2001,
           "artists": [{"id": 5, "name": "Band", "anv": "", "join": ""}], "formats": [{"name": "Vinyl", "qty": "1"}]}}
        """
    }

    public func serveRelease(_ id: Int64, json: [UInt8]) {
        serve("/releases/\(id)", json: json)
    }

    /// Faults for the next requests to `path`, one per request, in order.
    public func inject(_ faults: Fault..., on path: String) {
        state.withLock { $0.faults[path, default: []].append(contentsOf: faults) }
    }

    /// A fault for every request until cleared with nil.
    public func injectOnEveryRequest(_ fault: Fault?) {
        state.withLock { $0.faultForEveryRequest = fault }
    }

    /// The `X-Discogs-Ratelimit-Remaining` sent with each response.
    public func reportRemaining(_ remaining: Int) {
        state.withLock { $0.hostRemaining = remaining }
    }

    public func sendETags(_ send: Bool) {
        state.withLock { $0.sendETags = send }
    }

    public var requests: [RecordedRequest] { state.withLock { $0.requests } }

    public func requests(to pathPrefix: String) -> [RecordedRequest] {
        requests.filter { $0.path.hasPrefix(pathPrefix) }
    }

    // MARK: Responding

    private func respond(to request: Request, channel: any Channel) async throws -> Response {
        let path = request.uri.path
        let target = request.uri.string
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let recorded = RecordedRequest(method: request.method.rawValue, target: target, path: path, headers: headers, at: timestamp(), clientPort: channel.remoteAddress?.port)
        let (fault, body, encoding, contentType, remaining, sendETags, dead) = state.withLock { state in
            state.requests.append(recorded)
            var fault = state.faultForEveryRequest
            if fault == nil, var queued = state.faults[path], !queued.isEmpty {
                fault = queued.removeFirst()
                state.faults[path] = queued
            }
            return (fault, state.bodies[target] ?? state.bodies[path], state.encodings[path], state.contentTypes[path], state.hostRemaining, state.sendETags, state.dead)
        }
        if dead { try await dropConnection(channel) }

        var fields = HTTPFields()
        fields[.contentType] = contentType ?? "application/json"
        fields[HTTPField.Name("X-Discogs-Ratelimit")!] = "60"
        fields[HTTPField.Name("X-Discogs-Ratelimit-Remaining")!] = String(remaining)

        switch fault {
        case .status(let code, let retryAfter)?:
            if let retryAfter { fields[.retryAfter] = retryAfter }
            return Response(status: HTTPResponse.Status(code: code), headers: fields, body: .init(byteBuffer: ByteBuffer(string: #"{"message": "fault"}"#)))
        case .slow(let delay)?:
            try await Task.sleep(for: delay)
        case .truncated?:
            let whole = body ?? Array(repeating: UInt8(ascii: " "), count: 2000)
            return Response(status: .ok, headers: fields, body: ResponseBody(contentLength: whole.count) { writer in
                try await writer.write(ByteBuffer(bytes: whole.prefix(whole.count / 2)))
                try await channel.close()
            })
        case .malformedJSON?:
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: #"{"id": 1, "title": "Half a rel"#)))
        case .htmlPage?:
            fields[.contentType] = "text/html; charset=utf-8"
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(string: "\n<!DOCTYPE html><html><body>Service Unavailable</body></html>")))
        case .emptyBody?:
            return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer()))
        case .redirectLoop?:
            fields[.location] = target
            return Response(status: .found, headers: fields)
        case .redirect(let location)?:
            fields[.location] = location
            return Response(status: .found, headers: fields)
        case .oversized(let size, let declaredLength)?:
            let chunk = ByteBuffer(bytes: Array(repeating: UInt8(ascii: " "), count: 16_384))
            return Response(status: .ok, headers: fields, body: ResponseBody(contentLength: declaredLength ? size : nil) { writer in
                var sent = 0
                while sent < size {
                    let part = min(chunk.readableBytes, size - sent)
                    try await writer.write(chunk.getSlice(at: 0, length: part)!)
                    sent += part
                }
                try await writer.finish(nil)
            })
        case .hold?:
            while !isDead { try await Task.sleep(for: .milliseconds(10)) }
            try await dropConnection(channel)
        case nil:
            break
        }

        guard let body else {
            return Response(status: .notFound, headers: fields, body: .init(byteBuffer: ByteBuffer(string: #"{"message": "Release not found."}"#)))
        }
        if sendETags {
            let etag = "\"\(Self.fingerprint(body))\""
            fields[.eTag] = etag
            if headers["if-none-match"] == etag {
                return Response(status: .notModified, headers: fields)
            }
        }
        if let encoding { fields[.contentEncoding] = encoding }
        return Response(status: .ok, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func dropConnection(_ channel: any Channel) async throws -> Never {
        try? await channel.close()
        throw FakeDiscogsError.connectionDropped
    }

    /// FNV-1a: a stable fingerprint of the body, for its ETag.
    private static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}

/// The request context of the fake: the basic one plus the client's port.
public struct FakeDiscogsContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

public enum FakeDiscogsError: Error {
    case didNotStart
    case connectionDropped
}
