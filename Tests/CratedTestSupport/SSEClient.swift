import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal Server-Sent Events client over a plain socket to 127.0.0.1, enough to watch a
/// stream in tests: it sends one GET and parses `id:` / `event:` / `data:` blocks as they arrive.
public final class SSEClient {
    public struct Event: Equatable, Sendable {
        public var id: String?
        public var event: String?
        public var data: String
    }

    private let socket: Int32
    /// Bytes as received, before the response head and the chunked transfer encoding are removed.
    private var raw: [UInt8] = []
    /// What arrived and was not yet taken as an event, as text: for a test's failure message.
    public var pendingText: String { String(decoding: raw.prefix(2000), as: UTF8.self) }
    /// The decoded body text not yet parsed into events.
    private var buffer = ""
    public private(set) var status: Int?
    /// Whether the server has ended the stream (the connection closed, or the last chunk came).
    public private(set) var isClosed = false

    public init(port: Int, path: String, token: String, lastEventId: String? = nil) throws {
        socket = try LoopbackSocket.connected(to: port)
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAuthorization: Bearer \(token)\r\n"
        if let lastEventId { request += "Last-Event-ID: \(lastEventId)\r\n" }
        request += "\r\n"
        _ = request.withCString { send(socket, $0, strlen($0), 0) }
    }

    deinit { close(socket) }

    /// The next event (keep-alive comments skipped), or nil when none arrives within `timeout`.
    /// The default is long because an expected event may wait on a machine the whole suite loads;
    /// a test that expects no event passes a short timeout of its own.
    public func next(timeout: TimeInterval = 30) async -> Event? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let event = takeEvent() { return event }
            // Polls without blocking: a thread of the cooperative pool blocked here would starve the
            // in-process server that is to send the event (two threads on a two-core machine).
            switch receive() {
            case .data: continue
            case .closed:
                isClosed = true
                return takeEvent()
            case .nothing:
                // Only once the socket has nothing: a task that was not scheduled for the whole
                // timeout (other tests holding the pool's threads) still reads what arrived meanwhile.
                guard deadline.timeIntervalSinceNow > 0 else { return nil }
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
    }

    private enum Received { case data, nothing, closed }

    private func receive() -> Received {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return .nothing }
        var bytes = [UInt8](repeating: 0, count: 65536)
        let count = recv(socket, &bytes, bytes.count, 0)
        guard count > 0 else { return .closed }
        raw += bytes[0..<count]
        return .data
    }

    /// Removes the response head once, decodes whole chunks, then returns one complete event block.
    private func takeEvent() -> Event? {
        let crlf: [UInt8] = [13, 10]
        func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
            guard bytes.count >= pattern.count else { return nil }
            return (0...(bytes.count - pattern.count)).first { Array(bytes[$0..<($0 + pattern.count)]) == pattern }
        }
        if status == nil {
            guard let end = find(crlf + crlf, in: raw) else { return nil }
            let head = String(decoding: raw[..<end], as: UTF8.self)
            status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            raw.removeFirst(end + 4)
        }
        // Chunked transfer encoding: `<hex size>\r\n<payload>\r\n`, decoded only once a chunk is whole.
        while let lineEnd = find(crlf, in: raw), let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self), radix: 16),
              raw.count >= lineEnd + 2 + size + 2 {
            // The empty chunk ends the response: the server has ended the stream.
            if size == 0 { isClosed = true }
            buffer += String(decoding: raw[(lineEnd + 2)..<(lineEnd + 2 + size)], as: UTF8.self)
            raw.removeFirst(lineEnd + 2 + size + 2)
        }
        while let end = buffer.range(of: "\n\n") {
            let block = buffer[..<end.lowerBound]
            buffer = String(buffer[end.upperBound...])
            var event = Event(id: nil, event: nil, data: "")
            for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event.event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { event.data += String(line.dropFirst(6)) }
            }
            // `retry:` blocks and keep-alive comments carry no event.
            if event.event != nil { return event }
        }
        return nil
    }
}
