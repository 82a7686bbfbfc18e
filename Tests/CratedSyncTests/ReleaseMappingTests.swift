@testable import CratedSync
import CratedCore
import CratedTestSupport
import Foundation
import Testing

/// How Discogs' values become crated's: sides, durations, dates, names, tracklists.
@Suite struct ReleaseMappingTests {
    @Test(arguments: [
        ("A1", "A"), ("B", "B"), ("C2", "C"), ("a3", "A"), ("A3a", "A"), ("A3.b", "A"), ("AA1", "AA"), ("AA", "AA"),
        ("1", nil), ("12", nil), ("1-3", nil), ("CD1-1", nil), ("Video", nil), ("", nil), ("D-1", "D"),
    ] as [(String, String?)])
    func sideOfAPosition(position: String, side: String?) {
        #expect(ReleaseMapping.side(of: position) == side)
    }

    @Test(arguments: [
        ("4:45", 285_000), ("0:59", 59_000), ("12:03", 723_000), ("1:02:03", 3_723_000), ("", nil), ("4:75", nil),
        ("4.45", nil), ("45", nil), ("a:bc", nil), (" 3:00 ", 180_000), ("1:2:3:4", nil), ("-1:00", nil), ("0:00", nil), ("0:00:00", nil),
        ("0:01", 1_000),
    ] as [(String, Int?)])
    func durations(text: String, milliseconds: Int?) {
        #expect(ReleaseMapping.durationMs(text) == milliseconds)
    }

    @Test(arguments: [
        ("1999-03-00", "1999-03"), ("1999-00-00", "1999"), ("2016-02-18", "2016-02-18"), ("2005", "2005"), ("0", nil),
        ("", nil), ("1999-13-01", "1999"), ("nonsense", nil), ("1999-03-32", "1999-03"),
    ] as [(String, String?)])
    func releasedDates(text: String, kept: String?) {
        #expect(ReleaseMapping.normalizedReleased(text) == kept)
    }

    @Test func namesAndJoins() {
        #expect(ReleaseMapping.displayName("Casey (2)") == "Casey")
        #expect(ReleaseMapping.displayName("Persuader, The") == "The Persuader")
        #expect(ReleaseMapping.displayName("Earth, Wind & Fire") == "Earth, Wind & Fire")
        #expect(ReleaseMapping.joinPhrase("&") == " & ")
        #expect(ReleaseMapping.joinPhrase(",") == ", ")
        #expect(ReleaseMapping.joinPhrase("Feat.") == " Feat. ")
        #expect(ReleaseMapping.joinPhrase("") == " ")
    }

    @Test func headingsAndIndexTracksAreKeptApart() throws {
        let json = """
            {"title": "Suite", "year": 0, "tracklist": [
              {"position": "", "type_": "heading", "title": "Side One", "duration": ""},
              {"position": "A1", "type_": "track", "title": "Opening", "duration": "3:10"},
              {"position": "A2", "type_": "index", "title": "The Suite", "duration": "12:00", "sub_tracks": [
                {"position": "A2a", "type_": "track", "title": "Part One", "duration": "6:00"},
                {"position": "", "type_": "track", "title": "Part Two", "duration": "6:00"}]},
              {"position": "B1", "title": "No type given", "duration": "2:00"}]}
            """
        let release = try JSONDecoder().decode(DiscogsRelease.self, from: Data(json.utf8))
        let metadata = ReleaseMapping.metadata(release)

        #expect(metadata.year == nil)
        #expect(metadata.tracks.map(\.kind) == [.heading, .track, .index, .track])
        #expect(metadata.tracks[0].side == nil && metadata.tracks[0].durationMs == nil)
        let index = metadata.tracks[2]
        #expect(index.side == "A" && index.durationMs == 720_000)
        #expect(index.subTracks.map(\.kind) == [.subtrack, .subtrack])
        #expect(index.subTracks.map(\.side) == ["A", "A"], "a sub-track without a position takes its index track's side")
        #expect(metadata.tracks[3].side == "B")
    }

