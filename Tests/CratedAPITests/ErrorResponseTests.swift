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
        ("database-full", AppDatabaseError.storageFailed("database or disk is full"), .serviceUnavailable, "storage_unavailable", nil),
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

    /// A full disk under the database answers a change 503 `storage_unavailable` with `Retry-After`,
    /// not a 500, and loses nothing: once there is room, the change goes through. SQLite's page limit
    /// on the write connection stands in for the full disk (SQLITE_FULL either way).
    @Test func aFullDiskAnswers503AndLosesNothing() async throws {
        let server = try TestServer()
        let pages = try await server.database.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA page_count")! }
        try await server.database.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = \(pages)") }
        let notes = String(repeating: "A long note that needs pages of its own. ", count: 200)
        try await server.test { client in
            // The file's free pages take the first notes; then it is full.
            var refused: Int64?
            for copy in try server.copyIds(user: "collector") {
                let response = try await client.call(.patch, "/v1/copies/\(copy)", token: server.writeToken, json: #"{"notes":"\#(notes)"}"#)
                if response.status == .ok { continue }
                #expect(response.status == .serviceUnavailable)
                #expect(response.error?.code == "storage_unavailable")
                #expect(response.headers[.retryAfter] == "30")
                refused = copy
                break
            }
            let copy = try #require(refused)
            #expect(try await server.database.reader.read { db in try String.fetchOne(db, sql: "SELECT notes FROM collection_item WHERE id = ?", arguments: [copy]) } != notes)

            try await server.database.writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA max_page_count = 1000000") }
            #expect(try await client.call(.patch, "/v1/copies/\(copy)", token: server.writeToken, json: #"{"notes":"\#(notes)"}"#).status == .ok)
            #expect(try await server.database.reader.read { db in try String.fetchOne(db, sql: "SELECT notes FROM collection_item WHERE id = ?", arguments: [copy]) } == notes)
        }
        #expect(try await server.database.reader.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }
}
