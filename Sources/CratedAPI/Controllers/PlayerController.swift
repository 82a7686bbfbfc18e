import CratedJSON
import CratedCore
import CratedPlayback
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// The mini-player: its document, the commands that change it, its change stream, and play history.
struct PlayerController {
    let playback: PlaybackService
    /// For the token behind each event stream, which ends once it is revoked.
    let database: AppDatabase
    /// How often an event stream sends a comment, so proxies and clients keep an idle one open.
    let keepAliveInterval: Duration

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get("player", use: document)
            .get("player/events", use: events)
            .post("player/play", use: play)
            .post("player/pause") { try await command(.pause, $0, $1) }
            .post("player/resume") { try await command(.resume, $0, $1) }
            .post("player/next") { try await command(.next, $0, $1) }
            .post("player/previous") { try await command(.previous, $0, $1) }
            .post("player/flip") { try await command(.flip, $0, $1) }
            .post("player/stop") { try await command(.stop, $0, $1) }
            .post("player/seek", use: seek)
            .get("history", use: history)
    }

    @Sendable func document(request: Request, context: AppRequestContext) async throws -> MiniPlayer {
        let principal = try context.requirePrincipal()
        let scale = try request.scale()
        return try await playback.current(userId: principal.userId).miniPlayer(scale: scale)
    }

    @Sendable func play(request: Request, context: AppRequestContext) async throws -> MiniPlayer {
        let principal = try context.requirePrincipal()
        let scale = try request.scale()
        var request = request
        let body = try await request.decodeStrict(PlayBody.self, context: context)
        let target = try body.target()
        return try await playback.perform(.play(target), userId: principal.userId, expectedRevision: body.expectedRevision)
            .miniPlayer(scale: scale)
    }

    @Sendable func seek(request: Request, context: AppRequestContext) async throws -> MiniPlayer {
        let principal = try context.requirePrincipal()
        let scale = try request.scale()
        var request = request
        let body = try await request.decodeStrict(SeekBody.self, context: context)
        return try await playback.perform(.seek(positionMs: body.positionMs), userId: principal.userId, expectedRevision: body.expectedRevision)
            .miniPlayer(scale: scale)
    }

    func command(_ command: PlaybackCommand, _ request: Request, _ context: AppRequestContext) async throws -> MiniPlayer {
        let principal = try context.requirePrincipal()
        let scale = try request.scale()
        var request = request
        let body = try await request.decodeStrict(RevisionBody.self, context: context, emptyIs: RevisionBody())
        return try await playback.perform(command, userId: principal.userId, expectedRevision: body.expectedRevision)
            .miniPlayer(scale: scale)
    }

    @Sendable func history(request: Request, context: AppRequestContext) async throws -> HistoryPageDTO {
        let principal = try context.requirePrincipal()
        let limit = try request.queryInt("limit", default: 50, range: 1...200)
        let scale = try request.scale()
        var cursor: HistoryCursor?
        if let before = request.query("before") {
            guard let parsed = HistoryCursor(before) else { throw APIError.badParameter("before", "before must be a cursor from a previous page's next") }
            cursor = parsed
        }
        let page = try await playback.history(userId: principal.userId, before: cursor, limit: limit)
        return HistoryPageDTO(entries: page.entries.map { $0.sized(scale: scale) }, next: page.next?.description)
    }

    /// `GET /v1/player/events`: Server-Sent Events, one `player` event per revision with the mini-player
    /// document; `Last-Event-ID` resumes (the current state stands in for what was missed). The stream
    /// ends when the daemon shuts down gracefully, so SIGTERM waits on no open stream (one whose
    /// client stopped reading, blocked in a write, is closed by the connection's write timeout).
    @Sendable func events(request: Request, context: AppRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        let scale = try request.scale()
        let lastEventId: Int64?
        if let header = request.headers[.lastEventID] ?? request.query("lastEventId") {
            guard let value = Int64(header.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw APIError.badParameter("Last-Event-ID", "Last-Event-ID must be a revision number")
            }
            lastEventId = value
        } else {
            lastEventId = nil
        }
        let stream = try await playback.events(userId: principal.userId, lastEventId: lastEventId)
        let keepAlive = keepAliveInterval
        let tokenCheck = min(keepAliveInterval, .seconds(2))
        let streamsOpen = database.metrics.eventStreamsOpen
        let body = ResponseBody { writer in
            streamsOpen.increment()
            defer { streamsOpen.decrement() }
            // Bounded: a client that stops reading holds at most this many chunks; each event is the
            // whole state, so dropping older ones loses nothing the newest does not say.
            let (chunks, output) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
            output.yield("retry: 3000\n\n")
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await event in stream { output.yield(ServerSentEvent.player(event, scale: scale)) }
                    output.finish()
                }
                group.addTask {
                    while (try? await Task.sleep(for: keepAlive)) != nil { output.yield(": keep-alive\n\n") }
                }
                group.addTask {
                    // A revoked token ends the streams it opened, within `tokenCheck`.
                    while (try? await Task.sleep(for: tokenCheck)) != nil {
                        if (try? database.isTokenActive(id: principal.tokenId)) == false { output.finish() }
                    }
                }
                group.addTask {
                    // SIGTERM: end the stream so the server's graceful shutdown is not kept waiting.
                    if (try? await gracefulShutdown()) != nil { output.finish() }
                }
                for await chunk in chunks {
                    // A write fails when the client has gone away: stop, which ends the subscription.
                    guard (try? await writer.write(ByteBuffer(string: chunk))) != nil else { break }
                }
                group.cancelAll()
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .init("X-Accel-Buffering")!: "no"],
            body: body)
    }
}

enum ServerSentEvent {
    static func player(_ event: PlaybackEvent, scale: Double) -> String {
        let data = (try? StreamingJSONEncoder().encode(event.snapshot.miniPlayer(scale: scale))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "id: \(event.revision)\nevent: player\ndata: \(data)\n\n"
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
}

