import CratedCore
@testable import CratedPlayback
import Foundation
import Testing

/// Every change reaches every stream of its user, in revision order, and no other user's streams.
/// The time limits only stop a broken build from hanging; no assertion depends on timing.
@Suite(.timeLimit(.minutes(1))) struct PlaybackEventTests {
    @Test func twoStreamsOfAUserReceiveEveryChangeInOrderAndAnotherUserNone() async throws {
        let record = try OneRecord()
        let neighbour = try record.library.addUser("neighbour")
        try record.library.addCopy(userId: neighbour, albumId: record.albumId)
        var phone = try await record.service.events(userId: record.userId).makeAsyncIterator()
        var tablet = try await record.service.events(userId: record.userId).makeAsyncIterator()
        var neighbours = try await record.service.events(userId: neighbour).makeAsyncIterator()

        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 5)
        try await record.perform(.pause)
        try await record.perform(.resume)
        try await record.perform(.next)

        for events in [await next(5, from: &phone), await next(5, from: &tablet)] {
            #expect(events.map(\.revision) == [0, 1, 2, 3, 4])
            #expect(events.allSatisfy { $0.snapshot.userId == record.userId })
        }

        // The neighbour's stream opened with their own idle state; the next thing in it is their
        // own play, so none of the events above went to it.
        let opening = try #require(await neighbours.next())
        #expect(opening.snapshot.userId == neighbour)
        #expect(opening.snapshot.status == .idle)
        try await record.service.perform(.play(.album(id: record.albumId)), userId: neighbour)
        let theirPlay = try #require(await neighbours.next())
        #expect(theirPlay.snapshot.userId == neighbour)
        #expect(theirPlay.revision == 1)
    }

    @Test func anEventCarriesTheWholeMiniPlayerDocument() async throws {
        let record = try OneRecord()
        let stream = try await record.service.events(userId: record.userId, lastEventId: 0)
        var events = stream.makeAsyncIterator()
        let played = try await record.perform(.play(.album(id: record.albumId)))
        let event = try #require(await events.next())
        #expect(event.revision == 1)
        #expect(event.snapshot.miniPlayer(scale: 2) == played)
    }

    @Test func reconnectingWithAnOldEventIdGetsTheCurrentState() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        try await record.perform(.pause)

        var missed = try await record.service.events(userId: record.userId, lastEventId: 1).makeAsyncIterator()
        let current = try #require(await missed.next())
        #expect(current.revision == 2)
        #expect(current.snapshot.status == .paused)
    }

    @Test func reconnectingUpToDateGetsOnlyWhatComesNext() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        try await record.perform(.pause)

        var upToDate = try await record.service.events(userId: record.userId, lastEventId: 2).makeAsyncIterator()
        try await record.perform(.resume)
        let next = try #require(await upToDate.next())
        #expect(next.revision == 3)
        #expect(next.snapshot.status == .playing)
    }

    @Test func aChangeNoticedOnReadIsPublished() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        var events = try await record.service.events(userId: record.userId, lastEventId: 1).makeAsyncIterator()
        record.clock.advance(seconds: 200)
        _ = try await record.player()
        let advanced = try #require(await events.next())
        #expect(advanced.revision == 2)
        #expect(advanced.snapshot.miniPlayer(scale: 1).track?.position == "A2")
    }

    @Test func aStreamThatEndsIsUnsubscribed() async throws {
        let record = try OneRecord()
        let stream = try await record.service.events(userId: record.userId)
        _ = try await record.service.events(userId: record.userId + 1)
        #expect(record.service.subscriberCount(userId: record.userId) == 1)

        let consumer = Task {
            for await _ in stream {}
        }
        consumer.cancel()
        await consumer.value
        #expect(record.service.subscriberCount(userId: record.userId) == 0)
    }

    @Test func aStreamPastTheCapEndsTheOldestOfItsUserOnly() async throws {
        let record = try OneRecord()
        let neighbours = try await record.service.events(userId: record.userId + 1)
        var streams: [AsyncStream<PlaybackEvent>.Iterator] = []
        for _ in 0..<PlaybackService.streamsPerUser {
            streams.append(try await record.service.events(userId: record.userId).makeAsyncIterator())
        }
        #expect(record.service.subscriberCount(userId: record.userId) == PlaybackService.streamsPerUser)

        var newest = try await record.service.events(userId: record.userId).makeAsyncIterator()
        #expect(record.service.subscriberCount(userId: record.userId) == PlaybackService.streamsPerUser)
        #expect(record.service.subscriberCount(userId: record.userId + 1) == 1)
        // The oldest gives the state it opened with, then ends; the second oldest hears the play.
        #expect(await streams[0].next()?.revision == 0)
        #expect(await streams[0].next() == nil)
        try await record.perform(.play(.album(id: record.albumId)))
        #expect(await streams[1].next()?.revision == 0)
        #expect(await streams[1].next()?.revision == 1)
        #expect(await newest.next()?.revision == 0)
        #expect(await newest.next()?.revision == 1)
        _ = neighbours
    }

    @Test func aStreamThatIsDroppedIsUnsubscribed() async throws {
        let record = try OneRecord()
        do {
            let stream = try await record.service.events(userId: record.userId)
            #expect(record.service.subscriberCount(userId: record.userId) == 1)
            _ = stream
        }
        #expect(record.service.subscriberCount(userId: record.userId) == 0)
        // Publishing to nobody is fine.
        try await record.perform(.play(.album(id: record.albumId)))
    }

    @Test func theLoopPublishesChangesWhenTheyHappenAndEndsStreamsWhenCancelled() async throws {
        let record = try OneRecord()
        let service = record.service
        let loop = Task { await service.run() }
        var events = try await record.service.events(userId: record.userId).makeAsyncIterator()
        #expect(try #require(await events.next()).revision == 0)

        try await record.perform(.play(.album(id: record.albumId)))
        #expect(try #require(await events.next()).revision == 1)

        // Nobody reads the state: the loop notices A1 ending.
        record.clock.advance(seconds: 181)
        let advanced = try #require(await events.next())
        #expect(advanced.revision == 2)
        #expect(advanced.snapshot.miniPlayer(scale: 1).track?.position == "A2")

        record.clock.advance(seconds: 240)
        let sideEnd = try #require(await events.next())
        #expect(sideEnd.revision == 3)
        #expect(sideEnd.snapshot.miniPlayer(scale: 1).needsFlip)
        // The loop also wrote the play of A1 and A2 without being asked.
        #expect(try record.library.historyCount(userId: record.userId) == 2)

        record.clock.advance(seconds: 30 * 60)
        let expired = try #require(await events.next())
        #expect(expired.revision == 4)
        #expect(expired.snapshot.status == .idle)

        loop.cancel()
        await loop.value
        #expect(await events.next() == nil)
    }

    @Test func theLoopCatchesUpOnStatesLeftPlayingByTheLastRun() async throws {
        let record = try OneRecord()
        try await record.perform(.play(.album(id: record.albumId)))
        record.clock.advance(seconds: 200)

        let restarted = PlaybackService(database: try AppDatabase.open(path: record.library.path), clock: record.clock)
        var events = try await restarted.events(userId: record.userId, lastEventId: 1).makeAsyncIterator()
        let loop = Task { await restarted.run() }
        // Opening the stream settled the state already: A2 at revision 2, sent as the catch-up.
        let caughtUp = try #require(await events.next())
        #expect(caughtUp.revision == 2)
        record.clock.advance(seconds: 240)
        let sideEnd = try #require(await events.next())
        #expect(sideEnd.revision == 3)
        #expect(sideEnd.snapshot.miniPlayer(scale: 1).needsFlip)
        loop.cancel()
        await loop.value
    }

    private func next(_ count: Int, from events: inout AsyncStream<PlaybackEvent>.Iterator) async -> [PlaybackEvent] {
        var received: [PlaybackEvent] = []
        while received.count < count, let event = await events.next() {
            received.append(event)
        }
        return received
    }
}
