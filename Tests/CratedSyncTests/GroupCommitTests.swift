@testable import CratedSync
import CratedTestSupport
import CratedCore
import Foundation
import GRDB
import Testing

/// `AppDatabase.recordSyncResults`: several albums in one transaction, each in its own savepoint.
@Suite struct GroupCommitTests {
    static func metadata(_ json: [UInt8]) throws -> ReleaseMetadata {
        ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(json)))
    }

    @Test func aFailingAlbumRollsBackAloneWhileTheOthersCommit() async throws {
        try await SyncHarness.run { h in
            let ids: [Int64] = [10, 11, 12, 13]
            try h.importReleases(ids)
            let albums = try ids.map { try #require(try h.database.album(discogsReleaseId: $0)) }
            // Release 11's fourth track cannot be written: the album fails half-way, after its album
            // row, its artists and its first tracks were changed.
            try await h.database.writer.write { db in
                try db.execute(sql: """
                    CREATE TRIGGER refuse_track BEFORE INSERT ON track WHEN NEW.title = 'Track 4 of 11'
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
            }
            let before = try await catalogueSnapshot(h.database)
            let results = try ids.enumerated().map { index, id in
                AlbumSyncResult(albumId: albums[index].id!, outcome: .fetched(try Self.metadata(syntheticRelease(id: id, trackCount: 5)), etag: "\"e\(id)\""))
            } + [AlbumSyncResult(albumId: 999_999, outcome: .notModified)]

            let errors = try await h.database.recordSyncResults(results, at: h.clock.date)

            #expect(errors.count == 5)
            #expect(errors[0] == nil && errors[2] == nil && errors[3] == nil)
            #expect((errors[1] as? DatabaseError)?.message == "refused by the test")
            // A 304 for an album without a sync row changes nothing, and is no error.
            #expect(errors[4] == nil)

            #expect(try await catalogueSnapshot(h.database, release: 11) == before.filter { $0.key == 11 }, "release 11 is as it was")
            #expect(try h.syncState(release: 11) == nil)
            for id: Int64 in [10, 12, 13] {
                let album = try #require(try h.database.album(discogsReleaseId: id))
                #expect(album.title == "Release \(id)")
                #expect(try h.database.tracks(ofAlbum: album.id!).count == 5)
                let state = try #require(try h.syncState(release: id))
                #expect(state.status == .synced && state.etag == "\"e\(id)\"")
            }
            // The search rows follow the albums that committed, and only those.
            let found = try await h.database.reader.read { db in
                try Int64.fetchAll(db, sql: "SELECT rowid FROM album_search WHERE album_search MATCH ? ORDER BY rowid", arguments: ["\"Track 1 of\"*"])
            }
            #expect(found == [albums[0].id!, albums[2].id!, albums[3].id!])
        }
    }

    /// Failures, 304s and releases Discogs lacks change no listing: the grids' positions and kept
    /// search results survive them. A synced release changes listings.
    @Test func onlySyncedReleasesAdvanceTheListingGeneration() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([30, 31, 32])
            let albums = try [30, 31, 32].map { try #require(try h.database.album(discogsReleaseId: $0)).id! }
            let before = try await h.database.reader.read { try ListingGeneration.current($0) }
            _ = try await h.database.recordSyncResults([
                AlbumSyncResult(albumId: albums[0], outcome: .failed(error: "HTTP 500", retryDelay: { _ in 60 })),
                AlbumSyncResult(albumId: albums[1], outcome: .notModified),
                AlbumSyncResult(albumId: albums[2], outcome: .notFound(retryAfter: 60)),
            ], at: h.clock.date)
            let afterNoChange = try await h.database.reader.read { try ListingGeneration.current($0) }
            #expect(afterNoChange == before)
            _ = try await h.database.recordSyncResults([
                AlbumSyncResult(albumId: albums[0], outcome: .fetched(try Self.metadata(syntheticRelease(id: 30)), etag: nil)),
            ], at: h.clock.date)
            let afterSync = try await h.database.reader.read { try ListingGeneration.current($0) }
            #expect(afterSync != before)
        }
    }

    @Test func anAlbumDeletedMeanwhileIsReportedAndTheRestCommit() async throws {
        try await SyncHarness.run { h in
            try h.importReleases([20, 21])
            let kept = try #require(try h.database.album(discogsReleaseId: 21))

            let errors = try await h.database.recordSyncResults([
                AlbumSyncResult(albumId: 424_242, outcome: .fetched(try Self.metadata(syntheticRelease(id: 20)), etag: nil)),
                AlbumSyncResult(albumId: kept.id!, outcome: .failed(error: "HTTP 500", retryDelay: { _ in 60 })),
            ], at: h.clock.date)

            #expect(errors[0] as? ReleaseWriteError == .albumMissing(424_242))
            #expect(errors[1] == nil)
            let state = try #require(try h.syncState(release: 21))
            #expect(state.status == .failed && state.attempts == 1 && state.lastError == "HTTP 500")
            #expect(state.nextAttemptAt == Timestamp.string(from: h.clock.date.addingTimeInterval(60)))
        }
    }
}
