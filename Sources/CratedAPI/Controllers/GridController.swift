import CratedCore
import CratedGrid
import Hummingbird

/// Album grids sized to the client's layout, and the layout resolution itself.
struct GridController {
    let grids: GridService

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get("layout", use: layout)
            .get("grid/collection") { try await page(.collection, $0, $1) }
            .get("grid/crates/:id") { try await page(.crate(id: try $1.id("id")), $0, $1) }
            .get("grid/artists/:id") { request, context in
                let role = try request.query("role").map { asked in
                    guard let role = ArtistAlbumList(rawValue: asked) else {
                        throw APIError.badParameter("role", "role must be one of \(ArtistAlbumList.allCases.map(\.rawValue).joined(separator: ", ")), not '\(asked)'")
                    }
                    return role
                } ?? .albums
                return try await page(.artist(id: try grids.database.currentArtistId(try context.id("id")), role: role), request, context)
            }
            .get("grid/genres/:name") { try await page(.genre(try $1.text("name")), $0, $1) }
            .get("grid/styles/:name") { try await page(.style(try $1.text("name")), $0, $1) }
            .get("grid/search") { request, context in
                guard let text = request.query("q") else { throw APIError.badParameter("q", "q (the text to search for) is required") }
                guard text.count <= 200 else { throw APIError.badParameter("q", "q is at most 200 characters") }
                return try await page(.search(text), request, context)
            }
    }

    /// `GET /v1/layout`: the environment and grid configuration crated resolves from the client's
    /// signals, so a client can check its own resolution against the server's.
    @Sendable func layout(request: Request, context: AppRequestContext) async throws -> GridLayout {
        _ = try context.requirePrincipal()
        return try LayoutRequest(query: request.queryDictionary()).resolve()
    }

    /// One page of a grid, with `ETag`; `If-None-Match` with the same tag answers 304.
    func page(_ scope: GridScope, _ request: Request, _ context: AppRequestContext) async throws -> Response {
        let principal = try context.requirePrincipal()
        var query = request.queryDictionary()
        // In a search grid the text is the scope; applying it again as a filter would search twice.
        if case .search = scope { query["q"] = nil }
        // An artist id kept from before a sync split its CSV credit filters by the artist now.
        if let artist = query["artist"].flatMap({ Int64($0) }) {
            let current = try grids.database.currentArtistId(artist)
            if current != artist { query["artist"] = String(current) }
        }
        let page = try grids.page(userId: principal.userId, request: try GridRequest(scope: scope, query: query))
        if let tag = request.headers[.ifNoneMatch], page.matches(ifNoneMatch: tag) {
            return Response(status: .notModified, headers: [.eTag: page.etag])
        }
        var response = try page.response(from: request, context: context)
        response.headers[.eTag] = page.etag
        return response
    }
}

extension GridLayout: ResponseEncodable {}
extension GridPage: ResponseEncodable {}
