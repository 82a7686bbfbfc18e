import GRDB

/// Why a Discogs account could not be linked to a user.
public enum DiscogsLinkError: Error, Equatable, CustomStringConvertible {
    case invalidName
    case linkedToAnother(discogsUser: String, userName: String)

    public var description: String {
        switch self {
        case .invalidName: "a Discogs user name is 1 to 100 characters, not only spaces"
        case .linkedToAnother(let discogsUser, let userName):
            "the Discogs user '\(discogsUser)' is linked to \(userName); unlink it first (crated user unlink \(userName.shellWord))"
        }
    }
}

/// Which Discogs account each user's collection is (Migrations/0029_discogs_links.sql).
extension AppDatabase {
    /// A Discogs user name as the API and the commands take it: trimmed, 1 to 100 characters.
    public static func validDiscogsUser(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.count > 100 ? nil : trimmed
    }

    /// Links the user to a Discogs account, in place of their link before. An account is linked to
    /// one user at most.
    public func linkDiscogsUser(_ discogsUser: String, toUserNamed name: String) throws -> User {
        guard let discogsUser = Self.validDiscogsUser(discogsUser) else { throw DiscogsLinkError.invalidName }
        return try writeBlocking { db in
            guard let user = try User.fetch(db, named: name), let id = user.id else { throw UserError.notFound(name) }
            if let other = try String.fetchOne(db, sql: """
                SELECT u.name FROM discogs_link l JOIN user u ON u.id = l.user_id WHERE l.discogs_user = ? COLLATE NOCASE AND l.user_id != ?
                """, arguments: [discogsUser, id]) {
                throw DiscogsLinkError.linkedToAnother(discogsUser: discogsUser, userName: other)
            }
            try db.execute(sql: "INSERT OR REPLACE INTO discogs_link (user_id, discogs_user) VALUES (?, ?)", arguments: [id, discogsUser])
            return user
        }
    }

    /// Removes the user's link; returns the account they were linked to, if any.
    public func unlinkDiscogsUser(ofUserNamed name: String) throws -> (user: User, discogsUser: String?) {
        try writeBlocking { db in
            guard let user = try User.fetch(db, named: name), let id = user.id else { throw UserError.notFound(name) }
            let linked = try String.fetchOne(db, sql: "SELECT discogs_user FROM discogs_link WHERE user_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM discogs_link WHERE user_id = ?", arguments: [id])
            return (user, linked)
        }
    }

    /// The Discogs account linked to the user, if any.
    public func linkedDiscogsUser(userId: Int64) throws -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT discogs_user FROM discogs_link WHERE user_id = ?", arguments: [userId]) }
    }

    /// Every link, by user id.
    public func discogsLinks() throws -> [Int64: String] {
        try read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT user_id, discogs_user FROM discogs_link").map {
                ($0[0] as Int64, $0[1] as String)
            })
        }
    }
}
