import CratedClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// The generated client against a live daemon (run-integration.sh starts one with the sample
/// collection): every answer below must decode with the runtime's defaults. Reads CRATED_URL,
/// CRATED_TOKEN (write scope), CRATED_READ_TOKEN, CRATED_OTHER_TOKEN (another user's) and
/// CRATED_PASSWORD (collector's, for the app's sign-in).
@main struct Integration {
    static func main() async {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["CRATED_URL"].flatMap(URL.init(string:)),
              let token = environment["CRATED_TOKEN"], let readToken = environment["CRATED_READ_TOKEN"],
              let otherToken = environment["CRATED_OTHER_TOKEN"], let password = environment["CRATED_PASSWORD"]
        else {
            print("set CRATED_URL, CRATED_TOKEN, CRATED_READ_TOKEN, CRATED_OTHER_TOKEN and CRATED_PASSWORD (run-integration.sh does)")
            exit(2)
        }
        func client(_ token: String?) -> Client {
            Client(serverURL: url, transport: AsyncHTTPClientTransport(),
                   middlewares: token.map { [BearerTokenMiddleware(token: $0)] } ?? [])
        }
        var checks = Checks()
        let steps: [(String, (inout Checks) async throws -> Void)] = [
            ("layouts", { try await layouts(client(token), &$0) }),
            ("grid walk", { try await gridWalk(client(token), &$0) }),
            ("album and search", { try await albumAndSearch(client(token), &$0) }),
            ("crates", { try await crates(client(token), &$0) }),
            ("copy edit and clear", { try await copyEdits(client(token), &$0) }),
            ("player and history", { try await player(client(token), &$0) }),
            ("401, 403, 404", { try await refusals(me: client(token), anonymous: client(nil), reader: client(readToken), other: client(otherToken), &$0) }),
            ("app sign-in and sign-out", { try await appSignIn(anonymous: client(nil), password: password, url: url, &$0) }),
            // Last: it takes a copy out of the collection the steps above read.
            ("copy removal", { try await copyRemoval(client(token), reader: client(readToken), &$0) }),
        ]
        for (name, step) in steps {
            let before = checks.failures.count
            do {
                try await step(&checks)
            } catch {
                checks.fail("\(name) threw: \(error)")
            }
            print(checks.failures.count == before ? "ok    \(name)" : "FAIL  \(name)")
        }
        if checks.failures.isEmpty {
            print("crated-client-integration: \(checks.passed) checks passed")
        } else {
            for failure in checks.failures { print("failed: \(failure)") }
            exit(1)
        }
    }

    /// Every layout environment resolves, and a grid page of each decodes.
    static func layouts(_ client: Client, _ checks: inout Checks) async throws {
        for environment in Components.Schemas.LayoutEnvironment.allCases {
            let layout = try await client.getLayout(query: .init(layout: environment)).ok.body.json
            checks.expect(layout.environment == environment, "GET /v1/layout?layout=\(environment.rawValue) gave \(layout.environment)")
            checks.expect(layout.columns > 0 && layout.pageSize > 0, "\(environment.rawValue): \(layout.columns) columns, page of \(layout.pageSize)")
            let page = try await client.getCollectionGrid(query: .init(layout: environment)).ok.body.json
            checks.expect(page.layout.environment == environment, "the \(environment.rawValue) grid page has layout \(page.layout.environment)")
        }
        // Sized by the grid's container, as the README's example asks: the columns and item width it draws.
        let sized = Operations.getCollectionGrid.Input.Query(layout: .iPhonePortrait, width: 393, height: 852, scale: 3)
        let sizedLayout = try await client.getCollectionGrid(query: sized).ok.body.json.layout
        checks.expect(sizedLayout.columns == 2 && abs(sizedLayout.itemWidth - 176.5) < 0.001,
                      "393 points wide gave \(sizedLayout.columns) columns of \(sizedLayout.itemWidth)")
    }

