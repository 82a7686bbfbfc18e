import CratedJSON
import CratedPlayback
import Hummingbird

/// An error that carries its own answer to the client: its status and the JSON `ErrorBody`.
/// `JSONErrorMiddleware` passes these through as they are; every other error is translated there.
protocol APIErrorResponse: HTTPResponseError {}

/// The body of every error answer: `{"error": {"code", "message", "field"}}`, and for a refused
/// player command the mini-player the client should show instead (`current`).
struct ErrorBody: Codable {
    struct Detail: Codable, Equatable {
        var code: String
        var message: String
        var field: String?
    }

    var error: Detail
    var current: MiniPlayer?

    init(code: String, message: String, field: String?, current: MiniPlayer? = nil) {
        error = Detail(code: code, message: message, field: field)
        self.current = current
    }

    func response(status: HTTPResponse.Status, headers: HTTPFields = [:]) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: try StreamingJSONEncoder().encode(self))))
    }
}
