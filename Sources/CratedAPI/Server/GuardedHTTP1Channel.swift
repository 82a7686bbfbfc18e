import CratedJSON
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Limits on connections that Hummingbird's HTTP/1 channel does not set itself.
public struct ConnectionLimits: Sendable {
    /// Open connections at most. Past it, a new connection closes the one that has waited longest on
    /// its client, for a request head or the rest of a body (a flood of half-open connections, or of
    /// bodies sent a byte at a time, makes way for real ones), or is itself closed when every open
    /// connection is busy with an answer.
    public var maxConnections: Int
    /// How long a connection's first request head may take to arrive. The next ones on a kept-alive
    /// connection may also first wait the idle timeout.
    public var headTimeout: TimeAmount
    /// How long a request body may take to arrive, from the end of its head.
    public var bodyTimeout: TimeAmount
    /// How long an answer may wait on a client that has stopped reading it (the connection's
    /// outgoing buffer full): an event stream or pipelined answers nobody reads would otherwise
    /// hold the connection, and SIGTERM waiting on their writes, for ever.
    public var writeTimeout: TimeAmount

    public init(maxConnections: Int, headTimeout: TimeAmount, bodyTimeout: TimeAmount, writeTimeout: TimeAmount) {
        self.maxConnections = maxConnections
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
        self.writeTimeout = writeTimeout
    }
}

/// Hummingbird's HTTP/1 channel with `ConnectionGuard` in each connection's pipeline, where it sees
/// HTTP/1 request heads with their version.
struct GuardedHTTP1Channel: ServerChildChannel {
    let http1: HTTP1Channel
    let limits: ConnectionLimits
    let idleTimeout: TimeAmount
    let connections: OpenConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(limits: limits, idleTimeout: idleTimeout, connections: connections), position: .after(decoder))
            return value
        }
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with crated's connection limits and timeouts.
    static func guardedHTTP1(idleTimeout: TimeAmount, limits: ConnectionLimits) -> HTTPServerBuilder {
        let connections = OpenConnections()
        return HTTPServerBuilder { responder in
            GuardedHTTP1Channel(
                http1: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)),
                limits: limits, idleTimeout: idleTimeout, connections: connections)
        }
    }
}

/// The server's open connections, and which of them wait on their client, oldest first.
final class OpenConnections: Sendable {
    private struct State {
        var count = 0
        var nextId: UInt64 = 0
        /// Connections waiting for a request head or body, by when they started waiting (ids only grow).
        var waiting: [UInt64: any Channel] = [:]
    }
    private let state = Mutex(State())

    var count: Int { state.withLock { $0.count } }
    /// How many wait on their client: the ones a new connection past the limit may close.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Counts a new connection; returns its id, or nil when it must be closed. Past the limit it
    /// closes the connection that has waited longest on its client, if any.
    func open(_ channel: any Channel, limit: Int) -> UInt64? {
        let (id, shed): (UInt64?, (any Channel)?) = state.withLock { state in
            var shed: (any Channel)?
            if state.count >= limit {
                guard let oldest = state.waiting.keys.min() else { return (nil, nil) }
                shed = state.waiting.removeValue(forKey: oldest)
            }
            state.count += 1
            state.nextId += 1
            state.waiting[state.nextId] = channel
            return (state.nextId, shed)
        }
        shed?.close(promise: nil)
        return id
    }

    /// The connection now waits on its client for a request head (again) or a body; returns its new
    /// place in line, at the back: how long it waited for what came before does not count against it.
    func waitsOnClient(id: UInt64, _ channel: any Channel) -> UInt64 {
        state.withLock { state in
            state.waiting.removeValue(forKey: id)
            state.nextId += 1
            state.waiting[state.nextId] = channel
            return state.nextId
        }
    }

    /// The connection has its whole request: it waits on the server now.
    func gotRequest(id: UInt64) {
        _ = state.withLock { $0.waiting.removeValue(forKey: id) }
    }

