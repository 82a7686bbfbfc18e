import CratedArtwork
import CratedCore
import HTTPTypes
import Hummingbird

/// `GET /v1/artwork/{key}/{width}`: a cover's variant, from memory when small and served lately,
/// else streamed from disk. Answers carry a strong ETag and may be cached for a year: a URL's bytes
/// never change but for its original's.
struct ArtworkController {
    let artwork: ArtworkService
    let fileIO = FileIO()

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get(":key/:width", use: variant)
    }

    static let cacheControl = "public, max-age=31536000, immutable"

    @Sendable func variant(request: Request, context: AppRequestContext) async throws -> Response {
        let key = context.parameters.get("key") ?? ""
        // Written as crated writes it (no `0320`, no `+320`): one variant, one URL for caches.
        guard let raw = context.parameters.get("width"), let width = Int(raw), String(width) == raw else {
            throw APIError.notFound("no artwork at this address")
        }
        let accept = request.headers[.accept]
        var headers: HTTPFields = [.cacheControl: Self.cacheControl, .vary: "Accept"]
        if let condition = request.headers[.ifNoneMatch], let etag = artwork.currentETag(key: key, width: width, accept: accept),
           ETagMatch.matches(ifNoneMatch: condition, etag: etag) {
            headers[.eTag] = etag
            return Response(status: .notModified, headers: headers)
        }
        // A variant evicted between being found and being opened is made again, once.
        for attempt in 1...2 {
            let served: ServedArtwork
            do {
                served = try await artwork.variant(key: key, width: width, accept: accept)
            } catch {
                throw Self.apiError(error)
            }
            let body: ResponseBody
            if let contents = served.contents {
                body = ResponseBody(byteBuffer: contents)
            } else {
                do {
                    body = try await fileIO.loadFile(path: served.path, context: context)
                } catch where attempt == 1 {
                    continue
                }
            }
            headers[.contentType] = served.contentType
            headers[.contentLength] = String(served.bytes)
            headers[.eTag] = served.etag
            headers[.xContentTypeOptions] = "nosniff"
            return Response(status: .ok, headers: headers, body: body)
        }
        throw APIError(status: .serviceUnavailable, code: "artwork_unavailable", message: "the cover was removed while being sent; try again")
    }

    static func apiError(_ error: ArtworkServeError) -> APIError {
        switch error {
        case .notFound(let message):
            return .notFound(message)
        case .unavailable(_, let retryAfter):
            var answer = APIError(status: .serviceUnavailable, code: "artwork_unavailable", message: error.description)
            answer.headers[.retryAfter] = String(retryAfter)
            return answer
        case .storage:
            var answer = APIError(status: .serviceUnavailable, code: "artwork_storage", message: error.description)
            answer.headers[.retryAfter] = "60"
            return answer
        }
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}
