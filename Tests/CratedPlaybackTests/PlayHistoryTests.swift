import CratedCore
@testable import CratedPlayback
import Foundation
import GRDB
import Testing

/// A play counts once it has been heard for half the track or 4 minutes, whichever comes first; it
/// is written once per play however often the state is read.
@Suite struct PlayHistoryTests {
    @Test func aPlayIsRecordedOnceAtHalfTheTrack() async throws {
        let record = try OneRecord()
        let start = record.clock.nowMs
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 89)
        _ = try await record.player()
        #expect(try record.library.historyCount(userId: record.userId) == 0)

        record.clock.advance(seconds: 1)
        for _ in 0..<20 {
            _ = try await record.player()
            record.clock.advance(byMs: 500)
        }
        #expect(try record.library.historyCount(userId: record.userId) == 1)

        // A2 (4:00) counts at 2:00 into it: 3:00 + 2:00 after the start.
        record.clock.set(nowMs: start + 299_999)
        _ = try await record.player()
        #expect(try record.library.historyCount(userId: record.userId) == 1)
        record.clock.advance(byMs: 1)
        _ = try await record.player()
        _ = try await record.player()
        #expect(try record.library.historyCount(userId: record.userId) == 2)
    }

    @Test func countingAPlayIsNotARevision() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 100)
        let player = try await record.player()
        #expect(try record.library.historyCount(userId: record.userId) == 1)
        #expect(player.revision == 1)
    }

    @Test func longTracksCountAfterFourMinutes() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Long", tracks: [.track("A1", 20 * 60), .track("A2", nil)])
        try library.addCopy(userId: userId, albumId: albumId)
        try await service.perform(.play(.album(id: albumId)), userId: userId)
        library.clock.advance(seconds: 239)
        _ = try await service.current(userId: userId)
        #expect(try library.historyCount(userId: userId) == 0)
        library.clock.advance(seconds: 1)
        _ = try await service.current(userId: userId)
        #expect(try library.historyCount(userId: userId) == 1)

        // A track of unknown length also counts after 4 minutes.
        try await service.perform(.next, userId: userId)
        library.clock.advance(seconds: 240)
        let page = try await service.history(userId: userId)
        #expect(page.entries.map(\.trackPosition) == ["A2", "A1"])
        #expect(page.entries.first?.durationMs == nil)
    }

    /// On a compilation the mini-player and the history name each track's own artists, and the
    /// history keeps them as they were when the track played.
    @Test func aCompilationsTracksAreShownWithTheirOwnArtists() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Mixed Up", artist: "Various", tracks: [
            TrackSeed(position: "A1", title: "One", durationMs: 120_000, artist: "Nina Feat. G."),
            TrackSeed(position: "A2", title: "Two", durationMs: 120_000),
        ])
        try library.addCopy(userId: userId, albumId: albumId)

        #expect(try await service.perform(.play(.album(id: albumId)), userId: userId).miniPlayer(scale: 2).artist == "Nina Feat. G.")
        library.clock.advance(seconds: 120)
        #expect(try await service.current(userId: userId).miniPlayer(scale: 2).artist == "Various", "a track without its own: the album's")
        library.clock.advance(seconds: 120)
        _ = try await service.current(userId: userId)
        try await library.database.writer.write { db in try db.execute(sql: "UPDATE track SET artist_credit = 'Someone Else'") }

        let entries = try await service.history(userId: userId).entries
        #expect(entries.map(\.trackPosition) == ["A2", "A1"])
        #expect(entries.map(\.artist) == ["Various", "Nina Feat. G."])
    }

    /// A sync that rewrites an album's tracklist gives its tracks new ids: a history entry names the
    /// track now at its position, which plays, and none when the position is gone.
    @Test func anEntryNamesTheTrackNowAtItsPositionAfterTheTracklistIsRewritten() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 100)
        _ = try await record.player()
        let before = try #require(try await record.service.history(userId: record.userId).entries.first)
        #expect(before.trackPosition == "A1" && before.trackId != nil)

        let rewritten = try await record.library.database.writer.write { db -> Int64 in
            let old = try Row.fetchOne(db, sql: "SELECT * FROM track WHERE id = ?", arguments: [before.trackId])!
            try db.execute(sql: "DELETE FROM track WHERE id = ?", arguments: [before.trackId])
            try db.execute(sql: """
                INSERT INTO track (album_id, position, side, sort_order, title, duration_ms, kind)
                VALUES (?, ?, ?, ?, ?, ?, 'track')
                """, arguments: [old["album_id"], old["position"], old["side"], old["sort_order"], old["title"], old["duration_ms"]])
            return db.lastInsertedRowID
        }
        let after = try #require(try await record.service.history(userId: record.userId).entries.first)
        #expect(after.trackId == rewritten && rewritten != before.trackId)
        try await record.perform(.play(.album(id: record.albumId, from: .track(id: rewritten))))

        try await record.library.database.writer.write { db in
            try db.execute(sql: "UPDATE track SET position = 'Z9' WHERE id = ?", arguments: [rewritten])
        }
        #expect(try await record.service.history(userId: record.userId).entries.first?.trackId == nil)
    }

    @Test func aTrackSkippedEarlyIsNotRecorded() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 60)
        try await record.perform(.next)
        record.clock.advance(seconds: 60)
        try await record.perform(.stop)
        record.clock.advance(seconds: 3600)
        #expect(try await record.service.history(userId: record.userId).entries.isEmpty)
    }

    @Test func pausedTimeIsNotListening() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 60)
        try await record.perform(.pause)
        record.clock.advance(seconds: 600)
        try await record.perform(.resume)
        record.clock.advance(seconds: 29)
        _ = try await record.player()
        #expect(try record.library.historyCount(userId: record.userId) == 0)
        record.clock.advance(seconds: 1)
        _ = try await record.player()
        #expect(try record.library.historyCount(userId: record.userId) == 1)
    }

    @Test func seekingAheadIsNotListening() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        try await record.perform(.seek(positionMs: 170_000))
        record.clock.advance(seconds: 10)
        #expect(try await record.player().track?.position == "A2")
        #expect(try record.library.historyCount(userId: record.userId) == 0)
    }

    @Test func restartingATrackIsANewPlay() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 100)
        try await record.perform(.previous)
        record.clock.advance(seconds: 90)
        let entries = try await record.service.history(userId: record.userId).entries
        #expect(entries.map(\.trackPosition) == ["A1", "A1"])
    }

    @Test func playsHeardWhileNobodyAskedAreRecordedWithTheirOwnStartTimes() async throws {
        let record = try OneRecord()
        let start = record.clock.nowMs
        try await record.perform(.play(.album(id: record.albumId)))
        // Side A plays out and the waiting record expires before anyone reads the state.
        record.clock.advance(seconds: 3 * 3600)
        let entries = try await record.service.history(userId: record.userId).entries
        #expect(entries.map(\.trackPosition) == ["A2", "A1"])
        #expect(entries.map(\.playedAt) == [RFC3339.seconds(start + 180_000), RFC3339.seconds(start)])
        #expect(entries.first?.albumTitle == "Two Sides")
        #expect(entries.first?.artist == "The Testers")
        #expect(entries.first?.side == "A")
        #expect(entries.first?.trackTitle == "Track A2")
        #expect(try await record.player().state == .idle)
    }

    @Test func historyPagesVisitEveryPlayOnceNewestFirst() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Short Pieces", tracks: (1...5).map { .track("A\($0)", 10) })
        try library.addCopy(userId: userId, albumId: albumId)
        try await service.perform(.play(.album(id: albumId)), userId: userId)
        library.clock.advance(seconds: 60)
        // Two more plays that began in the same millisecond: the cursor tells them apart by id.
        let sameInstant = library.clock.nowMs
        try await library.database.writer.write { db in
            for title in ["Twin 1", "Twin 2"] {
                try db.execute(sql: """
                    INSERT INTO play_history (user_id, album_id, track_position, track_title, listening_id, played_at_ms)
                    VALUES (?, ?, 'B1', ?, 99, ?)
                    """, arguments: [userId, albumId, title, sameInstant])
            }
        }

        var titles: [String] = []
        var cursor: HistoryCursor?
        var pages = 0
        repeat {
            let page = try await service.history(userId: userId, before: cursor, limit: 2)
            #expect(page.entries.count <= 2)
            titles += page.entries.map(\.trackTitle)
            cursor = try page.next.map { try #require(HistoryCursor($0.description)) }
            pages += 1
        } while cursor != nil && pages < 10
        #expect(titles == ["Twin 2", "Twin 1", "Track A5", "Track A4", "Track A3", "Track A2", "Track A1"])
        #expect(pages == 4)
    }

    @Test func cursorsThatAreNotCursorsAreRejected() {
        #expect(HistoryCursor("1750000000000_42")?.description == "1750000000000_42")
        for text in ["", "42", "abc_1", "1_2_3", "1_", "_1"] {
            #expect(HistoryCursor(text) == nil, "\(text)")
        }
    }

    @Test func historyIsPerUser() async throws {
        let record = try OneRecord()
        let neighbour = try record.library.addUser("neighbour")
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 120)
        #expect(try await record.service.history(userId: record.userId).entries.count == 1)
        #expect(try await record.service.history(userId: neighbour).entries.isEmpty)
        #expect(try await record.service.albumPlayStats(userId: neighbour, albumId: record.albumId).playCount == 0)
    }

    @Test func albumStatsCountListeningsAndTheLastPlay() async throws {
        let record = try OneRecord()
        let other = try record.library.addAlbum("Other", tracks: [.track("A1", 100)])
        try record.library.addCopy(userId: record.userId, albumId: other)
        var stats = try await record.service.albumPlayStats(userId: record.userId, albumId: record.albumId)
        #expect(stats == AlbumPlayStats(playCount: 0, trackPlayCount: 0, lastPlayedAt: nil))

        // One listening of side A: two tracks, one play of the album.
        let start = record.clock.nowMs
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 420)
        stats = try await record.service.albumPlayStats(userId: record.userId, albumId: record.albumId)
        #expect(stats == AlbumPlayStats(playCount: 1, trackPlayCount: 2, lastPlayedAt: RFC3339.seconds(start + 180_000)))

        // Putting it on again is a second listening.
        let again = record.clock.nowMs
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 100)
        stats = try await record.service.albumPlayStats(userId: record.userId, albumId: record.albumId)
        #expect(stats == AlbumPlayStats(playCount: 2, trackPlayCount: 3, lastPlayedAt: RFC3339.seconds(again)))
        #expect(try await record.service.albumPlayStats(userId: record.userId, albumId: other).playCount == 0)
    }

    @Test func historySurvivesARestartOfThePlay() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 60)
        // The daemon restarts 40 s later: the play reached 1:30 while it was down.
        record.clock.advance(seconds: 40)
        let reopened = try AppDatabase.open(path: record.library.path)
        let service = PlaybackService(database: reopened, clock: record.clock)
        #expect(try await service.history(userId: record.userId).entries.map(\.trackPosition) == ["A1"])
        _ = try await service.current(userId: record.userId)
        _ = try await record.service.current(userId: record.userId)
        #expect(try record.library.historyCount(userId: record.userId) == 1)
    }

    @Test func albumStatsAfterARestartCountThePlayThatCountedWhileDown() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 100)
        // A new daemon has settled no one yet: its first album page settles this user before reading.
        let service = PlaybackService(database: try AppDatabase.open(path: record.library.path), clock: record.clock)
        #expect(try await service.albumPlayStats(userId: record.userId, albumId: record.albumId).trackPlayCount == 1)
        #expect(try record.library.historyCount(userId: record.userId) == 1)
    }
}