    func close(id: UInt64) {
        state.withLock { state in
            state.waiting.removeValue(forKey: id)
            state.count -= 1
        }
    }
}

/// One connection's guard: the connection limit, the head, body and write timeouts, and closing after
/// the answer to an HTTP/1.0 request without keep-alive (HTTP/1.0 closes by default).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let limits: ConnectionLimits
    /// How long a kept-alive connection may take to send its next complete head after an answer.
    private let nextHeadTimeout: TimeAmount
    private let connections: OpenConnections
    private var id: UInt64?
    private var timeout: Scheduled<Void>?
    /// Set while the channel cannot take more of an answer: it closes the connection at the write timeout.
    private var stalled: Scheduled<Void>?
    /// For each request read and not yet answered, in order, whether the connection stays open after
    /// its answer: a pipelining client sends its next requests (the last with `Connection: close`)
    /// before the first is answered.
    private var owedKeepAlive: [Bool] = []

    init(limits: ConnectionLimits, idleTimeout: TimeAmount, connections: OpenConnections) {
        self.limits = limits
        self.nextHeadTimeout = idleTimeout + limits.headTimeout
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let id = connections.open(context.channel, limit: limits.maxConnections) else {
            context.close(promise: nil)
            return
        }
        self.id = id
        closeUnlessDone(in: limits.headTimeout, context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timeout?.cancel()
        stalled?.cancel()
        if let id { connections.close(id: id) }
        id = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            owedKeepAlive.append(head.isKeepAlive)
            if let id { self.id = connections.waitsOnClient(id: id, context.channel) }
            closeUnlessDone(in: limits.bodyTimeout, context: context)
        case .body:
            break
        case .end:
            // Unless its answer went before it (a 401 to a body not yet read): the connection then
            // waits for a next head already, and keeps that place and that timer.
            if !owedKeepAlive.isEmpty {
                if let id { connections.gotRequest(id: id) }
                timeout?.cancel()
                timeout = nil
            }
        }
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stalled?.cancel()
            stalled = nil
        } else if stalled == nil {
            stalled = context.eventLoop.assumeIsolated().scheduleTask(in: limits.writeTimeout) { context.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let keepAlive = owedKeepAlive.isEmpty ? true : owedKeepAlive.removeFirst()
        if keepAlive {
            context.write(data, promise: promise)
            // A request read already keeps the timer its head or body set (none once it is whole):
            // the connection waits on the server, not on the client.
            guard owedKeepAlive.isEmpty else { return }
            if let id { self.id = connections.waitsOnClient(id: id, context.channel) }
            closeUnlessDone(in: nextHeadTimeout, context: context)
        } else {
            let written = promise ?? context.eventLoop.makePromise()
            context.write(data, promise: written)
            written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// A request that cannot be parsed (a head too large, a line that is not HTTP) is answered in the
    /// API's error shape, `http_400` or `http_431`, and the connection closed: the decoder reads
    /// nothing more from it. With answers still owed, Hummingbird answers in turn (a bare 400).
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, owedKeepAlive.isEmpty else {
            context.fireErrorCaught(error)
            return
        }
        let tooLarge = parserError == .headerOverflow
        let status: HTTPResponseStatus = tooLarge ? .requestHeaderFieldsTooLarge : .badRequest
        let message = tooLarge ? "the request line or its header fields are too large" : "the request is not valid HTTP/1.1 (\(parserError))"
        let body = (try? StreamingJSONEncoder().encode(ErrorBody(code: "http_\(status.code)", message: message, field: nil))) ?? []
        let headers: HTTPHeaders = [
            "Content-Type": "application/json; charset=utf-8", "Content-Length": String(body.count), "Connection": "close",
        ]
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    private func closeUnlessDone(in time: TimeAmount, context: ChannelHandlerContext) {
        timeout?.cancel()
        timeout = context.eventLoop.assumeIsolated().scheduleTask(in: time) { context.close(promise: nil) }
    }
}
