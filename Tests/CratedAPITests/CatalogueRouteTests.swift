@testable import CratedAPI
import CratedTestSupport
import CratedCore
import CratedGrid
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct CatalogueRouteTests {
    /// An index track stored without a side (as sync stored one with no position) joins its
    /// sub-tracks' side instead of splitting it; a side's duration takes an index track's own when
    /// its sub-tracks have none, the usual Discogs shape.
    @Test func indexTracksKeepTheirSideWholeAndTimed() {
        func track(_ id: Int64, _ position: String, _ side: String?, _ kind: Track.Kind, _ seconds: Int?, parent: Int64? = nil) -> Track {
            Track(id: id, albumId: 1, parentId: parent, position: position, side: side, sortOrder: Int(id), title: "t\(id)",
                  durationMs: seconds.map { $0 * 1000 }, kind: kind)
        }
        let split = AlbumDetailDTO.sides([
            track(1, "A1", "A", .track, 180), track(2, "", nil, .index, nil),
            track(3, "A2", "A", .subtrack, 300, parent: 2), track(4, "A3", "A", .subtrack, 240, parent: 2), track(5, "B1", "B", .track, 200),
        ])
        #expect(split.map(\.side) == ["A", "B"])
        #expect(split[0].tracks.map(\.id) == [1, 2, 3, 4])
        #expect(split[0].durationMs == 720_000)

        let timedIndex = AlbumDetailDTO.sides([
            track(1, "A", "A", .index, 1424), track(2, "A.a", "A", .subtrack, nil, parent: 1), track(3, "A.b", "A", .subtrack, nil, parent: 1),
            track(4, "B", "B", .index, nil), track(5, "B.a", "B", .subtrack, 600, parent: 4), track(6, "B.b", "B", .subtrack, nil, parent: 4),
        ])
        #expect(timedIndex.map(\.durationMs) == [1_424_000, nil])
    }

    @Test func albumDetailShowsTheUsersCopiesAndTheirCrates() async throws {
        let server = try TestServer()
        let kindOfBlue = try server.albumId(release: 1)
        try await server.test { client in
            let album = try await client.decoded(AlbumDetailDTO.self, "/v1/albums/\(kindOfBlue)", token: server.writeToken)
            #expect(album.title == "Kind Of Blue")
            #expect(album.year == 1959)
            // Alice's copy of the same release is hers alone.
            #expect(album.copies.count == 2)
            #expect(album.copies.map(\.rating) == [5, 4])
            #expect(album.copies.first?.crates.map(\.name) == ["Jazz"])
            #expect(album.copies.first?.customFields == ["Purchased At": "Rough Trade East"])
            #expect(album.labels.first?.catalogNumber == "CL 1355")
            #expect(album.formats.first?.name == "Vinyl")
            #expect(album.formats.first?.descriptions == ["LP", "Album", "Mono"])
        }
    }

    @Test func someoneElsesOrMissingAlbumIs404AndABadIdIs400() async throws {
        let server = try TestServer()
        let alicesOnly = try server.albumId(release: 777001)
        try await server.test { client in
            #expect(try await client.call(.get, "/v1/albums/\(alicesOnly)", token: server.writeToken).status == .notFound)
            #expect(try await client.call(.get, "/v1/albums/\(alicesOnly)", token: server.aliceToken).status == .ok)
            #expect(try await client.call(.get, "/v1/albums/999999", token: server.writeToken).status == .notFound)
            for bad in ["abc", "-1", "0", "99999999999999999999999", "1.5", "%FF", "+1", "01", "%201"] {
                let response = try await client.call(.get, "/v1/albums/\(bad)", token: server.writeToken)
                #expect(response.status == .badRequest, "id \(bad)")
                #expect(response.error?.field == "id")
            }
        }
    }

    @Test func tracksAreGroupedBySide() async throws {
        let server = try TestServer()
        let albumId = try server.albumId(release: 1)
        try await server.database.writer.write { db in
            for (order, (position, side, title, duration)) in [("", nil, "Side One", nil), ("A1", "A", "So What", 562_000), ("A2", "A", "Freddie Freeloader", 586_000),
                                                              ("B1", "B", "Blue In Green", 337_000), ("B2", "B", "Flamenco Sketches", nil)].enumerated() {
                var track = Track(id: nil, albumId: albumId, parentId: nil, position: position, side: side, sortOrder: order, title: title,
                                  durationMs: duration, kind: position.isEmpty ? .heading : .track,
                                  artistCredit: position == "B1" ? "Bill Evans Trio" : nil)
                try track.insert(db)
            }
        }
        try await server.test { client in
            let response = try await client.call(.get, "/v1/albums/\(albumId)", token: server.writeToken)
            let sides = try response.decode(AlbumDetailDTO.self).sides
            #expect(sides.map(\.side) == ["A", "B"])
            #expect(sides[0].tracks.map(\.title) == ["Side One", "So What", "Freddie Freeloader"])
            #expect(sides[0].durationMs == 1_148_000)
            // One track of side B has no duration, so the side's is unknown, and left out.
            #expect(sides[1].durationMs == nil)
            #expect(!String(decoding: response.body, as: UTF8.self).contains(#""durationMs":null"#))
            // A track's own artists are given where they are not the album's, and left out elsewhere.
            #expect(sides[1].tracks.map(\.artist) == ["Bill Evans Trio", nil])
            #expect(!String(decoding: response.body, as: UTF8.self).contains(#""artist":null"#))
        }
    }

    @Test func artistPagesAndDiscover() async throws {
        let server = try TestServer()
        let (milesId, albumId) = try await server.database.writer.write { db -> (Int64, Int64) in
            let artist = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE discogs_name = 'Miles Davis'")!
            let album = try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE discogs_release_id = 1")!
            try db.execute(sql: "INSERT INTO album_genre (album_id, kind, name, position) VALUES (?, 'genre', 'Jazz', 0), (?, 'style', 'Modal', 0)", arguments: [album, album])
            return (artist, album)
        }
        try await server.test { client in
            let artist = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(milesId)", token: server.writeToken)
            #expect(artist.name == "Miles Davis")
            #expect(artist.albums.map(\.id) == [albumId])
            #expect(artist.albums.first?.copies == 2)

            let genres = try await client.decoded(GenresDTO.self, "/v1/genres", token: server.writeToken)
            #expect(genres.genres.map(\.name) == ["Jazz"])
            #expect(genres.styles.first?.count == 1)

            let jazz = try await client.decoded(GenreArtistsDTO.self, "/v1/genres/Jazz/artists", token: server.writeToken)
            #expect(jazz.artists.map(\.name) == ["Miles Davis"])
            // Named as the albums name it, whatever the case it was asked in.
            #expect(try await client.decoded(GenreArtistsDTO.self, "/v1/genres/jAZZ/artists", token: server.writeToken).name == "Jazz")
            #expect(try await client.call(.get, "/v1/styles/Modal/artists", token: server.writeToken).status == .ok)
            let polka = try await client.call(.get, "/v1/genres/Polka/artists", token: server.writeToken)
            #expect(polka.status == .notFound && polka.error?.field == "name")
            // Alice owns Kind Of Blue too, but has no genre data of her own: Discover follows her copies.
            #expect(try await client.call(.get, "/v1/genres/Jazz/artists", token: server.aliceToken).status == .ok)
            #expect(try await client.call(.get, "/v1/artists/\(milesId)", token: server.aliceToken).status == .ok)
        }
    }

    /// An artist id an app kept from before a sync replaced a CSV credit answers with the artist
    /// that took its place: its page, and grids by it or filtered by it.
    @Test func aReplacedArtistsIdLeadsToItsSuccessor() async throws {
        let server = try TestServer()
        let miles = try await server.database.writer.write { db in
            let miles = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE discogs_name = 'Miles Davis'")!
            try db.execute(sql: "INSERT INTO artist_successor (artist_id, successor_id) VALUES (999001, ?)", arguments: [miles])
            return miles
        }
        try await server.test { client in
            let page = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/999001", token: server.readToken)
            #expect(page.id == miles && page.name == "Miles Davis")
            let byId = try await client.call(.get, "/v1/grid/artists/\(miles)", token: server.readToken)
            let byOldId = try await client.call(.get, "/v1/grid/artists/999001", token: server.readToken)
            #expect(byOldId.status == .ok && byOldId.body == byId.body)
            let filtered = try await client.call(.get, "/v1/grid/collection?artist=999001", token: server.readToken)
            let filteredByNewId = try await client.call(.get, "/v1/grid/collection?artist=\(miles)", token: server.readToken)
            #expect(filtered.status == .ok && filtered.body == filteredByNewId.body)
            #expect(try await client.call(.get, "/v1/artists/999002", token: server.readToken).status == .notFound)
        }
    }

    /// Compilations credit Discogs' `Various`, no one to browse: Discover's artists leave it out,
    /// and a genre of compilations alone answers an empty list, not 404.
    @Test func discoverLeavesOutVariousArtists() async throws {
        let server = try TestServer()
        try await server.database.writer.write { db in
            let collector = try Int64.fetchOne(db, sql: "SELECT id FROM user WHERE name = 'collector'")!
            // Known by name as a CSV credit (the sample's compilation credits it), by id once synced.
            let various = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE name = 'Various'")!
            let unknown = try db.insertArtist("Unknown Artist (2)")
            try db.execute(sql: "UPDATE artist SET discogs_id = 355 WHERE id = ?", arguments: [unknown])
            let miles = try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE discogs_name = 'Miles Davis'")!
            for (title, artist, genre) in [("Jazz Classics", various, "Jazz"), ("Warehouse Tapes", unknown, "Electronic"), ("Kind Of Jazz", miles, "Jazz")] {
                let album = try db.insertAlbum(title: title, artistId: artist, genres: [genre])
                _ = try db.insertCopy(userId: collector, albumId: album, dateAdded: "2024-01-01T00:00:00Z")
            }
        }
        try await server.test { client in
            let jazz = try await client.decoded(GenreArtistsDTO.self, "/v1/genres/Jazz/artists", token: server.writeToken)
            #expect(jazz.artists.map(\.name) == ["Miles Davis"])
            let electronic = try await client.call(.get, "/v1/genres/Electronic/artists", token: server.writeToken)
            #expect(electronic.status == .ok)
            #expect(try electronic.decode(GenreArtistsDTO.self).artists.isEmpty)
            // Their albums stay in the genre's grid.
            let grid = try await client.call(.get, "/v1/grid/genres/Electronic", token: server.writeToken)
            #expect(grid.status == .ok && String(decoding: grid.body, as: UTF8.self).contains("Warehouse Tapes"))
        }
    }

    /// Synced with artists of its own on its tracks, an album is on those artists' pages as one they
    /// appear on, and its tracks name them with their ids; an artist's own album is not listed twice.
    @Test func anArtistsPageListsTheAlbumsTheyAppearOn() async throws {
        let server = try TestServer()
        let compilation = try server.albumId(release: 3329867)
        let miles = try await server.database.reader.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE discogs_name = 'Miles Davis'")!
        }
        func artist(_ id: Int64, _ name: String, join: String = "") -> ReleaseMetadata.Artist {
            ReleaseMetadata.Artist(discogsId: id, discogsName: name, name: name, creditedName: name, joinPhrase: join)
        }
        let tracks = [
            ReleaseMetadata.Track(position: "A1", side: "A", title: "Feeling Good", durationMs: 173_000, kind: .track,
                                  artistCredit: "Nina Simone", artists: [artist(31, "Nina Simone")]),
            ReleaseMetadata.Track(position: "A2", side: "A", title: "So What", durationMs: 562_000, kind: .track,
                                  artistCredit: "Miles Davis & Nina Simone",
                                  artists: [artist(23755, "Miles Davis", join: " & "), artist(31, "Nina Simone")]),
            ReleaseMetadata.Track(position: "B1", side: "B", title: "Untitled", durationMs: nil, kind: .track),
            ReleaseMetadata.Track(position: "B2", side: "B", title: "Lost", durationMs: nil, kind: .track, artistCredit: "Mystery Guest",
                                  artists: [ReleaseMetadata.Artist(discogsId: nil, discogsName: "Mystery Guest", name: "Mystery Guest",
                                                                   creditedName: "Mystery Guest", joinPhrase: "")]),
        ]
        let release = ReleaseMetadata(title: "Soul Sides", artists: [artist(194, "Various")], year: 1999, released: nil, country: nil,
                                      masterId: nil, genres: [], styles: [], labels: [], formats: [], images: [], tracks: tracks)
        let errors = try await server.database.recordSyncResults([AlbumSyncResult(albumId: compilation, outcome: .fetched(release, etag: nil))], at: Date())
        #expect(errors.allSatisfy { $0 == nil })
        let nina = try await server.database.reader.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE discogs_id = 31")! }

        try await server.test { client in
            let album = try await client.decoded(AlbumDetailDTO.self, "/v1/albums/\(compilation)", token: server.writeToken)
            let credits = album.sides.flatMap(\.tracks).map { $0.artists?.map { "\($0.id)|\($0.name)|\($0.joinPhrase)" } }
            #expect(credits.prefix(3) == [["\(nina)|Nina Simone|"], ["\(miles)|Miles Davis| & ", "\(nina)|Nina Simone|"], nil])
            #expect(credits.last??.first?.hasSuffix("|Mystery Guest|") == true)
            // An error's answer is the user's too: private, as the others are.
            let missing = try await client.call(.get, "/v1/albums/999999", token: server.writeToken)
            #expect(missing.status == .notFound && missing.headers[.cacheControl] == "private, no-cache")

            let ninasPage = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(nina)", token: server.writeToken)
            #expect(ninasPage.albums.isEmpty)
            #expect(ninasPage.appearsOn.map(\.id) == [compilation])
            #expect(ninasPage.appearsOn.first?.artistCredit == "Various")
            // Her grid of albums is empty, not missing: she is in this collection.
            let ninasGrid = try await client.call(.get, "/v1/grid/artists/\(nina)?layout=iPhonePortrait", token: server.writeToken)
            #expect(ninasGrid.status == .ok)
            #expect(try ninasGrid.decode(GridPage.self).total == 0)
            #expect(try await client.call(.get, "/v1/grid/artists/\(nina)?layout=iPhonePortrait", token: server.aliceToken).status == .notFound)
            // The albums she appears on are a grid of their own, as her page lists them.
            let ninasAppearances = try await client.decoded(GridPage.self, "/v1/grid/artists/\(nina)?layout=iPhonePortrait&role=appearsOn",
                                                            token: server.writeToken)
            #expect(ninasAppearances.items.map(\.albumId) == [compilation])
            #expect(try await client.decoded(GridPage.self, "/v1/grid/artists/\(nina)?layout=iPhonePortrait&role=credited",
                                             token: server.writeToken).total == 0)
            let badRole = try await client.call(.get, "/v1/grid/artists/\(nina)?role=guest", token: server.writeToken)
            #expect(badRole.status == .badRequest && badRole.error?.field == "role")
            // Miles Davis (the CSV's artist row, which gained its Discogs id) has his own album, and
            // appears on the compilation.
            let milesPage = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(miles)", token: server.writeToken)
            #expect(milesPage.albums.map(\.title) == ["Kind Of Blue"])
            #expect(milesPage.appearsOn.map(\.id) == [compilation])
            #expect(milesPage.discogsId == 23755)
            // Each album in one of his lists only: his own grid has not the compilation, his appearances not his own.
            for (role, albums) in [("albums", milesPage.albums.map(\.id)), ("appearsOn", [compilation])] {
                let grid = try await client.decoded(GridPage.self, "/v1/grid/artists/\(miles)?layout=iPhonePortrait&role=\(role)", token: server.writeToken)
                #expect(grid.items.map(\.albumId) == albums, "\(role)")
            }
            // Alice owns Kind Of Blue but not the compilation: Nina Simone is nobody to her.
            #expect(try await client.call(.get, "/v1/artists/\(nina)", token: server.aliceToken).status == .notFound)
            #expect(try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(miles)", token: server.aliceToken).appearsOn.isEmpty)

            // Played, then its last copy removed: the album's page still links to Nina Simone, whose
            // page answers (with nothing the user owns).
            #expect(try await client.call(.post, "/v1/player/play", token: server.writeToken, json: "{\"albumId\": \(compilation)}").status == .ok)
            let copy = try #require(album.copies.first).id
            #expect(try await client.call(.delete, "/v1/copies/\(copy)", token: server.writeToken).status == .noContent)
            let played = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(nina)", token: server.writeToken)
            #expect(played.albums.isEmpty && played.appearsOn.isEmpty)
        }

        // Synced again without Nina Simone: her track rows go with the old tracks.
        let resynced = ReleaseMetadata(title: "Soul Sides", artists: [artist(194, "Various")], year: 1999, released: nil, country: nil,
                                       masterId: nil, genres: [], styles: [], labels: [], formats: [], images: [], tracks: [tracks[2]])
        _ = try await server.database.recordSyncResults([AlbumSyncResult(albumId: compilation, outcome: .fetched(resynced, etag: nil))], at: Date())
        #expect(try await server.database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM track_artist") } == 0)
        #expect(try server.database.artistAlbums(artistId: nina, userId: 1) == nil)
        // An artist known by name only, whom no album or track names any more, is gone.
        #expect(try await server.database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM artist WHERE discogs_name = 'Mystery Guest'")
        } == 0)
    }

    /// Credits beyond the artists: the album page lists them, a track carries its own, a credited
    /// person crated knows as an artist links to their page, and that page lists the album.
    @Test func creditsAreShownAndLinkToTheArtistsCratedKnows() async throws {
        let server = try TestServer()
        let kindOfBlue = try server.albumId(release: 1)
        let compilation = try server.albumId(release: 3329867)
        let miles = try await server.database.reader.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM artist WHERE discogs_name = 'Miles Davis'")!
        }
        func credit(_ id: Int64?, _ name: String, _ role: String, credited: String? = nil, tracks: String? = nil) -> ReleaseMetadata.Credit {
            ReleaseMetadata.Credit(discogsId: id, discogsName: name, name: name, creditedName: credited, role: role, tracks: tracks)
        }
        let various = ReleaseMetadata.Artist(discogsId: 194, discogsName: "Various", name: "Various", creditedName: "Various", joinPhrase: "")
        func release(credits: [ReleaseMetadata.Credit], trackCredits: [ReleaseMetadata.Credit]) -> ReleaseMetadata {
            ReleaseMetadata(title: "Soul Sides", artists: [various], year: 1999, released: nil, country: nil, masterId: nil, genres: [], styles: [],
                            labels: [], formats: [], images: [],
                            tracks: [ReleaseMetadata.Track(position: "A1", side: "A", title: "Feeling Good", durationMs: 173_000, kind: .track,
                                                           credits: trackCredits),
                                     ReleaseMetadata.Track(position: "A2", side: "A", title: "So What", durationMs: 562_000, kind: .track),
                                     ReleaseMetadata.Track(position: "B1", side: "B", title: "Suite", durationMs: nil, kind: .index, subTracks: [
                                        ReleaseMetadata.Track(position: "B1a", side: "B", title: "Part", durationMs: 60_000, kind: .subtrack,
                                                              credits: trackCredits.isEmpty ? [] : [credit(nil, "Sub Player", "Guitar")])])],
                            credits: credits)
        }
        // Miles Davis is an artist here (Kind Of Blue's CSV row gains his Discogs id when Kind Of Blue
        // syncs); Teo Macero is one too, with no album of his own (as if another collection's had synced).
        let teo = try await server.database.writer.write { db in
            try db.execute(sql: "UPDATE artist SET discogs_id = 23755 WHERE id = ?", arguments: [miles])
            try db.execute(sql: "INSERT INTO artist (name, discogs_name, discogs_id, sort_name) VALUES ('Teo Macero', 'Teo Macero', 302537, 'teo macero')")
            return db.lastInsertedRowID
        }
        let first = release(credits: [credit(23755, "Miles Davis", "Liner Notes", credited: "Miles", tracks: "A1, A2"),
                                      credit(302537, "Teo Macero", "Producer"), credit(nil, "Unknown Engineer", "Engineer")],
                            trackCredits: [credit(25981, "Bill Evans", "Piano"), credit(23755, "Miles Davis", "Trumpet"),
                                           credit(23755, "Miles Davis", "Liner Notes")])
        #expect(try await server.database.recordSyncResults([AlbumSyncResult(albumId: compilation, outcome: .fetched(first, etag: nil))], at: Date())
                    .allSatisfy { $0 == nil })

        try await server.test { client in
            let response = try await client.call(.get, "/v1/albums/\(compilation)", token: server.writeToken)
            let album = try response.decode(AlbumDetailDTO.self)
            #expect(album.credits.map { "\($0.role)|\($0.name)|\($0.creditedAs ?? "-")|\($0.tracks ?? "-")|\($0.discogsId ?? 0)|\($0.artistId ?? 0)" } == [
                "Liner Notes|Miles Davis|Miles|A1, A2|23755|\(miles)",
                "Producer|Teo Macero|-|-|302537|\(teo)",
                "Engineer|Unknown Engineer|-|-|0|0",
            ])
            let tracks = album.sides.flatMap(\.tracks)
            // A sub-track's credits are its own too.
            #expect(tracks.map { $0.credits?.map { "\($0.role)|\($0.name)" } }
                        == [["Piano|Bill Evans", "Trumpet|Miles Davis", "Liner Notes|Miles Davis"], nil, nil, ["Guitar|Sub Player"]])
            // Absent keys are left out, not null: a track without credits has no `credits` key.
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(body.contains(#""credits":[{"name":"Miles Davis","creditedAs":"Miles","role":"Liner Notes","tracks":"A1, A2","discogsId":23755,"artistId":\#(miles)}"#))
            #expect(body.contains(#""credits":[{"name":"Bill Evans","role":"Piano","discogsId":25981},{"name":"Miles Davis","role":"Trumpet","discogsId":23755,"artistId":\#(miles)},"#))

            // His page lists the compilation among the albums that credit him, apart from his own.
            let milesPage = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(miles)", token: server.writeToken)
            #expect(milesPage.albums.map(\.id) == [kindOfBlue])
            #expect(milesPage.appearsOn.isEmpty)
            #expect(milesPage.creditedOn.map(\.album.id) == [compilation])
            // Each role once, in credit order: the release's, then the track's.
            #expect(milesPage.creditedOn.first?.roles == ["Liner Notes", "Trumpet"])
            // Alice does not own the compilation: it is not on his page for her.
            #expect(try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(miles)", token: server.aliceToken).creditedOn.isEmpty)
            // Someone known only from credits has a page, and an empty grid of albums of their own;
            // to Alice, who owns no album that credits him, he is nobody.
            let teosPage = try await client.decoded(ArtistDetailDTO.self, "/v1/artists/\(teo)", token: server.writeToken)
            #expect(teosPage.albums.isEmpty && teosPage.appearsOn.isEmpty && teosPage.creditedOn.map(\.album.id) == [compilation])
            #expect(teosPage.creditedOn.first?.roles == ["Producer"])
            // The albums that credit them are a grid of their own, as their page lists them.
            let teosCredits = try await client.decoded(GridPage.self, "/v1/grid/artists/\(teo)?layout=iPhonePortrait&role=credited", token: server.writeToken)
            #expect(teosCredits.items.map(\.albumId) == [compilation])
            let milesCredits = try await client.decoded(GridPage.self, "/v1/grid/artists/\(miles)?layout=iPhonePortrait&role=credited", token: server.writeToken)
            #expect(milesCredits.items.map(\.albumId) == milesPage.creditedOn.map(\.album.id))
            let teosGrid = try await client.call(.get, "/v1/grid/artists/\(teo)?layout=iPhonePortrait", token: server.writeToken)
            #expect(teosGrid.status == .ok)
            #expect(try teosGrid.decode(GridPage.self).total == 0)
            #expect(try await client.call(.get, "/v1/grid/collection?layout=iPhonePortrait&artist=\(teo)", token: server.writeToken).status == .ok)
            #expect(try await client.call(.get, "/v1/artists/\(teo)", token: server.aliceToken).status == .notFound)
            #expect(try await client.call(.get, "/v1/grid/artists/\(teo)?layout=iPhonePortrait", token: server.aliceToken).status == .notFound)
            // An album without credits answers an empty list.
            #expect(try await client.decoded(AlbumDetailDTO.self, "/v1/albums/\(kindOfBlue)", token: server.writeToken).credits.isEmpty)

            // Search finds an album by the people it credits, as shown and as printed, after the
            // albums that have the name in their title or artists.
            for text in ["macero", "unknown engineer", "bill evans"] {
                #expect(try await client.decoded(SearchResultsDTO.self, "/v1/search?q=\(text.replacingOccurrences(of: " ", with: "%20"))",
                                                 token: server.writeToken).albums.map(\.id) == [compilation], "\(text)")
            }
            let davis = try await client.decoded(SearchResultsDTO.self, "/v1/search?q=miles%20davis", token: server.writeToken).albums.map(\.id)
            #expect(davis.first == kindOfBlue && davis.contains(compilation), "\(davis)")
        }

        // Synced again: the credits are the new release's, none twice; the track's went with the old tracks.
        let second = release(credits: [credit(302537, "Teo Macero", "Producer")], trackCredits: [])
        #expect(try await server.database.recordSyncResults([AlbumSyncResult(albumId: compilation, outcome: .fetched(second, etag: nil))], at: Date())
                    .allSatisfy { $0 == nil })
        let rows = try await server.database.reader.read { db in
            try String.fetchAll(db, sql: "SELECT role || '|' || name || '|' || (track_id IS NULL) FROM album_credit WHERE album_id = ? ORDER BY position",
                                arguments: [compilation])
        }
        #expect(rows == ["Producer|Teo Macero|1"])
        #expect(try server.database.searchAlbums(userId: 1, text: "unknown engineer", limit: 5).isEmpty)
        #expect(try server.database.searchAlbums(userId: 1, text: "macero", limit: 5).map(\.albumId) == [compilation])
        #expect(try server.database.artistAlbums(artistId: miles, userId: 1)?.creditedOn.isEmpty == true)
        #expect(try await server.database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album_credit WHERE track_id IS NOT NULL") } == 0)
    }

    @Test func searchIsRankedPrefixMatchingAndFoldsDiacritics() async throws {
        let server = try TestServer()
        try await server.test { client in
            let titles = { @Sendable (query: String, token: String?) async throws -> [String] in
                try await client.decoded(SearchResultsDTO.self, "/v1/search?q=\(query)", token: token ?? server.writeToken).albums.map(\.title)
            }
            let result1 = try await titles("deja%20vu", nil)
            #expect(result1 == ["Déjà Vu"])
            let result2 = try await titles("D%C3%A9j%C3%A0", nil)
            #expect(result2 == ["Déjà Vu"])
            let result3 = try await titles("coltr", nil)
            #expect(result3 == ["A Love Supreme"])
            let result4 = try await titles("bjork", nil)
            #expect(result4 == ["Homogenic"])
            let result5 = try await titles("SD%201361", nil)
            #expect(result5 == ["Déjà Vu"])
            let result6 = try await titles("Soul%20Jazz", nil)
            #expect(result6 == ["Studio One Rockers"])
            // "blue" is in a title (Kind Of Blue) and in a label (Blue Note, on Moanin'): the title ranks first.
            let result7 = try await titles("blue", nil)
            #expect(result7.first == "Kind Of Blue")
            // Alice sees her albums only.
            let result8 = try await titles("alice", nil)
            #expect(result8 == [])
            let result9 = try await titles("alice", server.aliceToken)
            #expect(result9 == ["Only Alice Has This"])
        }
    }

    /// Results are kept until the catalogue or the collection changes: a renamed album is found by its
    /// new title at once and no longer by its old one, and a new copy or cover shows in the next answer.
    @Test func searchFollowsTheCatalogueAndCollectionAfterResultsWereKept() async throws {
        let server = try TestServer()
        try await server.test { client in
            let titles = { @Sendable (query: String) async throws -> [String] in
                try await client.decoded(SearchResultsDTO.self, "/v1/search?q=\(query)", token: server.writeToken).albums.map(\.title)
            }
            let first = try await titles("supreme")
            #expect(first == ["A Love Supreme"])
            let again = try await titles("supreme")
            #expect(again == first)
            let albumId = try await server.database.reader.read { db in
                try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE title = 'A Love Supreme'")!
            }
            try await server.database.writer.write { db in
                try db.execute(sql: "UPDATE album SET title = 'A Love Eternal' WHERE id = ?", arguments: [albumId])
                try SearchIndex.refresh(db, albumIds: [albumId])
            }
            let old = try await titles("supreme")
            #expect(old == [])
            let renamed = try await titles("eternal")
            #expect(renamed == ["A Love Eternal"])
            // A change the search index alone sees (no trigger fires on a new label): the empty answer
            // kept for "fantasy" is not kept once the index has the label.
            let none = try await titles("fantasy")
            #expect(none == [])
            try await server.database.writer.write { db in
                try db.execute(sql: "INSERT INTO album_label (album_id, position, name) VALUES (?, 9, 'Fantasy Records')", arguments: [albumId])
                try SearchIndex.refresh(db, albumIds: [albumId])
            }
            let labelled = try await titles("fantasy")
            #expect(labelled == ["A Love Eternal"])

            // The collector gets a copy of Alice's album, and a cover for it.
            let notMine = try await titles("alice")
            #expect(notMine == [])
            let alicesAlbum = try server.albumId(release: 777001)
            try await server.database.writer.write { db in
                try db.execute(sql: """
                    INSERT INTO collection_item (user_id, album_id, date_added) SELECT id, ?, '2025-01-01T00:00:00Z' FROM user WHERE name = 'collector'
                    """, arguments: [alicesAlbum])
            }
            let mine = try await titles("alice")
            #expect(mine == ["Only Alice Has This"])
            let thumbnail = { @Sendable () async throws -> String? in
                try await client.decoded(SearchResultsDTO.self, "/v1/search?q=alice", token: server.writeToken).albums.first?.artwork.value?.url
            }
            let noCover = try await thumbnail()
            #expect(noCover == nil)
            try await server.database.writer.write { db in
                try db.execute(sql: """
                    INSERT INTO album_image (album_id, position, kind, uri, uri150) VALUES (?, 0, 'primary', 'https://img/a.jpg', 'https://img/a-150.jpg')
                    """, arguments: [alicesAlbum])
            }
            // A cover added after the search was answered shows: the results were not kept past it.
            let cover = try await thumbnail()
            let key = try await server.database.reader.read { try $0.artworkKey(of: "https://img/a.jpg") }
            #expect(cover == "/v1/artwork/\(key)/128")
        }
    }

    @Test func searchSyntaxAndGarbageNeverFail() async throws {
        let server = try TestServer()
        try await server.test { client in
            for query in ["%22", "*", "NEAR(", "%27%3B%20DROP%20TABLE%20album%3B--", "a%20OR%20b", "%FF%FE", "-x", "%5E", "%00", String(repeating: "a", count: 200)] {
                let response = try await client.call(.get, "/v1/search?q=\(query)", token: server.writeToken)
                #expect(response.status == .ok, "q=\(query)")
            }
            #expect(try await client.call(.get, "/v1/search", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/search?q=x&limit=0", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/search?q=x&limit=-5", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/search?q=x&limit=99999999999999999999", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/search?q=\(String(repeating: "a", count: 201))", token: server.writeToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/nothing-here", token: server.writeToken).status == .notFound)
        }
        let albums = try await server.database.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM album") }
        #expect(albums == 19)
    }
}
