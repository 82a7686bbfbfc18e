@testable import CratedAPI
import CratedCore
import CratedGrid
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct GridRouteTests {
    @Test func layoutResolvesTheClientsSignals() async throws {
        let server = try TestServer()
        try await server.test { client in
            let phone = try await client.call(.get, "/v1/layout?hsc=compact&vsc=regular&width=402&height=874", token: server.readToken)
            #expect(phone.status == .ok)
            #expect(phone.objectKeys == ["environment", "columns", "spacing", "padding", "itemWidth", "rows", "pageSize"])
            let layout = try phone.decode(GridLayout.self)
            #expect(layout.environment == .iPhonePortrait)
            #expect(layout.columns == 2)
            let pad = try await client.decoded(GridLayout.self, "/v1/layout?layout=iPadFullscreen", token: server.readToken)
            #expect(pad.columns == 5)
            // A width alone is a container as tall as it needs: 1366 points wide is an iPad in full screen.
            let wide = try await client.decoded(GridLayout.self, "/v1/layout?width=1366", token: server.readToken)
            #expect(wide.environment == .iPadFullscreen)
            #expect(wide.columns == 5)
            // The whole body as a client reads it: keys in the order of the documentation.
            let text = try await client.execute(uri: "/v1/layout?layout=iPhonePortrait", method: .get,
                                                headers: [.authorization: "Bearer \(server.readToken)"]) { String(buffer: $0.body) }
            #expect(text == #"{"environment":"iPhonePortrait","columns":2,"spacing":8,"padding":16,"itemWidth":150,"rows":8,"pageSize":16}"#)
            // A pad 60 points wide in compact width is Slide Over, whose narrowest is 90 points: the width is named.
            for bad in ["layout=iPadMini", "width=0", "width=-5", "width=NaN", "width=1e308", "width=60&hsc=compact&vsc=regular&idiom=pad",
                        "limit=0", "limit=100000",
                        "scale=7", "hsc=tiny"] {
                let response = try await client.call(.get, "/v1/layout?\(bad)", token: server.readToken)
                #expect(response.status == .badRequest, "\(bad)")
                #expect(response.error?.field == String(bad.prefix { $0 != "=" }), "\(bad)")
            }
        }
    }

    @Test func pagesFollowTheirCursorsAndAnswer304WhenUnchanged() async throws {
        let server = try TestServer()
        try await server.test { client in
            var seen: [Int64] = []
            var uri = "/v1/grid/collection?layout=iPhonePortrait&limit=4&sort=title"
            var pages = 0
            while pages < 10 {
                let response = try await client.call(.get, uri, token: server.readToken)
                #expect(response.status == .ok)
                let page = try response.decode(GridPage.self)
                #expect(page.total == 18)
                seen += page.items.map(\.albumId)
                #expect(response.headers[.eTag] != nil)
                pages += 1
                guard let next = page.next else { break }
                uri = "/v1/grid/collection?layout=iPhonePortrait&limit=4&sort=title&cursor=\(next)"
            }
            // Eighteen albums, one cell each (Kind Of Blue and the Casey album have two copies).
            #expect(seen.count == 18)
            #expect(Set(seen).count == 18)
            #expect(pages == 5)

            let first = try await client.call(.get, "/v1/grid/collection?layout=iPadFullscreen", token: server.readToken)
            let tag = try #require(first.headers[.eTag])
            // One user's page: kept by the client's own cache only, and asked again with its tag.
            #expect(first.headers[.cacheControl] == "private, no-cache")
            let again = try await client.execute(uri: "/v1/grid/collection?layout=iPadFullscreen", method: .get,
                                                 headers: [.authorization: "Bearer \(server.readToken)", .ifNoneMatch: tag]) { $0 }
            #expect(again.status == .notModified)
            #expect(again.headers[.cacheControl] == "private, no-cache")
            // As a Swift OpenAPI client sends it: the runtime percent-encodes the quotes.
            let encoded = tag.replacingOccurrences(of: "\"", with: "%22")
            let fromGeneratedClient = try await client.execute(uri: "/v1/grid/collection?layout=iPadFullscreen", method: .get,
                                                               headers: [.authorization: "Bearer \(server.readToken)", .ifNoneMatch: encoded]) { $0.status }
            #expect(fromGeneratedClient == .notModified)
        }
    }

    @Test func scopedGridsAndTheirErrors() async throws {
        let server = try TestServer()
        let jazz = try server.database.crates(userId: 1).first { $0.crate.name == "Jazz" }!.crate.id!
        let alicesCrate = try server.database.crates(userId: 2).first!.crate.id!
        try await server.test { client in
            let crate = try await client.decoded(GridPage.self, "/v1/grid/crates/\(jazz)?layout=iPhonePortrait", token: server.readToken)
            #expect(crate.total == 3)
            // The path's id is what is not found; a filter's, the filter.
            let othersCrate = try await client.call(.get, "/v1/grid/crates/\(alicesCrate)", token: server.readToken)
            #expect(othersCrate.status == .notFound && othersCrate.error?.field == "id")
            let othersFilter = try await client.call(.get, "/v1/grid/collection?crate=\(alicesCrate)", token: server.readToken)
            #expect(othersFilter.status == .notFound && othersFilter.error?.field == "crate")
            // A genre or style on none of the user's albums, as on the genre page.
            for path in ["/v1/grid/genres/No%20Such%20Genre", "/v1/grid/styles/Nope"] {
                let missing = try await client.call(.get, path, token: server.readToken)
                #expect(missing.status == .notFound, "\(path)")
                #expect(missing.error?.code == "not_found" && missing.error?.field == "name", "\(path)")
            }
            let search = try await client.decoded(GridPage.self, "/v1/grid/search?q=deja", token: server.readToken)
            #expect(search.items.map(\.title) == ["Déjà Vu"])
            #expect(try await client.call(.get, "/v1/grid/search", token: server.readToken).status == .badRequest)
            // As /v1/search: at most 200 characters.
            let long = try await client.call(.get, "/v1/grid/search?q=\(String(repeating: "a%20", count: 101))", token: server.readToken)
            #expect(long.status == .badRequest)
            #expect(long.error?.field == "q")

            // A cursor is the user's own and belongs to its sort.
            let page = try await client.decoded(GridPage.self, "/v1/grid/collection?layout=iPhonePortrait&limit=4", token: server.readToken)
            let cursor = try #require(page.next)
            let foreign = try await client.call(.get, "/v1/grid/collection?cursor=\(cursor)", token: server.aliceToken)
            #expect(foreign.status == .badRequest)
            #expect(foreign.error?.field == "cursor")
            #expect(try await client.call(.get, "/v1/grid/collection?layout=iPhonePortrait&limit=4&sort=year&cursor=\(cursor)", token: server.readToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/grid/collection?cursor=%%%garbage", token: server.readToken).status == .badRequest)
            #expect(try await client.call(.get, "/v1/grid/collection?sort=loudness", token: server.readToken).status == .badRequest)
            #expect(foreign.error?.message == "cursor belongs to another user")

            // A message names the parameter it is about, as the API's others do: a client (the web
            // client's filters) shows it alone.
            for (query, field, message) in [
                ("yearFrom=abc", "yearFrom", "yearFrom must be a whole number, not 'abc'"),
                ("yearFrom=0", "yearFrom", "yearFrom must be a year from 1 to 9999, not 0"),
                ("yearFrom=1990&yearTo=1980", "yearTo", "yearTo must not be before yearFrom (1990), not 1980"),
                ("at=3&around=1", "around", "around cannot be combined with at: a page starts at one place"),
                ("layout=iPadFullscreen&width=20", "width", "20 points is too narrow for iPadFullscreen"),
            ] {
                let refused = try await client.call(.get, "/v1/grid/collection?\(query)", token: server.readToken)
                #expect(refused.status == .badRequest && refused.error?.field == field, "\(query)")
                #expect(refused.error?.message.hasPrefix(message) == true, "\(query): \(refused.error?.message ?? "")")
            }
        }
    }

    /// A query is read as a form encodes it, as browsers' `URLSearchParams` and most HTTP libraries
    /// write one: `+` is a space, `%2B` a plus. The web client's filters send `style=Modal+Jazz`.
    @Test func aPlusInTheQueryIsASpace() async throws {
        let server = try TestServer()
        let kindOfBlue = try server.albumId(release: 1)
        try await server.database.writer.write { db in
            try db.execute(sql: "INSERT INTO album_genre (album_id, kind, name, position) VALUES (?, 'style', 'Modal Jazz', 0)", arguments: [kindOfBlue])
        }
        try await server.test { client in
            for query in ["style=Modal+Jazz", "style=Modal%20Jazz", "sty%6Ce=Modal+Jazz"] {
                let page = try await client.decoded(GridPage.self, "/v1/grid/collection?\(query)", token: server.readToken)
                #expect(page.items.map(\.albumId) == [kindOfBlue], "\(query)")
            }
            let styled = try await client.decoded(GridPage.self, "/v1/grid/styles/Modal%20Jazz?sort=title", token: server.readToken)
            #expect(styled.total == 1)
            let search = try await client.call(.get, "/v1/search?q=kind+of+blue", token: server.readToken)
            #expect(try search.decode(SearchResultsDTO.self).query == "kind of blue")
            #expect(try search.decode(SearchResultsDTO.self).albums.map(\.id) == [kindOfBlue])
            let plus = try await client.call(.get, "/v1/search?q=c%2B%2B", token: server.readToken)
            #expect(try plus.decode(SearchResultsDTO.self).query == "c++")
            // With a malformed escape, the text is taken as it came (its pluses spaces).
            let malformed = try await client.call(.get, "/v1/search?q=100%25+%zz", token: server.readToken)
            #expect(try malformed.decode(SearchResultsDTO.self).query == "100%25 %zz")
        }
    }
}
