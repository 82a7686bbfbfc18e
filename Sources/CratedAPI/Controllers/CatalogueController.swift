import CratedCore
import CratedGrid
import CratedPlayback
import Hummingbird

/// Album, artist and genre pages, and search: what the client's detail routes and Discover show.
struct CatalogueController {
    let database: AppDatabase
    let playback: PlaybackService

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get("albums/:id", use: album)
            .get("artists/:id", use: artist)
            .get("genres", use: genres)
            .get("genres/:name/artists", use: genreArtists)
            .get("styles/:name/artists", use: styleArtists)
            .get("search", use: search)
            .get("me", use: me)
    }

    @Sendable func album(request: Request, context: AppRequestContext) async throws -> AlbumDetailDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        guard let bundle = try database.albumBundle(albumId: id, userId: principal.userId) else {
            throw APIError.notFound("album \(id) not found")
        }
        let drawn = try request.idiom() == .pad ? ArtworkSize.Drawn.albumPageIPad : ArtworkSize.Drawn.albumPage
        var detail = AlbumDetailDTO(bundle, artworkPixels: drawn * (try request.scale()))
        let stats = try await playback.albumPlayStats(userId: principal.userId, albumId: id)
        detail.playCount = stats.playCount
        detail.lastPlayedAt = stats.lastPlayedAt
        return detail
    }

    @Sendable func artist(request: Request, context: AppRequestContext) async throws -> ArtistDetailDTO {
        let principal = try context.requirePrincipal()
        // An id the app kept from before a sync split its CSV credit answers with the artist now.
        let id = try database.currentArtistId(try context.id("id"))
        let scale = try request.scale()
        guard let page = try database.artistAlbums(artistId: id, userId: principal.userId) else {
            throw APIError.notFound("artist \(id) not found")
        }
        return ArtistDetailDTO(id: page.artist.id!, name: page.artist.name, discogsName: page.artist.discogsName, discogsId: page.artist.discogsId,
                               albums: page.albums.map { AlbumListingDTO($0, scale: scale) },
                               appearsOn: page.appearsOn.map { AlbumListingDTO($0, scale: scale) },
                               creditedOn: page.creditedOn.map { CreditedAlbumDTO(album: AlbumListingDTO($0.album, scale: scale), roles: $0.roles) })
    }

    @Sendable func genres(request: Request, context: AppRequestContext) async throws -> GenresDTO {
        let principal = try context.requirePrincipal()
        func counts(_ kind: AlbumGenre.Kind) throws -> [NameCountDTO] {
            try database.genreCounts(userId: principal.userId, kind: kind).map { NameCountDTO(name: $0.name, count: $0.count) }
        }
        return GenresDTO(genres: try counts(.genre), styles: try counts(.style))
    }

    @Sendable func genreArtists(request: Request, context: AppRequestContext) async throws -> GenreArtistsDTO {
        try artists(kind: .genre, context: context)
    }

    @Sendable func styleArtists(request: Request, context: AppRequestContext) async throws -> GenreArtistsDTO {
        try artists(kind: .style, context: context)
    }

    private func artists(kind: AlbumGenre.Kind, context: AppRequestContext) throws -> GenreArtistsDTO {
        let principal = try context.requirePrincipal()
        let name = try context.text("name")
        guard let (stored, artists) = try database.artists(userId: principal.userId, genre: name, kind: kind) else {
            throw APIError.notFound("\(kind.rawValue) '\(name)' not found in your collection", field: "name")
        }
        return GenreArtistsDTO(name: stored, kind: kind.rawValue, artists: artists.map { .init(id: $0.artist.id!, name: $0.artist.name, albums: $0.albums) })
    }

    @Sendable func search(request: Request, context: AppRequestContext) async throws -> SearchResultsDTO {
        let principal = try context.requirePrincipal()
        guard let query = request.query("q") else { throw APIError.badParameter("q", "q (the text to search for) is required") }
        guard query.count <= 200 else { throw APIError.badParameter("q", "q is at most 200 characters") }
        let limit = try request.queryInt("limit", default: 50, range: 1...200)
        let scale = try request.scale()
        let albums = try database.searchAlbums(userId: principal.userId, text: query, limit: limit)
        return SearchResultsDTO(query: query, albums: albums.map { AlbumListingDTO($0, scale: scale) })
    }

    @Sendable func me(request: Request, context: AppRequestContext) async throws -> MeDTO {
        let principal = try context.requirePrincipal()
        return MeDTO(user: .init(id: principal.userId, name: principal.userName), scope: principal.scope.rawValue,
                     discogsUser: try database.linkedDiscogsUser(userId: principal.userId))
    }
}
