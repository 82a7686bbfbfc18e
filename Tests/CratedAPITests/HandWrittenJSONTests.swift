@testable import CratedAPI
@testable import CratedCore
import CratedTestSupport
import CratedJSON
import Foundation
import GRDB
import Testing

/// Album pages and copies write their JSON by hand (`JSONWritable`); it must be, byte for byte,
/// what their `Encodable` conformance gives.
@Suite struct HandWrittenJSONTests {
    private func expectSameJSON(_ value: some JSONWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let encoder = StreamingJSONEncoder()
        let handWritten = String(decoding: try encoder.encode(value), as: UTF8.self)
        let throughCodable = String(decoding: try encoder.encodeThroughCodable(value), as: UTF8.self)
        #expect(handWritten == throughCodable, sourceLocation: sourceLocation)
    }

    @Test func everyAlbumPageOfTheSampleCollectionMatchesItsCodableEncoding() throws {
        let server = try TestServer()
        let owners = try server.database.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT DISTINCT album_id, user_id FROM collection_item").map { ($0[0] as Int64, $0[1] as Int64) }
        }
        #expect(owners.count > 10)
        for (albumId, userId) in owners {
            let bundle = try #require(try server.database.albumBundle(albumId: albumId, userId: userId))
            try expectSameJSON(AlbumDetailDTO(bundle, artworkPixels: 640))
            for (copy, crates) in bundle.copies { try expectSameJSON(CopyDTO(copy, crates: crates)) }
        }
    }

    @Test func everyKindOfFieldMatchesItsCodableEncoding() throws {
        let server = try TestServer()
        let albumId = try server.albumId(release: 1)
        let userId = try server.database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'collector'")! }
        var page = AlbumDetailDTO(try #require(try server.database.albumBundle(albumId: albumId, userId: userId)), artworkPixels: 640)
        page.title = "Quote \" back \\ line\n tab\t \u{1} Déjà 🎵 /"
        page.year = nil
        page.discogsMasterId = 5460
        page.artists = [.init(id: 1, name: "Miles Davis", discogsId: 23755, joinPhrase: " & "), .init(id: 2, name: "Gil", discogsId: nil, joinPhrase: "")]
        page.labels = [.init(name: "Columbia", catalogNumber: "CL 1355"), .init(name: "None", catalogNumber: nil)]
        page.formats = [.init(name: "Vinyl", quantity: 2, descriptions: ["LP", "Album", "Mono"], text: "180g"),
                        .init(name: "CD", quantity: 1, descriptions: [], text: nil)]
        page.genres = ["Jazz"]
        page.styles = []
        page.images = [.init(uri: "https://i.discogs.com/a.jpg", uri150: "https://i.discogs.com/a-150.jpg", width: 600, height: nil, primary: true)]
        page.credits = [.init(name: "Rudy Van Gelder", creditedAs: "Van Gelder", role: "Recorded By", tracks: "A1 to A3", discogsId: 265788, artistId: 7),
                        .init(name: "Teo \"Mac\" Macero", creditedAs: nil, role: "Producer [Supervision]", tracks: nil, discogsId: nil, artistId: nil)]
        page.sides = [
            .init(side: "A", tracks: [.init(id: 1, position: "", title: "Heading", durationMs: nil, kind: "heading", parentId: nil),
                                      .init(id: 4, position: "A0", title: "Intro", durationMs: 1_000, kind: "track", parentId: nil,
                                            credits: [.init(name: "Bill Evans", creditedAs: nil, role: "Piano", tracks: nil, discogsId: 25981, artistId: nil)]),
                                      .init(id: 2, position: "A1", title: "So What", durationMs: 562_000, kind: "track", parentId: nil)],
                  durationMs: 562_000),
            .init(side: nil, tracks: [.init(id: 3, position: "1a", title: "Part", durationMs: nil, kind: "subtrack", parentId: 2)], durationMs: nil),
        ]
        page.playCount = 3
        page.lastPlayedAt = "2026-11-23T06:00:00Z"
        var copy = page.copies[0]
        copy.customFields = ["Condition note": "tiny \"scuff\"", "Shelf": "B3", "": "empty name"]
        copy.notes = "line one\nline two"
        copy.crates = [.init(id: 9, name: "Sunday \\ night")]
        page.copies = [copy, copy]
        try expectSameJSON(page)
        try expectSameJSON(copy)
        page.copies = []
        page.sides = []
        try expectSameJSON(page)
    }
}
