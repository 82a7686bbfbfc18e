import CompressNIO
import Hummingbird
import NIOCore

/// gzip for the JSON (and the YAML document) a client accepts it for (`Accept-Encoding: gzip`, as
/// URLSession and browsers send it): a grid page comes to a third of its size or less, which a
/// phone away from the home network feels. zlib's fastest level: level 4 saved a tenth more bytes
/// for 1.5x the CPU. Answers under a kilobyte, event streams and covers go as they are (the web
/// client's files are gzipped once, by `WebAssets`). A compressed answer's `ETag` is weakened
/// (`W/"..."`, as RFC 9110 has it for another encoding of the same content): `If-None-Match` is
/// compared weakly, so it still brings a 304.
struct ResponseCompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    static var minimumBytes: Int { 1024 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard Self.compressible(response.headers[.contentType]), response.headers[.contentEncoding] == nil else {
            // A 304 stands for the answer it revalidates, which varies by encoding (RFC 9110, 15.4.5).
            if response.status == .notModified, !request.uri.path.hasPrefix("/v1/artwork/") {
                response.headers[.vary] = response.headers[.vary].map { $0 + ", Accept-Encoding" } ?? "Accept-Encoding"
                if Self.acceptsGzip(request) { response.headers[.eTag] = response.headers[.eTag].map(Self.weakened) }
            }
            return response
        }
        // Caches between keep one copy per encoding.
        response.headers[.vary] = response.headers[.vary].map { $0 + ", Accept-Encoding" } ?? "Accept-Encoding"
        guard request.method != .head, Self.acceptsGzip(request), (response.body.contentLength ?? Self.minimumBytes) >= Self.minimumBytes else {
            return response
        }
        let collected = CollectedBody()
        try await response.body.write(CollectingWriter(body: collected))
        var body = collected.buffer
        guard body.readableBytes >= Self.minimumBytes else {
            response.body = ResponseBody(byteBuffer: body)
            return response
        }
        let compressed = try body.compress(with: .gzip(configuration: .init(compressionLevel: .fastestCompression)))
        response.headers[.contentEncoding] = "gzip"
        response.headers[.eTag] = response.headers[.eTag].map(Self.weakened)
        response.body = ResponseBody(byteBuffer: compressed)
        return response
    }

    static func compressible(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json" || type == "application/yaml"
    }

    /// `gzip` (or `*`) with a quality above 0 among the request's `Accept-Encoding`.
    static func acceptsGzip(_ request: Request) -> Bool {
        request.headers[values: .acceptEncoding].flatMap { $0.split(separator: ",") }.contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { return false }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
    }

    static func weakened(_ etag: String) -> String {
        etag.hasPrefix("W/") ? etag : "W/" + etag
    }
}

/// The bytes of an answer's body, gathered to be compressed whole (an answer is a page at most).
/// Unchecked: one writer fills it, one write after another, before the middleware reads it.
private final class CollectedBody: @unchecked Sendable {
    var buffer = ByteBuffer()
}

private struct CollectingWriter: ResponseBodyWriter {
    let body: CollectedBody

    mutating func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        body.buffer.writeBuffer(&buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
