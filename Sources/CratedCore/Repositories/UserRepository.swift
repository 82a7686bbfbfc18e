import GRDB

public enum UserError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case alreadyExists(String)
    case invalidName(String)
    case ambiguousDefault([String])

    public var description: String {
        switch self {
        case .notFound(let name): "no user named '\(name)'"
        case .alreadyExists(let name): "a user named '\(name)' already exists"
        case .invalidName(let reason): "invalid user name: \(reason)"
        case .ambiguousDefault(let names):
            "this database has several users (\(names.joined(separator: ", "))); name one with --user"
        }
    }
}

extension User {
    /// User names are what people type on the command line: 1-64 characters, no control characters,
    /// not only spaces.
    static func validate(name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw UserError.invalidName("it is empty") }
        guard trimmed.count <= 64 else { throw UserError.invalidName("it is longer than 64 characters") }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw UserError.invalidName("it contains control characters")
        }
        return trimmed
    }

    static func named(_ name: String) -> QueryInterfaceRequest<User> {
        User.filter(Column("name").collating(.nocase) == name)
    }
}

/// What a user owns that goes with them: the albums stay in the catalogue, shared with other users.
public struct UserHoldings: Equatable, Sendable {
    public var copies = 0
    public var crates = 0
    /// API tokens not revoked (a web session's token among them).
    public var tokens = 0
    public var plays = 0

    public init() {}

    static func of(_ db: Database, userId: Int64) throws -> UserHoldings {
        func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql, arguments: [userId]) ?? 0 }
        var holdings = UserHoldings()
        holdings.copies = try count("SELECT COUNT(*) FROM collection_item WHERE user_id = ?")
        holdings.crates = try count("SELECT COUNT(*) FROM crate WHERE user_id = ?")
        holdings.tokens = try count("SELECT COUNT(*) FROM api_token WHERE user_id = ? AND revoked_at IS NULL")
        holdings.plays = try count("SELECT COUNT(*) FROM play_history WHERE user_id = ?")
        return holdings
    }
}

extension AppDatabase {
    /// The user named and what removing them would take with them.
    public func holdings(ofUserNamed name: String) throws -> (user: User, holdings: UserHoldings) {
        try read { db in
            guard let user = try User.named(name).fetchOne(db), let id = user.id else { throw UserError.notFound(name) }
            return (user, try UserHoldings.of(db, userId: id))
        }
    }

    /// Removes the user and everything they own (copies, crates, tokens and web sessions, password,
    /// player and play history), in one transaction. Their albums stay in the catalogue.
    public func removeUser(named name: String) throws -> (user: User, removed: UserHoldings) {
        try writeBlocking { db in
            guard let user = try User.named(name).fetchOne(db), let id = user.id else { throw UserError.notFound(name) }
            let removed = try UserHoldings.of(db, userId: id)
            // Copies and crates go first, so that the grid's triggers keep collection_album as
            // they do for any removed copy; the rest follows the user by ON DELETE CASCADE.
            try db.execute(sql: "DELETE FROM crate WHERE user_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM collection_item WHERE user_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM grid_pending WHERE user_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM user WHERE id = ?", arguments: [id])
            return (user, removed)
        }
    }

    public func addUser(named name: String) throws -> User {
        try writeBlocking { db in try Self.addUser(db, named: name) }
    }

    public func user(named name: String) throws -> User? {
        try read { db in try User.named(name).fetchOne(db) }
    }

    public func users() throws -> [User] {
        try read { db in try User.order(Column("id")).fetchAll(db) }
    }

    static func addUser(_ db: Database, named name: String) throws -> User {
        let name = try User.validate(name: name)
        // Names the user there is: names are unique whatever their case, and `Collector` is taken by `collector`.
        if let existing = try User.named(name).fetchOne(db) { throw UserError.alreadyExists(existing.name) }
        var user = User(name: name)
        try user.insert(db)
        return user
    }

    /// The user a command acts for: the one named (created when `createIfMissing`), else the only user,
    /// else the default user, created on first use.
    package static func resolveUser(_ db: Database, named name: String?, defaultName: String, createIfMissing: Bool) throws -> User {
        if let name {
            if let user = try User.named(name.trimmingCharacters(in: .whitespaces)).fetchOne(db) { return user }
            guard createIfMissing else { throw UserError.notFound(name) }
            return try addUser(db, named: name)
        }
        let all = try User.order(Column("id")).fetchAll(db)
        switch all.count {
        case 0: return try addUser(db, named: defaultName)
        case 1: return all[0]
        default: throw UserError.ambiguousDefault(all.map(\.name))
        }
    }
}
