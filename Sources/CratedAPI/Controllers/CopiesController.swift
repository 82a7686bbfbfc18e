import CratedCore
import Hummingbird

/// One copy of an album: read it, edit its rating, conditions, notes, custom fields and crates,
/// or remove it from the collection.
struct CopiesController {
    let database: AppDatabase

    var endpoints: RouteCollection<AppRequestContext> {
        RouteCollection(context: AppRequestContext.self)
            .get(":id", use: get)
            .patch(":id", use: edit)
            .delete(":id", use: remove)
    }

    @Sendable func get(request: Request, context: AppRequestContext) async throws -> CopyDTO {
        let principal = try context.requirePrincipal()
        let (copy, crates) = try database.copy(id: try context.id("id"), userId: principal.userId)
        return CopyDTO(copy, crates: crates)
    }

    @Sendable func edit(request: Request, context: AppRequestContext) async throws -> CopyDTO {
        let principal = try context.requirePrincipal()
        let id = try context.id("id")
        var request = request
        let body = try await request.decodeStrict(EditCopyBody.self, context: context)
        let (copy, crates) = try await database.updateCopy(id: id, userId: principal.userId, changes: body.changes)
        return CopyDTO(copy, crates: crates)
    }

    @Sendable func remove(request: Request, context: AppRequestContext) async throws -> HTTPResponse.Status {
        let principal = try context.requirePrincipal()
        try await database.removeCopy(id: try context.id("id"), userId: principal.userId)
        return .noContent
    }
}