    /// The whole collection by `next` cursors, each album once; an unchanged page answers 304 to its ETag.
    static func gridWalk(_ client: Client, _ checks: inout Checks) async throws {
        var query = Operations.getCollectionGrid.Input.Query(layout: .iPhonePortrait, limit: 4)
        var seen: [Int64] = []
        var total = 0
        var pages = 0
        while true {
            let page = try await client.getCollectionGrid(query: query).ok.body.json
            if pages == 0 {
                // The runtime percent-encodes the header's quotes; the server still matches the tag.
                let again = try await client.getCollectionGrid(query: query, headers: .init(If_hyphen_None_hyphen_Match: page.etag))
                if case .notModified = again {} else { checks.fail("If-None-Match with the page's ETag gave \(again), not 304") }
            }
            total = page.total
            seen += page.items.map(\.albumId)
            pages += 1
            guard let next = page.next, pages < 1000 else { break }
            query.cursor = next
        }
        checks.expect(total > 0, "the sample collection's grid is empty")
        checks.expect(seen.count == total, "walked \(seen.count) items of \(total)")
        checks.expect(Set(seen).count == seen.count, "an album came twice in the walk")
        checks.expect(pages > 1, "the walk took \(pages) page(s); expected several at 4 a page")

        // Every sort has a jump bar; by year its labels are decades, `?` for unknown years, last.
        let byYear = try await client.getCollectionGrid(query: .init(layout: .iPadFullscreen, sort: .year, sections: true)).ok.body.json
        let labels = byYear.sections?.map(\.letter) ?? []
        checks.expect(!labels.isEmpty && labels.allSatisfy { $0 == "?" || ($0.count == 5 && $0.hasSuffix("0s")) },
                      "the year grid's jump bar is \(labels)")
        checks.expect(labels.firstIndex(of: "?").map { $0 == labels.count - 1 } ?? true, "unknown years are not last: \(labels)")
    }

    static func albumAndSearch(_ client: Client, _ checks: inout Checks) async throws {
        let first = try await client.getCollectionGrid(query: .init(layout: .iPadFullscreen)).ok.body.json.items[0]
        let album = try await client.getAlbum(path: .init(id: first.albumId), query: .init(scale: 2)).ok.body.json
        checks.expect(album.id == first.albumId && album.title == first.title, "album \(first.albumId) is \(album.title)")
        checks.expect(!album.copies.isEmpty, "album \(album.id) has no copies")
        let word = album.title.components(separatedBy: " ").max { $0.count < $1.count } ?? album.title
        // A screen's scale as UIKit gives it, not whole (a Double in the generated client, as on grids).
        let results = try await client.searchAlbums(query: .init(q: word, scale: 2.5)).ok.body.json
        checks.expect(results.albums.contains { $0.id == album.id }, "searching '\(word)' did not find \(album.title)")
        let grid = try await client.searchGrid(query: .init(layout: .iPhoneLandscape, q: word)).ok.body.json
        checks.expect(grid.items.contains { $0.albumId == album.id }, "the search grid for '\(word)' lacks \(album.title)")
    }

