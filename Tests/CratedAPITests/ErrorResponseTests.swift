@testable import CratedAPI
import CratedCore
import CratedGrid
import CratedPlayback
import CratedSync
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Every domain error reaches the client through its own `HTTPResponseError` conformance
/// (CratedAPI/Errors), as `{"error": {...}}` with its status, whatever route throws it.
@Suite struct ErrorResponseTests {
    static let errors: [(String, any Error, HTTPResponse.Status, String, String?)] = [
        ("grid-parameter", GridError.badParameter("width", "must be positive"), .badRequest, "bad_parameter", "width"),
        ("grid-missing", GridError.notFound("crate", "no crate 9"), .notFound, "not_found", "crate"),
        ("collection-missing", CollectionError.notFound("crate 9"), .notFound, "not_found", nil),
        ("collection-conflict", CollectionError.conflict(field: "name", message: "taken"), .conflict, "conflict", "name"),
        ("collection-invalid", CollectionError.invalid(field: "rating", message: "1 to 5"), .unprocessableContent, "invalid", "rating"),
        ("playback-rule", PlaybackError.ruleBroken(.seekPastEnd, message: "past the end"), .unprocessableContent, "seek_past_end", "positionMs"),
        ("playback-storage", PlaybackError.storage("disk I/O error"), .serviceUnavailable, "storage_unavailable", nil),
        ("sync-database", SyncError.database("database is locked"), .serviceUnavailable, "storage_unavailable", nil),
        ("sync-user", SyncError.user("no user 'x'"), .notFound, "not_found", nil),
        ("sync-collection", SyncError.collection(user: "x", reason: "404"), .badGateway, "discogs_failed", nil),
        ("database-locked", AppDatabaseError.locked, .serviceUnavailable, "database_busy", nil),
    ]

    @Test func eachDomainErrorAnswersWithItsStatusCodeAndField() async throws {
        let router = Router()
        router.add(middleware: JSONErrorMiddleware())
        for (path, error, _, _, _) in Self.errors {
            router.get(RouterPath(path)) { _, _ -> String in throw error }
        }
        router.get("unexpected") { _, _ -> String in throw CocoaError(.fileNoSuchFile) }
        try await Application(router: router).test(.router) { client in
            for (path, _, status, code, field) in Self.errors {
                let response = try await client.execute(uri: "/\(path)", method: .get)
                #expect(response.status == status, "\(path)")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                let body = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body))
                #expect(body.error.code == code, "\(path)")
                #expect(body.error.field == field, "\(path)")
                #expect(!body.error.message.isEmpty)
                // What failed for a busy database may work in a moment: the client is told when.
                #expect((response.headers[.retryAfter] != nil) == (status == .serviceUnavailable), "\(path)")
            }
            // Anything else is a bug: a 500 that tells nothing.
            let response = try await client.execute(uri: "/unexpected", method: .get)
            #expect(response.status == .internalServerError)
            #expect(try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: response.body)).error.code == "internal")
        }
    }
}