    /// Discogs often gives an index track no position: it is on the side of its sub-tracks, which
    /// then keep their own positions' sides.
    @Test func anIndexTrackWithoutAPositionIsOnItsSubTracksSide() throws {
        let json = """
            {"title": "Suite", "tracklist": [
              {"position": "A1", "type_": "track", "title": "Opening", "duration": "3:00"},
              {"position": "", "type_": "index", "title": "The Suite", "duration": "", "sub_tracks": [
                {"position": "A2", "type_": "track", "title": "Part One", "duration": "6:00"},
                {"position": "A3", "type_": "track", "title": "Part Two", "duration": "6:00"}]},
              {"position": "B1", "type_": "track", "title": "Closing", "duration": "2:00"}]}
            """
        let metadata = ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(json.utf8)))
        #expect(metadata.tracks.map(\.side) == ["A", "A", "B"])
        #expect(metadata.tracks[1].subTracks.map(\.side) == ["A", "A"])
    }

    @Test func creditsUseNameVariationsAndSuffixlessNames() {
        let artists = ReleaseMapping.artists([
            DiscogsArtistCredit(id: 1, name: "Orion (2)", anv: "", join: "Featuring"),
            DiscogsArtistCredit(id: 2, name: "Royal (4)", anv: "Royal MC", join: "&"),
            DiscogsArtistCredit(id: 3, name: "Theory (3)", anv: nil, join: ","),
        ])
        #expect(artists.map(\.name) == ["Orion", "Royal", "Theory"])
        #expect(artists.map(\.discogsName) == ["Orion (2)", "Royal (4)", "Theory (3)"])
        #expect(artists.map(\.joinPhrase) == [" Featuring ", " & ", ""], "the last artist joins nothing")
        let metadata = ReleaseMetadata(title: "t", artists: artists, year: nil, released: nil, country: nil, masterId: nil,
                                       genres: [], styles: [], labels: [], formats: [], images: [], tracks: [])
        #expect(metadata.artistCredit == "Orion Featuring Royal MC & Theory")
    }

    /// A compilation's tracks keep their own artists, credited as on the release (name variation,
    /// suffix dropped, joins spaced); a track that repeats the album's artists or names none has no
    /// credit of its own, and a sub-track keeps its own.
    @Test func tracksKeepTheirOwnArtistsWhenTheyAreNotTheAlbums() throws {
        let json = """
            {"title": "Mixed Up", "artists": [{"id": 194, "name": "Various", "join": ""}], "tracklist": [
              {"position": "A1", "type_": "track", "title": "One", "duration": "3:00",
               "artists": [{"id": 5, "name": "Nina (3)", "anv": "", "join": "Feat."}, {"id": 6, "name": "Guest", "anv": "G.", "join": ""}]},
              {"position": "A2", "type_": "track", "title": "Two", "duration": "3:00", "artists": [{"id": 194, "name": "Various", "join": ""}]},
              {"position": "A3", "type_": "track", "title": "Three", "duration": "3:00", "artists": []},
              {"position": "A4", "type_": "track", "title": "Four", "duration": "3:00",
               "artists": [{"id": 10, "name": "Solo (2)", "join": "&"}, {"id": 9, "name": " ", "join": ""}]},
              {"position": "", "type_": "heading", "title": "Side B", "artists": [{"id": 7, "name": "Ignored"}]},
              {"position": "B", "type_": "index", "title": "Medley", "duration": "", "sub_tracks": [
                {"position": "B1", "type_": "track", "title": "Part", "duration": "2:00", "artists": [{"id": 8, "name": "Solo, The"}]}]}]}
            """
        let metadata = ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(json.utf8)))
        #expect(metadata.tracks.map(\.artistCredit) == ["Nina Feat. G.", nil, nil, "Solo", nil, nil])
        #expect(metadata.tracks[5].subTracks.map(\.artistCredit) == ["The Solo"])
        // Each credit's artists, for their rows: ids, names as shown, joins; none without a credit
        // (a nameless artist is no artist).
        #expect(metadata.tracks[0].artists.map { "\($0.discogsId ?? 0)|\($0.name)|\($0.creditedName)|\($0.joinPhrase)" }
                == ["5|Nina|Nina| Feat. ", "6|Guest|G.|"])
        #expect(metadata.tracks[1...2].map(\.artists.count) == [0, 0])
        // A nameless artist would be an artist row without a name: left out, with the join before it.
        #expect(metadata.tracks[3].artists.map { "\($0.discogsId ?? 0)|\($0.name)|\($0.joinPhrase)" } == ["10|Solo|"])
        #expect(metadata.tracks[5].subTracks.first?.artists.map(\.name) == ["The Solo"])
    }

    @Test func creditsBeyondTheArtistsKeepTheirRoleTracksAndNameVariation() throws {
        let json = """
            {"title": "Kind of Blue", "extraartists": [
              {"name": "Teo Macero", "anv": "", "role": "Producer", "tracks": "", "id": 302537},
              {"name": "Fred Plaut", "anv": "F. Plaut", "role": "Engineer [Recording]", "tracks": "A1 to A3, B2", "id": 1234},
              {"name": "Casey (2)", "anv": "", "role": " Photography By ", "id": 0},
              {"name": "Nobody", "anv": "", "role": "", "id": 7},
              {"name": " ", "role": "Mastered By", "id": 8},
              {"name": "Persuader, The", "anv": "The Persuader", "role": "Remix", "id": 9}],
             "tracklist": [
              {"position": "A1", "title": "So What", "duration": "9:22", "extraartists": [
                {"name": "Bill Evans", "anv": "", "role": "Piano", "tracks": "A1", "id": 25981}]},
              {"position": "A2", "title": "Freddie Freeloader", "duration": "9:46"},
              {"position": "B1", "type_": "index", "title": "Suite", "sub_tracks": [
                {"position": "B1a", "type_": "track", "title": "Part", "duration": "1:00", "extraartists": [
                  {"name": "Wynton Kelly", "role": "Piano", "id": 53521}]}]}]}
            """
        let metadata = ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(json.utf8)))
        func line(_ credit: ReleaseMetadata.Credit) -> String {
            "\(credit.discogsId ?? 0)|\(credit.name)|\(credit.discogsName)|\(credit.creditedName ?? "-")|\(credit.role)|\(credit.tracks ?? "-")"
        }
        // A credit without a name or a role says nothing: left out. An id of 0 is no id.
        #expect(metadata.credits.map(line) == [
            "302537|Teo Macero|Teo Macero|-|Producer|-",
            "1234|Fred Plaut|Fred Plaut|F. Plaut|Engineer [Recording]|A1 to A3, B2",
            "0|Casey|Casey (2)|-|Photography By|-",
            "9|The Persuader|Persuader, The|-|Remix|-",
        ])
        // A track's credit covers that track: what Discogs says it covers is not repeated.
        #expect(metadata.tracks[0].credits.map(line) == ["25981|Bill Evans|Bill Evans|-|Piano|-"])
        #expect(metadata.tracks[1].credits.isEmpty)
        #expect(metadata.tracks[2].subTracks[0].credits.map(\.name) == ["Wynton Kelly"])
    }

    @Test(.needsSharedFixtures)
    func realReleasesCreditTheirDesignersAndWriters() throws {
        let riddim = ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(try Paths.sharedDiscogs("go-discogs_release_8138518.json"))))
        #expect(riddim.credits.map { "\($0.role): \($0.name) (\($0.discogsId ?? 0))" } == [
            "Artwork By: Michael Gavrichkov (4540627)", "Design: Stu Allotropia (4894261)"])
        #expect(riddim.credits.allSatisfy { $0.creditedName == nil && $0.tracks == nil })
        let persuader = ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(try Paths.sharedDiscogs("joalla-discogs_client_releases_1.json"))))
        #expect(persuader.credits.map { "\($0.role): \($0.name) (\($0.discogsId ?? 0))" } == ["Music By [All Tracks By]: Jesper Dahlbäck (239)"])
        let darwinia = ReleaseMapping.metadata(try JSONDecoder().decode(DiscogsRelease.self, from: Data(try Paths.sharedDiscogs("joalla-discogs_client_releases_3329867.json"))))
        #expect(darwinia.credits.isEmpty && darwinia.tracks.allSatisfy { $0.credits.isEmpty })
    }
}