    /// Create, add, rename, read, delete.
    static func crates(_ client: Client, _ checks: inout Checks) async throws {
        let copyId = try await firstCopyId(client)
        let crate = try await client.createCrate(body: .json(.init(name: "Client integration"))).created.body.json
        checks.expect(crate.name == "Client integration" && crate.copies == 0 && crate.artwork == nil, "created \(crate)")
        let added = try await client.addCopiesToCrate(path: .init(id: crate.id), body: .json(.init(copyIds: [copyId]))).ok.body.json
        checks.expect(added.added == 1, "added \(added.added) copies, not 1")
        let renamed = try await client.renameCrate(path: .init(id: crate.id), body: .json(.init(name: "Renamed by the client"))).ok.body.json
        checks.expect(renamed.name == "Renamed by the client", "renamed to \(renamed.name)")
        let detail = try await client.getCrate(path: .init(id: crate.id)).ok.body.json
        checks.expect(detail.items.map(\.copyId) == [copyId], "the crate holds \(detail.items.map(\.copyId))")
        let crateGrid = try await client.getCrateGrid(path: .init(id: crate.id), query: .init(layout: .iPadSplitView)).ok.body.json
        checks.expect(crateGrid.total == 1, "the crate's grid has \(crateGrid.total) items")
        // The grid in the crate's own order, by default and asked for: a later album put first.
        let laterAlbum = try await client.getCollectionGrid(query: .init(layout: .iPhonePortrait, limit: 4)).ok.body.json.items[3].albumId
        let laterCopy = try await client.getAlbum(path: .init(id: laterAlbum)).ok.body.json.copies[0].id
        _ = try await client.addCopiesToCrate(path: .init(id: crate.id), body: .json(.init(copyIds: [laterCopy]))).ok
        _ = try await client.reorderCrate(path: .init(id: crate.id), body: .json(.init(copyIds: [laterCopy, copyId]))).ok
        for sort in [nil, Operations.getCrateGrid.Input.Query.sortPayload.crate] {
            let ordered = try await client.getCrateGrid(path: .init(id: crate.id), query: .init(layout: .iPadSplitView, sort: sort)).ok.body.json
            checks.expect(ordered.items.first?.albumId == laterAlbum && ordered.total == 2, "the crate's grid (sort \(sort.map(\.rawValue) ?? "default")) is not in the crate's order: \(ordered.items.map(\.albumId))")
        }
        let listed = try await client.listCrates(query: .init(scale: 3)).ok.body.json
        checks.expect(listed.crates.contains { $0.id == crate.id }, "the crate is not listed")
        // Its front cover is its one album's, at the same scale.
        let front = try await client.getCrate(path: .init(id: crate.id), query: .init(scale: 3)).ok.body.json.items.first?.album.artwork
        checks.expect(listed.crates.first { $0.id == crate.id }?.artwork == front, "the listed crate's cover is not its front album's")
        // Albums as a grid lists them: a copy of each, once.
        let thirdAlbum = try await client.getCollectionGrid(query: .init(layout: .iPhonePortrait, limit: 6)).ok.body.json.items[5].albumId
        let byAlbum = try await client.addAlbumsToCrate(path: .init(id: crate.id), body: .json(.init(albumIds: [thirdAlbum, thirdAlbum]))).ok.body.json
        checks.expect(byAlbum.added == 1, "added \(byAlbum.added) copies of one album, not 1")
        let again = try await client.addAlbumsToCrate(path: .init(id: crate.id), body: .json(.init(albumIds: [thirdAlbum]))).ok.body.json
        checks.expect(again.added == 0, "an album in the crate added \(again.added) more")
        if case .notFound = try await client.addAlbumsToCrate(path: .init(id: crate.id), body: .json(.init(albumIds: [999_999_999]))) {} else {
            checks.fail("an album not in the collection was not a 404")
        }
        // And out again by album, as an edit from the crate's grid does.
        _ = try await client.removeAlbumFromCrate(path: .init(id: crate.id, albumId: thirdAlbum)).noContent
        let left = try await client.getCrate(path: .init(id: crate.id)).ok.body.json.items.map(\.album.id)
        checks.expect(!left.contains(thirdAlbum), "the album taken out is still in the crate: \(left)")
        if case .notFound = try await client.removeAlbumFromCrate(path: .init(id: crate.id, albumId: thirdAlbum)) {} else {
            checks.fail("an album no longer in the crate was not a 404")
        }
        _ = try await client.deleteCrate(path: .init(id: crate.id)).noContent
        if case .notFound = try await client.getCrate(path: .init(id: crate.id)) {} else { checks.fail("a deleted crate did not answer 404") }
    }

    /// Set a copy's rating, conditions and notes, then clear them with `clear`.
    static func copyEdits(_ client: Client, _ checks: inout Checks) async throws {
        let copyId = try await firstCopyId(client)
        let set = try await client.editCopy(path: .init(id: copyId), body: .json(.init(
            rating: 4, mediaCondition: .Near_space_Mint_space__lpar_NM_space_or_space_M_hyphen__rpar_,
            sleeveCondition: .Generic, notes: "Played once at a party."))).ok.body.json
        checks.expect(set.rating == 4 && set.mediaCondition == "Near Mint (NM or M-)" && set.sleeveCondition == "Generic"
                      && set.notes == "Played once at a party.", "after setting: \(set)")
        let cleared = try await client.editCopy(path: .init(id: copyId), body: .json(.init(
            clear: [.rating, .mediaCondition, .sleeveCondition, .notes]))).ok.body.json
        checks.expect(cleared.rating == nil && cleared.mediaCondition == nil && cleared.sleeveCondition == nil && cleared.notes == nil,
                      "after clearing: \(cleared)")
        let read = try await client.getCopy(path: .init(id: copyId)).ok.body.json
        checks.expect(read == cleared, "GET gives \(read), PATCH gave \(cleared)")
        // Set and cleared at once is refused, by name.
        let both = try await client.editCopy(path: .init(id: copyId), body: .json(.init(rating: 3, clear: [.rating])))
        if case .unprocessableContent(let refusal) = both {
            let field = try refusal.body.json.error.field
            checks.expect(field == "rating", "the 422 names \(String(describing: field))")
        } else {
            checks.fail("rating both set and cleared gave \(both), not 422")
        }
    }

