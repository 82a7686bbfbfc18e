import CratedTestSupport
import CratedCore
@testable import CratedPlayback
import Foundation
import Testing

/// The record plays by the clock: tracks follow one another down a side, a side ends and waits to be
/// flipped, the last side ends playback, and pauses expire.
@Suite struct PlaybackStateTests {
    @Test func idleBeforeAnythingIsPlayed() async throws {
        let record = try OneRecord()
        let player = try await record.player()
        #expect(player.hasActiveTrack == false)
        #expect(player.state == .idle)
        #expect(player.track == nil)
        #expect(player.revision == 0)
    }

    @Test func playStartsAtTheFirstPlayableTrackOfSideA() async throws {
        let record = try OneRecord()
        let player = try await record.perform(.play(.album(id: record.albumId)))
        #expect(player.hasActiveTrack)
        #expect(player.state == .playing)
        #expect(player.isPlaying)
        #expect(player.track?.position == "A1")
        #expect(player.track?.title == "Track A1")
        #expect(player.album == MiniPlayer.Album(id: record.albumId, title: "Two Sides"))
        #expect(player.artist == "The Testers")
        #expect(player.side == "A")
        #expect(player.trackIndex == 1)
        #expect(player.trackCount == 2)
        #expect(player.positionMs == 0)
        #expect(player.durationMs == 180_000)
        #expect(player.upNext?.kind == .track)
        #expect(player.upNext?.trackPosition == "A2")
        #expect(player.revision == 1)
    }

