import CratedCore
import Hummingbird

/// A user's crates: list, create, rename, delete, and their copies in order.
struct CratesController {
    let database: AppDatabase

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get(use: list)
            .post(use: create)
            .get(":id", use: detail)
            .patch(":id", use: rename)
            .delete(":id", use: delete)
            .post(":id/copies", use: addCopies)
            .put(":id/copies", use: reorder)
            .delete(":id/copies/:copyId", use: removeCopy)
    }

    @Sendable func list(request: Request, context: AppRequestContext) async throws -> CrateListDTO {
        let principal = try context.requirePrincipal()
        return CrateListDTO(crates: try database.crates(userId: principal.userId).map { CrateDTO($0.crate, copies: $0.copies) })
    }

    @Sendable func create(request: Request, context: AppRequestContext) async throws -> EditedResponse<CrateDTO> {
        let principal = try context.requirePrincipal()
        var request = request
        let body = try await request.decodeStrict(CrateNameBody.self, context: context)
        let crate = try database.createCrate(userId: principal.userId, name: body.name)
        return EditedResponse(status: .created, headers: [.location: "/v1/crates/\(crate.id!)"], response: CrateDTO(crate, copies: 0))
    }

    @Sendable func detail(request: Request, context: AppRequestContext) async throws -> CrateDetailDTO {
        let principal = try context.requirePrincipal()
        let (crate, entries) = try database.crateContents(id: try context.id("id"), userId: principal.userId)
        return CrateDetailDTO(
            id: crate.id!, name: crate.name, copies: entries.count, createdAt: crate.createdAt, updatedAt: crate.updatedAt,
            items: entries.map { .init(position: $0.position, addedAt: $0.addedAt, copyId: $0.copy.id!, album: AlbumListingDTO($0.album)) })
    }

    @Sendable func rename(request: Request, context: AppRequestContext) async throws -> CrateDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(CrateNameBody.self, context: context)
        let renamed = try database.renameCrate(id: id, userId: principal.userId, name: body.name)
        return CrateDTO(renamed.crate, copies: renamed.copies)
    }

    @Sendable func delete(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let principal = try context.requirePrincipal()
        try database.deleteCrate(id: try context.id("id"), userId: principal.userId)
        return .noContent
    }

    @Sendable func addCopies(request: Request, context: AppRequestContext) async throws -> AddedDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(CopyIdsBody.self, context: context)
        return AddedDTO(added: try database.addToCrate(id: id, userId: principal.userId, copyIds: body.copyIds))
    }

    @Sendable func reorder(request: Request, context: AppRequestContext) async throws -> CrateDetailDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(CopyIdsBody.self, context: context)
        try database.reorderCrate(id: id, userId: principal.userId, copyIds: body.copyIds)
        return try await detail(request: request, context: context)
    }

    @Sendable func removeCopy(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let principal = try context.requirePrincipal()
        try database.removeFromCrate(id: try context.id("id"), userId: principal.userId, copyId: try context.id("copyId"))
        return .noContent
    }
}