    /// Play, pause, a stale revision's 409 with the current state, the event stream, history.
    static func player(_ client: Client, _ checks: inout Checks) async throws {
        let albumId = try await client.getCollectionGrid(query: .init(layout: .iPhonePortrait)).ok.body.json.items[0].albumId
        // The body is one of four shapes (album, album from a side or a track, crate): an enum here.
        let playing = try await client.playPlayer(body: .json(.PlayAlbum(.init(albumId: albumId)))).ok.body.json
        checks.expect(playing.state == .playing && playing.album?.id == albumId, "play gave \(playing.state), album \(String(describing: playing.album))")
        checks.expect(abs(playing.serverTime.timeIntervalSinceNow) < 60, "serverTime \(playing.serverTime) is not now")
        checks.expect(abs(Double(playing.serverTimeMs) / 1000 - playing.serverTime.timeIntervalSince1970) < 1,
                      "serverTimeMs \(playing.serverTimeMs) is not within serverTime's second")
        // The first track lasts 4 seconds (run-integration.sh): past half of it, its play counts.
        try await Task.sleep(for: .milliseconds(2500))
        let paused = try await client.pausePlayer(body: .json(.init())).ok.body.json
        checks.expect(paused.state == .paused && paused.revision > playing.revision, "pause gave \(paused.state) at \(paused.revision)")
        let stale = try await client.resumePlayer(body: .json(.init(expectedRevision: playing.revision)))
        if case .conflict(let conflict) = stale {
            let refusal = try conflict.body.json
            checks.expect(refusal.error.code == "revision_conflict", "the 409's code is \(refusal.error.code)")
            checks.expect(refusal.current?.revision == paused.revision && refusal.current?.state == .paused,
                          "the 409's current is \(String(describing: refusal.current))")
        } else {
            checks.fail("a stale revision gave \(stale), not 409")
        }
        let current = try await client.getPlayer().ok.body.json
        // The refused resume changed nothing (serverTime moves, so the documents are not compared whole).
        checks.expect(current.revision == paused.revision && current.state == .paused,
                      "GET /v1/player gave \(current.state) at revision \(current.revision), not paused at \(paused.revision)")
        // The event stream's first event is the current state, as JSON the generated type decodes.
        let stream = try await client.streamPlayerEvents().ok.body.text_event_hyphen_stream
        // (`retry: 3000` comes first, an event without data.) The events' JSON is decoded by the
        // decoder given, not the client's: it needs the ISO 8601 dates the client's own decoder reads.
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var firstEvent: ServerSentEventWithJSONData<Components.Schemas.MiniPlayer>?
        for try await event in stream.asDecodedServerSentEventsWithJSONData(of: Components.Schemas.MiniPlayer.self, decoder: decoder) {
            guard event.data != nil else { continue }
            firstEvent = event
            break
        }
        checks.expect(firstEvent?.event == "player" && firstEvent?.data?.revision == current.revision,
                      "the stream opened with \(String(describing: firstEvent))")
        // The other three shapes of the play body: from a side, from a track, a crate.
        let fromSideB = try await client.playPlayer(body: .json(.PlayAlbumSide(.init(albumId: albumId, side: "b")))).ok.body.json
        checks.expect(fromSideB.side == "B" && fromSideB.track?.position == "B1", "side b gave side \(String(describing: fromSideB.side)), \(String(describing: fromSideB.track))")
        let album = try await client.getAlbum(path: .init(id: albumId)).ok.body.json
        // B1 is credited to artists of its own; the others are the album's, and say none.
        let trackArtists = album.sides.flatMap(\.tracks).map(\.artist)
        checks.expect(trackArtists == [nil, nil, "A Guest"], "the tracks' own artists were \(trackArtists)")
        // Their artist rows link to a page that lists the album as one they appear on.
        if let guest = album.sides.last?.tracks.last?.artists?.first {
            let page = try await client.getArtist(path: .init(id: guest.id)).ok.body.json
            checks.expect(page.name == "A Guest" && page.albums.isEmpty && page.appearsOn?.contains { $0.id == albumId } == true,
                          "the guest's page was \(page.name), \(page.albums.count) albums, appears on \(String(describing: page.appearsOn?.map(\.id)))")
            // And their grid of the albums they appear on, paged as any grid: the page's list.
            let appearances = try await client.getArtistGrid(path: .init(id: guest.id), query: .init(layout: .iPhonePortrait, limit: 500, role: .appearsOn))
                .ok.body.json.items.map(\.albumId)
            checks.expect(Set(appearances) == Set(page.appearsOn?.map(\.id) ?? []) && appearances.contains(albumId),
                          "the guest's appearsOn grid held \(appearances), their page \(String(describing: page.appearsOn?.map(\.id)))")
        } else {
            checks.fail("B1 names no artist rows: \(String(describing: album.sides.last?.tracks.last))")
        }
        // Credits beyond the artists: the release's producer links to a page that lists the album
        // among those that credit them; B1 has a remixer of its own.
        let credits = album.credits?.map { "\($0.role): \($0.name)" }
        checks.expect(credits == ["Producer: A Producer"], "the album's credits were \(String(describing: credits))")
        let trackCredits = album.sides.flatMap(\.tracks).map { $0.credits?.map(\.name) }
        checks.expect(trackCredits == [nil, nil, ["A Remixer"]], "the tracks' credits were \(trackCredits)")
        if let producer = album.credits?.first?.artistId {
            let page = try await client.getArtist(path: .init(id: producer)).ok.body.json
            let credited = page.creditedOn?.first { $0.album.id == albumId }
            checks.expect(page.name == "A Producer" && credited?.roles == ["Producer"],
                          "the producer's page was \(page.name), credited on \(String(describing: page.creditedOn?.map { ($0.album.id, $0.roles) }))")
        } else {
            checks.fail("the producer's credit has no artistId: \(String(describing: album.credits))")
        }
        if let secondTrack = album.sides.first?.tracks.dropFirst().first {
            let fromTrack = try await client.playPlayer(body: .json(.PlayAlbumTrack(.init(albumId: albumId, trackId: secondTrack.id)))).ok.body.json
            checks.expect(fromTrack.track?.id == secondTrack.id, "track \(secondTrack.id) gave \(String(describing: fromTrack.track))")
        } else {
            checks.fail("album \(albumId) has no second track")
        }
        let crate = try await client.createCrate(body: .json(.init(name: "Client queue"))).created.body.json
        _ = try await client.addCopiesToCrate(path: .init(id: crate.id), body: .json(.init(copyIds: [album.copies[0].id]))).ok.body.json
        let fromCrate = try await client.playPlayer(body: .json(.PlayCrate(.init(crateId: crate.id)))).ok.body.json
        checks.expect(fromCrate.crateId == crate.id && fromCrate.album?.id == albumId, "crate \(crate.id) gave crate \(String(describing: fromCrate.crateId))")
        _ = try await client.deleteCrate(path: .init(id: crate.id)).noContent
        let stopped = try await client.stopPlayer(body: .json(.init())).ok.body.json
        checks.expect(stopped.state == .idle && stopped.track == nil && stopped.artwork == nil, "stop gave \(stopped)")
        let history = try await client.listPlayHistory(query: .init(scale: 3)).ok.body.json
        checks.expect(history.entries.contains { $0.albumId == albumId }, "the history lacks album \(albumId)")
        // The sample collection has no images: every play's cover is null, and decodes as such.
        checks.expect(history.entries.allSatisfy { $0.artwork == nil }, "a play without a cover has artwork")
    }

