import CratedCore
import CratedPlayback
import Hummingbird

/// A user's crates: list, create, rename, delete, and their copies in order.
struct CratesController {
    let database: AppDatabase
    /// Deleting the crate being played changes the player.
    let playback: PlaybackService

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get(use: list)
            .post(use: create)
            .get(":id", use: detail)
            .patch(":id", use: rename)
            .delete(":id", use: delete)
            .post(":id/copies", use: addCopies)
            .post(":id/albums", use: addAlbums)
            .put(":id/copies", use: reorder)
            .patch(":id/copies/:copyId", use: moveCopy)
            .delete(":id/copies/:copyId", use: removeCopy)
            .delete(":id/albums/:albumId", use: removeAlbum)
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> CrateListDTO {
        let principal = try context.requirePrincipal()
        let scale = try request.scale()
        return CrateListDTO(crates: try database.crates(userId: principal.userId).map { CrateDTO($0, scale: scale) })
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<CrateDTO> {
        let principal = try context.requirePrincipal()
        var request = request
        let body = try await request.decodeStrict(CrateNameBody.self, context: context)
        let crate = try await database.createCrate(userId: principal.userId, name: body.name)
        // A new crate is empty: it has no cover at any scale.
        let created = CrateDTO(CrateSummary(crate: crate, copies: 0, cover: nil), scale: 1)
        return EditedResponse(status: .created, headers: [.location: "/v1/crates/\(crate.id!)"], response: created)
    }

    /// The crate and a page of its copies in crate order; `after` (a page's `next`) asks for the next.
    @Sendable func detail(request: Request, context: AppRequestContext) async throws -> CrateDetailDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        let page = try ContentsPage(request, cursorAllowed: true)
        return try contents(ofCrate: id, userId: principal.userId, page)
    }

    /// Which page of a crate's copies a request asks for, and the covers' scale.
    private struct ContentsPage {
        let limit: Int
        let scale: Double
        let cursor: CrateCursor?

        init(_ request: Request, cursorAllowed: Bool) throws {
            limit = try request.queryInt("limit", default: 100, range: 1...500)
            scale = try request.scale()
            guard cursorAllowed, let after = request.query("after") else {
                cursor = nil
                return
            }
            guard let parsed = CrateCursor(after) else { throw APIError.badParameter("after", "after must be a cursor from a previous page's next") }
            cursor = parsed
        }
    }

    private func contents(ofCrate id: Int64, userId: Int64, _ asked: ContentsPage) throws -> CrateDetailDTO {
        let page = try database.crateContents(id: id, userId: userId, after: asked.cursor, limit: asked.limit)
        return CrateDetailDTO(
            id: page.crate.id!, name: page.crate.name, copies: page.copies, createdAt: page.crate.createdAt, updatedAt: page.crate.updatedAt,
            items: page.entries.map {
                .init(position: $0.position, addedAt: $0.addedAt, copyId: $0.copy.id!, album: AlbumListingDTO($0.album, scale: asked.scale))
            },
            next: page.next?.description)
    }

    @Sendable func rename(request: Request, context: AppRequestContext) async throws -> CrateDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(CrateNameBody.self, context: context)
        let scale = try request.scale()
        let renamed = try await database.renameCrate(id: id, userId: principal.userId, name: body.name)
        return CrateDTO(renamed, scale: scale)
    }

    @Sendable func delete(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        try await playback.deleteCrate(id, userId: principal.userId) {
            try await database.deleteCrate(id: id, userId: principal.userId)
        }
        return .noContent
    }

    @Sendable func addCopies(request: Request, context: AppRequestContext) async throws -> AddedDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(CopyIdsBody.self, context: context)
        return AddedDTO(added: try await database.addToCrate(id: id, userId: principal.userId, copyIds: body.copyIds))
    }

    /// A copy of each album, for a client that lists albums: see `AppDatabase.addAlbumsToCrate`.
    @Sendable func addAlbums(request: Request, context: AppRequestContext) async throws -> AddedDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(AlbumIdsBody.self, context: context)
        return AddedDTO(added: try await database.addAlbumsToCrate(id: id, userId: principal.userId, albumIds: body.albumIds))
    }

    @Sendable func reorder(request: Request, context: AppRequestContext) async throws -> CrateDetailDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(CopyIdsBody.self, context: context)
        // Read before the write: a bad parameter must leave the crate as it was.
        let page = try ContentsPage(request, cursorAllowed: false)
        try await database.reorderCrate(id: id, userId: principal.userId, copyIds: body.copyIds)
        return try contents(ofCrate: id, userId: principal.userId, page)
    }

    /// Moves one copy before or after another: a reorder costs one small request however large the crate.
    @Sendable func moveCopy(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        let copyId = try context.id("copyId")
        var request = request
        let body = try await request.decodeStrict(CrateMoveBody.self, context: context)
        try await database.moveInCrate(id: id, userId: principal.userId, copyId: copyId, to: body.placement)
        return .noContent
    }

    @Sendable func removeCopy(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let principal = try context.requirePrincipal()
        try await database.removeFromCrate(id: try context.id("id"), userId: principal.userId, copyId: try context.id("copyId"))
        return .noContent
    }

    /// Every copy of an album out of the crate, for a client that edits the crate from its grid.
    @Sendable func removeAlbum(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let principal = try context.requirePrincipal()
        try await database.removeAlbumFromCrate(id: try context.id("id"), userId: principal.userId, albumId: try context.id("albumId"))
        return .noContent
    }
}
