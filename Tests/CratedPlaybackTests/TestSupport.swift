import CratedTestSupport
import CratedCore
@testable import CratedPlayback
import Foundation
import GRDB
import Testing

/// A track to seed: the side is the position's leading letters (`B2` is on side B), as sync fills it.
struct TrackSeed {
    var position: String
    var title: String
    var durationMs: Int?
    var kind = "track"
    /// The track's own artists (a compilation's track); nil for the album's.
    var artist: String?

    var side: String? {
        let letters = position.prefix { $0.isLetter }
        return letters.isEmpty ? nil : String(letters)
    }

    /// A playable track `seconds` long (nil: unknown length), titled after its position.
    static func track(_ position: String, _ seconds: Int?) -> TrackSeed {
        TrackSeed(position: position, title: "Track \(position)", durationMs: seconds.map { $0 * 1000 })
    }

    static func heading(_ title: String) -> TrackSeed {
        TrackSeed(position: "", title: title, durationMs: nil, kind: "heading")
    }
}

/// A migrated database of its own with the playback service's clock, and helpers to seed users,
/// albums with tracklists, copies and crates (through CratedTestSupport's seeding).
final class TestLibrary {
    private let temporary: TemporaryDatabase
    var database: AppDatabase { temporary.database }
    var path: String { temporary.path }
    let clock = ManualPlaybackClock()

    init() throws {
        temporary = try TemporaryDatabase()
    }

    func service() -> PlaybackService {
        PlaybackService(database: database, clock: clock)
    }

    func addUser(_ name: String) throws -> Int64 {
        try database.addUser(named: name).id!
    }

    /// An album in the catalogue with its tracks (in the order given) and optionally one image.
    func addAlbum(
        _ title: String, artist: String = "The Testers", tracks: [TrackSeed],
        image: (uri: String, uri150: String, width: Int?)? = nil
    ) throws -> Int64 {
        try database.writer.write { db in
            let artistId = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE name = ?", arguments: [artist]) ?? db.insertArtist(artist)
            let albumId = try db.insertAlbum(title: title, artistId: artistId)
            for (order, track) in tracks.enumerated() {
                try db.insertTrack(albumId: albumId, position: track.position, side: track.side, sortOrder: order,
                                   title: track.title, durationMs: track.durationMs, kind: track.kind, artistCredit: track.artist)
            }
            if let image {
                try db.insertImage(albumId: albumId, uri: image.uri, uri150: image.uri150, width: image.width)
            }
            return albumId
        }
    }

    /// One copy of the album in the user's collection; returns the copy's id.
    @discardableResult
    func addCopy(userId: Int64, albumId: Int64) throws -> Int64 {
        try database.writer.write { db in
            let copies = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection_item WHERE user_id = ? AND album_id = ?",
                                          arguments: [userId, albumId]) ?? 0
            return try db.insertCopy(userId: userId, albumId: albumId, dateAdded: "2024-01-01T00:00:00Z", copyOrdinal: copies)
        }
    }

    /// A crate holding the copies in the order given.
    func addCrate(userId: Int64, name: String, copyIds: [Int64]) throws -> Int64 {
        try database.writer.write { db in
            let crateId = try db.insertCrate(userId: userId, name: name)
            for copyId in copyIds { try db.addToCrate(crateId: crateId, itemId: copyId) }
            return crateId
        }
    }

    func historyCount(userId: Int64) throws -> Int {
        try database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM play_history WHERE user_id = ?", arguments: [userId]) ?? 0
        }
    }
}

/// A user who owns one two-sided album: A1 3:00, A2 4:00 | B1 5:00, B2 2:00.
struct OneRecord {
    let library: TestLibrary
    let service: PlaybackService
    let userId: Int64
    let albumId: Int64

    init() throws {
        library = try TestLibrary()
        service = library.service()
        userId = try library.addUser("collector")
        albumId = try library.addAlbum("Two Sides", tracks: [
            .heading("Side One"), .track("A1", 180), .track("A2", 240),
            .heading("Side Two"), .track("B1", 300), .track("B2", 120),
        ])
        try library.addCopy(userId: userId, albumId: albumId)
    }

    var clock: ManualPlaybackClock { library.clock }

    func player() async throws -> MiniPlayer {
        try await service.current(userId: userId).miniPlayer(scale: 2)
    }

    @discardableResult
    func perform(_ command: PlaybackCommand, expectedRevision: Int64? = nil) async throws -> MiniPlayer {
        try await service.perform(command, userId: userId, expectedRevision: expectedRevision).miniPlayer(scale: 2)
    }

    /// The error `command` fails with, or nil when it succeeds.
    func failure(of command: PlaybackCommand, expectedRevision: Int64? = nil) async -> PlaybackError? {
        await CratedPlaybackTests.failure {
            try await service.perform(command, userId: userId, expectedRevision: expectedRevision)
        }
    }
}

/// The error `body` fails with, or nil when it succeeds.
func failure(_ body: () async throws -> some Any) async -> PlaybackError? {
    do {
        _ = try await body()
        return nil
    } catch let error as PlaybackError {
        return error
    } catch {
        Issue.record("not a PlaybackError: \(error)")
        return nil
    }
}

extension ManualPlaybackClock {
    func advance(seconds: Int64) {
        advance(byMs: seconds * 1000)
    }
}