    /// No token (401), a read-scope token writing (403), another user's crate (404): each decoded.
    static func refusals(me: Client, anonymous: Client, reader: Client, other: Client, _ checks: inout Checks) async throws {
        if case .unauthorized(let refusal) = try await anonymous.getMe() {
            let code = try refusal.body.json.error.code
            checks.expect(code == "unauthorized", "401 code \(code)")
            checks.expect(refusal.headers.WWW_hyphen_Authenticate.hasPrefix("Bearer"), "401 without WWW-Authenticate: Bearer")
        } else {
            checks.fail("GET /v1/me without a token did not answer 401")
        }
        let myself = try await me.getMe().ok.body.json
        checks.expect(myself.user.name == "collector", "GET /v1/me is \(myself.user.name)")
        // run-integration.sh links collector to a Discogs account, and not the other user.
        checks.expect(myself.discogsUser == "collector-on-discogs", "GET /v1/me's discogsUser is \(String(describing: myself.discogsUser))")
        let theirLink = try await other.getMe().ok.body.json.discogsUser
        checks.expect(theirLink == nil, "another user's discogsUser is \(String(describing: theirLink))")
        if case .forbidden(let refusal) = try await reader.createCrate(body: .json(.init(name: "Not allowed"))) {
            let code = try refusal.body.json.error.code
            checks.expect(code == "forbidden", "403 code \(code)")
        } else {
            checks.fail("a read-scope token creating a crate did not answer 403")
        }
        let theirs = try await other.createCrate(body: .json(.init(name: "Someone else's"))).created.body.json
        if case .notFound(let refusal) = try await me.getCrate(path: .init(id: theirs.id)) {
            let code = try refusal.body.json.error.code
            checks.expect(code == "not_found", "404 code \(code)")
        } else {
            checks.fail("another user's crate did not answer 404")
        }
    }