    @Test func positionFollowsTheClock() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(byMs: 42_500)
        let player = try await record.player()
        #expect(player.positionMs == 42_500)
        #expect(player.revision == 1)
    }

    @Test func tracksAdvanceByTheirDurations() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 180 + 10)
        let player = try await record.player()
        #expect(player.track?.position == "A2")
        #expect(player.positionMs == 10_000)
        #expect(player.isPlaying)
        #expect(player.trackIndex == 2)
        #expect(player.upNext?.kind == .side)
        #expect(player.upNext?.trackPosition == "B1")
        // The advance is a change clients must see: a new revision.
        #expect(player.revision == 2)
    }

    @Test func theEndOfASideWaitsForAFlip() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 180 + 240 + 5)
        let player = try await record.player()
        #expect(player.needsFlip)
        #expect(player.isPlaying == false)
        #expect(player.state == .paused)
        #expect(player.hasActiveTrack)
        #expect(player.track?.position == "A2")
        #expect(player.positionMs == 240_000)
        #expect(player.upNext?.kind == .side)
        #expect(player.upNext?.side == "B")

        #expect(await record.failure(of: .resume)?.code == "needs_flip")
        #expect(await record.failure(of: .next)?.code == "needs_flip")
        #expect(await record.failure(of: .seek(positionMs: 1000))?.httpStatus == 409)
        #expect(await record.failure(of: .pause)?.code == "not_playing")
    }

    @Test func flipPlaysTheNextSideFromItsFirstTrack() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 180 + 240 + 60)
        record.clock.advance(seconds: 7)
        let player = try await record.perform(.flip)
        #expect(player.track?.position == "B1")
        #expect(player.side == "B")
        #expect(player.isPlaying)
        #expect(player.needsFlip == false)
        #expect(player.positionMs == 0)
        #expect(player.upNext?.kind == .track)
        #expect(player.upNext?.trackPosition == "B2")
    }

    @Test func flipInTheMiddleOfASideLiftsTheNeedle() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 30)
        let player = try await record.perform(.flip)
        #expect(player.track?.position == "B1")
        #expect(player.positionMs == 0)
    }

    @Test func playingOutTheLastSideEndsPlayback() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId, from: .side("b"))))
        record.clock.advance(seconds: 300 + 119)
        #expect(try await record.player().track?.position == "B2")
        #expect(try await record.player().upNext == nil)
        record.clock.advance(seconds: 1)
        let player = try await record.player()
        #expect(player.state == .idle)
        #expect(player.hasActiveTrack == false)
        #expect(player.needsFlip == false)
    }

    @Test func flipOnTheLastSideIsRefusedAndChangesNothing() async throws {
        let record = try OneRecord()
        let before = try await record.perform(.play(.album(id: record.albumId, from: .side("B"))))
        let error = await record.failure(of: .flip)
        #expect(error?.code == "last_side")
        #expect(error?.httpStatus == 409)
        #expect(error?.current?.revision == before.revision)
        #expect(try await record.player().track?.position == "B1")
    }

    @Test func nextOnTheLastTrackOfASideEndsTheSide() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        try await record.perform(.next)
        let player = try await record.perform(.next)
        #expect(player.needsFlip)
        #expect(player.track?.position == "A2")
    }

    @Test func nextOnTheLastTrackOfTheLastSideStops() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId, from: .track(id: try trackId(record, "B2")))))
        let player = try await record.perform(.next)
        #expect(player.state == .idle)
    }

    @Test func aTrackOfUnknownLengthNeverEndsByItself() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Untimed", tracks: [.track("A1", nil), .track("A2", 200)])
        try library.addCopy(userId: userId, albumId: albumId)
        try await service.perform(.play(.album(id: albumId)), userId: userId)

        let threeHoursMs: Int64 = 3 * 3600 * 1000
        library.clock.advance(byMs: threeHoursMs)
        var player = try await service.current(userId: userId).miniPlayer(scale: 1)
        #expect(player.track?.position == "A1")
        #expect(player.isPlaying)
        #expect(player.positionMs == threeHoursMs)
        #expect(player.durationMs == nil)
        #expect(player.revision == 1)

        player = try await service.perform(.next, userId: userId).miniPlayer(scale: 1)
        #expect(player.track?.position == "A2")
        #expect(player.isPlaying)
    }

    /// A user playing an album whose one track has no known length.
    private func playingATrackOfUnknownLength() async throws -> (TestLibrary, PlaybackService, userId: Int64) {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Untimed", tracks: [.track("A1", nil)])
        try library.addCopy(userId: userId, albumId: albumId)
        try await service.perform(.play(.album(id: albumId)), userId: userId)
        return (library, service, userId)
    }

    @Test func seekingAnywhereIntoATrackOfUnknownLengthIsAllowed() async throws {
        let (_, service, userId) = try await playingATrackOfUnknownLength()
        let player = try await service.perform(.seek(positionMs: 5_000_000), userId: userId).miniPlayer(scale: 1)
        #expect(player.positionMs == 5_000_000)
    }

    /// Anywhere within a day: a seek to the largest position once stored an instant whose every
    /// later read overflowed, and the daemon trapped on each start.
    @Test(arguments: [Deck.unknownLengthSeekLimitMs + 1, Int64.max])
    func aSeekIntoATrackOfUnknownLengthStopsAtADay(positionMs: Int64) async throws {
        let (library, service, userId) = try await playingATrackOfUnknownLength()

        let refusal = await failure { try await service.perform(.seek(positionMs: positionMs), userId: userId) }
        #expect(refusal?.code == "seek_past_end")
        #expect(refusal?.httpStatus == 422)
        #expect(refusal?.field == "positionMs")

        try await service.perform(.seek(positionMs: Deck.unknownLengthSeekLimitMs), userId: userId)
        library.clock.advance(seconds: 60)
        let player = try await service.current(userId: userId).miniPlayer(scale: 1)
        #expect(player.isPlaying)
        #expect(player.positionMs == Deck.unknownLengthSeekLimitMs + 60_000)
    }

    @Test func aPauseExpiresAfterThirtyMinutes() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 20)
        let paused = try await record.perform(.pause)
        #expect(paused.state == .paused)
        #expect(paused.positionMs == 20_000)

        record.clock.advance(byMs: 30 * 60 * 1000 - 1)
        var player = try await record.player()
        #expect(player.state == .paused)
        #expect(player.positionMs == 20_000)
        #expect(player.revision == paused.revision)

        record.clock.advance(byMs: 1)
        player = try await record.player()
        #expect(player.state == .idle)
        #expect(player.revision == paused.revision + 1)
    }

    @Test func aRecordWaitingToBeFlippedAlsoExpires() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        // Side A ends at 7:00; the wait expires 30 minutes later, even when first read after that.
        record.clock.advance(seconds: 420 + 30 * 60)
        let player = try await record.player()
        #expect(player.state == .idle)
    }

    @Test func resumeContinuesWhereThePauseStopped() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 100)
        try await record.perform(.pause)
        record.clock.advance(seconds: 600)
        var player = try await record.perform(.resume)
        #expect(player.positionMs == 100_000)
        #expect(player.isPlaying)
        // 80 s later A1 (3:00) has ended: the pause did not eat into the track.
        record.clock.advance(seconds: 79)
        #expect(try await record.player().track?.position == "A1")
        record.clock.advance(seconds: 1)
        player = try await record.player()
        #expect(player.track?.position == "A2")
        #expect(player.positionMs == 0)
    }

    @Test func seekStaysWithinTheTrack() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 10)

        let negative = await record.failure(of: .seek(positionMs: -1))
        #expect(negative?.code == "negative_position")
        #expect(negative?.httpStatus == 422)
        let pastEnd = await record.failure(of: .seek(positionMs: 180_001))
        #expect(pastEnd?.code == "seek_past_end")
        #expect(pastEnd?.httpStatus == 422)
        #expect(pastEnd?.field == "positionMs")

        var player = try await record.perform(.seek(positionMs: 150_000))
        #expect(player.positionMs == 150_000)
        #expect(player.isPlaying)
        record.clock.advance(seconds: 30)
        player = try await record.player()
        #expect(player.track?.position == "A2")
        #expect(player.positionMs == 0)

        // Seeking while paused moves the paused needle and stays paused.
        try await record.perform(.pause)
        player = try await record.perform(.seek(positionMs: 240_000))
        #expect(player.state == .paused)
        #expect(player.positionMs == 240_000)

        // A seek to the very end of a track answers with what follows, at one revision: no second
        // revision comes at once. A1's end starts A2; A2's, the side's last, waits for a flip.
        try await record.perform(.play(.album(id: record.albumId)))
        var revision = try await record.player().revision
        player = try await record.perform(.seek(positionMs: 180_000))
        #expect(player.track?.position == "A2" && player.positionMs == 0 && player.isPlaying)
        #expect(player.revision == revision + 1)
        #expect(try await record.player().revision == revision + 1)
        revision += 1
        player = try await record.perform(.seek(positionMs: 240_000))
        #expect(player.track?.position == "A2" && player.needsFlip && player.state == .paused)
        #expect(player.revision == revision + 1)
        #expect(try await record.player().revision == revision + 1)
    }

    @Test func previousTwoSecondsInGoesBackATrack() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 180 + 2)
        #expect(try await record.player().track?.position == "A2")
        let player = try await record.perform(.previous)
        #expect(player.track?.position == "A1")
        #expect(player.positionMs == 0)
        #expect(player.isPlaying)
    }

    @Test func previousTenSecondsInRestartsTheTrack() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 180 + 10)
        let player = try await record.perform(.previous)
        #expect(player.track?.position == "A2")
        #expect(player.positionMs == 0)
        #expect(player.isPlaying)
    }

    @Test func previousOnTheFirstTrackOfASideRestartsIt() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId, from: .side("B"))))
        record.clock.advance(seconds: 2)
        let player = try await record.perform(.previous)
        #expect(player.track?.position == "B1")
        #expect(player.positionMs == 0)
    }

    @Test func previousWhilePausedStaysPaused() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 200)
        try await record.perform(.pause)
        let player = try await record.perform(.previous)
        #expect(player.track?.position == "A2")
        #expect(player.state == .paused)
        #expect(player.positionMs == 0)
    }

    @Test func commandsThatMakeNoSenseAreRefused() async throws {
        let record = try OneRecord()
        for command: PlaybackCommand in [.pause, .resume, .next, .previous, .seek(positionMs: 0), .flip, .stop] {
            let error = await record.failure(of: command)
            #expect(error?.code == "nothing_playing", "\(command)")
            #expect(error?.httpStatus == 409)
            #expect(error?.current?.status == .idle)
        }
        try await record.perform(.play(.album(id: record.albumId)))
        #expect(await record.failure(of: .resume)?.code == "not_paused")
        try await record.perform(.pause)
        #expect(await record.failure(of: .pause)?.code == "not_playing")
        #expect(try await record.player().revision == 2)
    }

    @Test func stopEndsPlayback() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        let player = try await record.perform(.stop)
        #expect(player.state == .idle)
        #expect(player.hasActiveTrack == false)
        #expect(player.revision == 2)
    }

    @Test func playFromATrackOrASide() async throws {
        let record = try OneRecord()
        var player = try await record.perform(.play(.album(id: record.albumId, from: .track(id: try trackId(record, "A2")))))
        #expect(player.track?.position == "A2")
        player = try await record.perform(.play(.album(id: record.albumId, from: .side("B"))))
        #expect(player.track?.position == "B1")
        #expect(player.trackIndex == 1)
        #expect(player.trackCount == 2)
    }

    @Test func playRefusesWhatCannotBePlayed() async throws {
        let record = try OneRecord()
        let library = record.library
        let otherUser = try library.addUser("neighbour")
        let theirs = try library.addAlbum("Not Yours", tracks: [.track("A1", 100)])
        try library.addCopy(userId: otherUser, albumId: theirs)
        let unsynced = try library.addAlbum("No Tracklist Yet", tracks: [])
        try library.addCopy(userId: record.userId, albumId: unsynced)
        let headingsOnly = try library.addAlbum("Only Headings", tracks: [.heading("Side One")])
        try library.addCopy(userId: record.userId, albumId: headingsOnly)
        let headingId = try trackId(record, "", title: "Side One", albumId: record.albumId)
        let theirTrack = try trackId(record, "A1", albumId: theirs)

        let notOwned = await record.failure(of: .play(.album(id: theirs)))
        #expect(notOwned?.httpStatus == 404)
        #expect(notOwned?.code == "album_not_found")
        #expect(await record.failure(of: .play(.album(id: 999_999)))?.httpStatus == 404)
        #expect(await record.failure(of: .play(.album(id: unsynced)))?.code == "no_playable_tracks")
        #expect(await record.failure(of: .play(.album(id: headingsOnly)))?.httpStatus == 422)
        let noSideC = await record.failure(of: .play(.album(id: record.albumId, from: .side("C"))))
        #expect(noSideC?.code == "no_such_side")
        #expect(noSideC?.description == "album \(record.albumId) has no side 'C' with playable tracks (sides: A, B)")
        let numbered = try library.addAlbum("Numbered", tracks: [.track("1", 60), .track("2", 60)])
        try library.addCopy(userId: record.userId, albumId: numbered)
        #expect(await record.failure(of: .play(.album(id: numbered, from: .side("A"))))?.description
            == "album \(numbered) has no side 'A' with playable tracks (its tracks are numbered, not on lettered sides)")
        let heading = await record.failure(of: .play(.album(id: record.albumId, from: .track(id: headingId))))
        #expect(heading?.code == "track_not_playable")
        #expect(heading?.httpStatus == 422)
        let elsewhere = await record.failure(of: .play(.album(id: record.albumId, from: .track(id: theirTrack))))
        #expect(elsewhere?.code == "track_not_found")
        #expect(elsewhere?.httpStatus == 404)
        // Nothing was played: the state never moved.
        #expect(try await record.player().revision == 0)
    }

    @Test func aStaleExpectedRevisionIsAConflictCarryingTheCurrentState() async throws {
        let record = try OneRecord()
        let playing = try await record.perform(.play(.album(id: record.albumId)), expectedRevision: 0)
        #expect(playing.revision == 1)
        let paused = try await record.perform(.pause, expectedRevision: 1)
        #expect(paused.revision == 2)

        let error = await record.failure(of: .resume, expectedRevision: 1)
        #expect(error?.httpStatus == 409)
        #expect(error?.code == "revision_conflict")
        #expect(error?.current?.revision == 2)
        #expect(error?.current?.status == .paused)
        #expect(try await record.player().state == .paused)
    }

    @Test func aDerivedTransitionAlsoMakesAnExpectedRevisionStale() async throws {
        let record = try OneRecord()
        let playing = try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 181)
        // The client still shows A1 at revision 1; the record has moved on to A2.
        let error = await record.failure(of: .pause, expectedRevision: playing.revision)
        #expect(error?.code == "revision_conflict")
        #expect(error?.current?.miniPlayer(scale: 1).track?.position == "A2")
    }

    @Test func theStateSurvivesARestart() async throws {
        let library = try TestLibrary()
        let userId = try library.addUser("collector")
        let albumId = try library.addAlbum("Two Sides", tracks: [
            .track("A1", 180), .track("A2", 240), .track("B1", 300),
        ])
        try library.addCopy(userId: userId, albumId: albumId)
        do {
            let service = library.service()
            try await service.perform(.play(.album(id: albumId)), userId: userId)
            library.clock.advance(seconds: 30)
            try await service.perform(.seek(positionMs: 170_000), userId: userId)
        }

        // A new daemon on the same file, 20 s later: A1 ended 10 s ago.
        library.clock.advance(seconds: 20)
        let reopened = try AppDatabase.open(path: library.path)
        let service = PlaybackService(database: reopened, clock: library.clock)
        let player = try await service.current(userId: userId).miniPlayer(scale: 2)
        #expect(player.track?.position == "A2")
        #expect(player.positionMs == 10_000)
        #expect(player.isPlaying)
        #expect(player.revision == 3)
        // The new state was written back: a third service reads the same without deriving again.
        let again = try await PlaybackService(database: reopened, clock: library.clock).current(userId: userId)
        #expect(again.revision == 3)
    }

    @Test func aCrateIsAQueueOfAlbumsInCrateOrder() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let first = try library.addAlbum("First", tracks: [.track("A1", 60), .track("B1", 60)])
        let unsynced = try library.addAlbum("Unsynced", tracks: [])
        let second = try library.addAlbum("Second", tracks: [.track("A1", 90)])
        let firstCopy = try library.addCopy(userId: userId, albumId: first)
        let firstAgain = try library.addCopy(userId: userId, albumId: first)
        let unsyncedCopy = try library.addCopy(userId: userId, albumId: unsynced)
        let secondCopy = try library.addCopy(userId: userId, albumId: second)
        let crate = try library.addCrate(userId: userId, name: "Sunday",
                                         copyIds: [firstCopy, unsyncedCopy, firstAgain, secondCopy])

        var player = try await service.perform(.play(.crate(id: crate)), userId: userId).miniPlayer(scale: 2)
        #expect(player.album?.title == "First")
        #expect(player.crateId == crate)

        // Side A ends; flip to B; at the end of B the next album is up.
        library.clock.advance(seconds: 60)
        player = try await service.perform(.flip, userId: userId).miniPlayer(scale: 2)
        #expect(player.track?.position == "B1")
        #expect(player.upNext?.kind == .album)
        #expect(player.upNext?.albumTitle == "Second")
        library.clock.advance(seconds: 60)
        player = try await service.current(userId: userId).miniPlayer(scale: 2)
        #expect(player.needsFlip)
        #expect(player.upNext?.albumId == second)

        // Putting the next record on: the second copy of First and the unsynced album are skipped.
        player = try await service.perform(.flip, userId: userId).miniPlayer(scale: 2)
        #expect(player.album?.title == "Second")
        #expect(player.track?.position == "A1")
        #expect(player.isPlaying)
        #expect(player.upNext == nil)
        library.clock.advance(seconds: 90)
        #expect(try await service.current(userId: userId).status == .idle)
    }

    @Test func deletingTheCrateBeingPlayedDropsItFromThePlayerAtANewRevision() async throws {
        let library = try TestLibrary()
        let service = library.service()
        let userId = try library.addUser("collector")
        let first = try library.addAlbum("First", tracks: [.track("A1", 60)])
        let second = try library.addAlbum("Second", tracks: [.track("A1", 90)])
        let crate = try library.addCrate(userId: userId, name: "Sunday", copyIds: [
            try library.addCopy(userId: userId, albumId: first), try library.addCopy(userId: userId, albumId: second),
        ])
        let other = try library.addCrate(userId: userId, name: "Other", copyIds: [])
        let database = library.database
        let playing = try await service.perform(.play(.crate(id: crate)), userId: userId).miniPlayer(scale: 2)
        var events = try await service.events(userId: userId, lastEventId: playing.revision).makeAsyncIterator()

        // Another crate changes nothing the player shows.
        try await service.deleteCrate(other, userId: userId) { try await database.deleteCrate(id: other, userId: userId) }
        #expect(try await service.current(userId: userId).revision == playing.revision)

        try await service.deleteCrate(crate, userId: userId) { try await database.deleteCrate(id: crate, userId: userId) }
        let player = try await service.current(userId: userId).miniPlayer(scale: 2)
        #expect(player.revision == playing.revision + 1)
        #expect(player.crateId == nil)
        #expect(player.album?.title == "First")
        #expect(player.isPlaying)
        #expect(player.upNext?.albumId == second, "the queue plays on")
        let event = await events.next()
        #expect(event?.revision == playing.revision + 1)

        // The deletion's own error comes as it is, and changes nothing.
        await #expect(throws: CollectionError.self) {
            try await service.deleteCrate(crate, userId: userId) { try await database.deleteCrate(id: crate, userId: userId) }
        }
        #expect(try await service.current(userId: userId).revision == playing.revision + 1)
    }

    @Test func someoneElsesCrateIsNotFound() async throws {
        let record = try OneRecord()
        let neighbour = try record.library.addUser("neighbour")
        let copy = try record.library.addCopy(userId: neighbour, albumId: record.albumId)
        let theirCrate = try record.library.addCrate(userId: neighbour, name: "Theirs", copyIds: [copy])
        let error = await record.failure(of: .play(.crate(id: theirCrate)))
        #expect(error?.code == "crate_not_found")
        #expect(error?.httpStatus == 404)

        let emptyCrate = try record.library.addCrate(userId: record.userId, name: "Empty", copyIds: [])
        #expect(await record.failure(of: .play(.crate(id: emptyCrate)))?.code == "no_playable_tracks")
    }

    @Test func usersHaveSeparateStates() async throws {
        let record = try OneRecord()
        let neighbour = try record.library.addUser("neighbour")
        try record.library.addCopy(userId: neighbour, albumId: record.albumId)
        try await record.perform(.play(.album(id: record.albumId)))
        let theirs = try await record.service.current(userId: neighbour)
        #expect(theirs.status == .idle)
        #expect(theirs.revision == 0)
    }

    private func trackId(_ record: OneRecord, _ position: String, title: String? = nil, albumId: Int64? = nil) throws -> Int64 {
        try record.library.database.reader.read { db in
            try #require(try Int64.fetchOne(db, sql: """
                SELECT id FROM track WHERE position = ? AND (? IS NULL OR title = ?) AND (? IS NULL OR album_id = ?)
                """, arguments: [position, title, title, albumId, albumId]))
        }
    }
}