    /// The app's sign-in: the password for a token of its own, which opens the API until the app
    /// signs out with it; a wrong password is 401.
    static func appSignIn(anonymous: Client, password: String, url: URL, _ checks: inout Checks) async throws {
        if case .unauthorized(let refusal) = try await anonymous.createToken(body: .json(.init(name: "collector", password: "not the password"))) {
            let code = try refusal.body.json.error.code
            checks.expect(code == "sign_in_failed", "a wrong password's 401 code \(code)")
        } else {
            checks.fail("POST /v1/tokens with a wrong password did not answer 401")
        }
        let issued = try await anonymous.createToken(body: .json(.init(name: "collector", password: password, label: "client integration"))).created.body.json
        checks.expect(issued.user.name == "collector" && issued.scope == .write && issued.label == "client integration",
                      "POST /v1/tokens gave \(issued.user.name), \(issued.scope), \(String(describing: issued.label))")
        checks.expect(issued.unusedDaysUntilExpiry == 180, "POST /v1/tokens says the token stops after \(String(describing: issued.unusedDaysUntilExpiry)) unused days, not the default 180")
        let app = Client(serverURL: url, transport: AsyncHTTPClientTransport(), middlewares: [BearerTokenMiddleware(token: issued.token)])
        checks.expect(try await app.getMe().ok.body.json.user.name == "collector", "the app's token does not open GET /v1/me")
        if case .noContent = try await app.revokeCurrentToken() {} else { checks.fail("DELETE /v1/tokens/current did not answer 204") }
        if case .unauthorized = try await app.getMe() {} else { checks.fail("the app's token still opens GET /v1/me after its sign-out") }
    }

    /// A read-scope token may not remove a copy (403); the owner's token does (204), and then the
    /// copy is gone (404), removing it again too.
    static func copyRemoval(_ client: Client, reader: Client, _ checks: inout Checks) async throws {
        let copyId = try await firstCopyId(client)
        if case .forbidden = try await reader.removeCopy(path: .init(id: copyId)) {} else {
            checks.fail("a read-scope token removing a copy did not answer 403")
        }
        _ = try await client.removeCopy(path: .init(id: copyId)).noContent
        if case .notFound = try await client.getCopy(path: .init(id: copyId)) {} else { checks.fail("a removed copy did not answer 404") }
        if case .notFound(let refusal) = try await client.removeCopy(path: .init(id: copyId)) {
            let code = try refusal.body.json.error.code
            checks.expect(code == "not_found", "removing it again: 404 code \(code)")
        } else {
            checks.fail("removing a removed copy did not answer 404")
        }
    }

    static func firstCopyId(_ client: Client) async throws -> Int64 {
        let albumId = try await client.getCollectionGrid(query: .init(layout: .iPhonePortrait)).ok.body.json.items[0].albumId
        return try await client.getAlbum(path: .init(id: albumId)).ok.body.json.copies[0].id
    }
}

/// Failures are collected rather than thrown, so one run reports every one.
struct Checks {
    var passed = 0
    var failures: [String] = []

    mutating func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if condition { passed += 1 } else { failures.append(message()) }
    }

    mutating func fail(_ message: String) {
        failures.append(message)
    }
}
