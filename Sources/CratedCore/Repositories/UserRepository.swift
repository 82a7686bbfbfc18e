import Foundation
import GRDB

public enum UserError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case alreadyExists(String)
    case invalidName(String)
    case ambiguousDefault([String])
    /// A name to be created that is a slip away from a user's: `colector` for `collector`.
    case nearlyNamed(String, existing: String)

    public var description: String {
        switch self {
        case .notFound(let name): "no user named '\(name)'"
        case .alreadyExists(let name): "a user named '\(name)' already exists"
        case .invalidName(let reason): "invalid user name: \(reason)"
        case .ambiguousDefault(let names):
            "this database has several users (\(names.joined(separator: ", "))); name one with --user"
        case .nearlyNamed(let name, let existing):
            "no user named '\(name)'; did you mean '\(existing)'? (to make a new user '\(name)', run `crated user add \(name)` first)"
        }
    }
}

extension User {
    /// User names are what people type on the command line: 1-64 characters, no control characters,
    /// not only spaces, not an option's leading `-`, nothing invisible that could make one name look
    /// like another (`invisible`); stored composed (NFC).
    static func validate(name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw UserError.invalidName("it is empty") }
        guard trimmed.count <= 64 else { throw UserError.invalidName("it is longer than 64 characters") }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw UserError.invalidName("it contains control characters")
        }
        guard !trimmed.hasPrefix("-") else { throw UserError.invalidName("it starts with '-', which commands would read as an option") }
        guard !trimmed.unicodeScalars.contains(where: invisible) else {
            throw UserError.invalidName("it contains an invisible character (such as a direction mark, a zero-width space or a soft hyphen)")
        }
        return trimmed.precomposedStringWithCanonicalMapping
    }

    /// Format characters (direction controls, which can show a name backwards; zero-width spaces,
    /// soft hyphens, tags, which show nothing) and the Hangul fillers, which show as blanks. ZWNJ and
    /// ZWJ stay: some scripts and emoji need them.
    static func invisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value == 0x200C || scalar.value == 0x200D { return false }
        return scalar.properties.generalCategory == .format || [0x115F, 0x1160, 0x3164, 0xFFA0].contains(scalar.value)
    }

    /// The user of this name: as stored, else whatever its case (SQLite's NOCASE folds only ASCII),
    /// else the one user whose name is the same after case folding and Unicode normalisation
    /// (`jürgen` for `Jürgen`, an accent typed decomposed). Users are few: they are compared here.
    static func fetch(_ db: Database, named name: String) throws -> User? {
        if let user = try User.filter(Column("name").collating(.nocase) == name).fetchOne(db) { return user }
        let folded = name.nameFolded
        let matches = try User.fetchAll(db).filter { $0.name.nameFolded == folded }
        return matches.count == 1 ? matches[0] : nil
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
            guard let user = try User.fetch(db, named: name), let id = user.id else { throw UserError.notFound(name) }
            return (user, try UserHoldings.of(db, userId: id))
        }
    }

    /// Removes the user and everything they own (copies, crates, tokens and web sessions, password,
    /// player and play history), in one transaction. Their albums stay in the catalogue.
    public func removeUser(named name: String) throws -> (user: User, removed: UserHoldings) {
        try writeBlocking { db in
            guard let user = try User.fetch(db, named: name), let id = user.id else { throw UserError.notFound(name) }
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
        try read { db in try User.fetch(db, named: name) }
    }

    public func users() throws -> [User] {
        try read { db in try User.order(Column("id")).fetchAll(db) }
    }

    static func addUser(_ db: Database, named name: String) throws -> User {
        let name = try User.validate(name: name)
        // Names the user there is: names are unique whatever their case and however their accents
        // are encoded, so `Collector` is taken by `collector`, and `JÜRGEN` by `Jürgen`.
        if let existing = try User.fetchAll(db).first(where: { $0.name.nameFolded == name.nameFolded }) {
            throw UserError.alreadyExists(existing.name)
        }
        var user = User(name: name)
        try user.insert(db)
        return user
    }

    /// The user a command acts for: the one named (created when `createIfMissing`), else the only user,
    /// else the default user, created on first use.
    package static func resolveUser(_ db: Database, named name: String?, defaultName: String, createIfMissing: Bool) throws -> User {
        if let name {
            if let user = try User.fetch(db, named: name.trimmingCharacters(in: .whitespaces)) { return user }
            guard createIfMissing else { throw UserError.notFound(name) }
            // A mistyped name would otherwise make a second, near-empty collection without a word.
            if let near = try User.fetchAll(db).first(where: { isSlip(name, of: $0.name) }) {
                throw UserError.nearlyNamed(name.trimmingCharacters(in: .whitespaces), existing: near.name)
            }
            return try addUser(db, named: name)
        }
        let all = try User.order(Column("id")).fetchAll(db)
        switch all.count {
        case 0: return try addUser(db, named: defaultName)
        case 1: return all[0]
        default: throw UserError.ambiguousDefault(all.map(\.name))
        }
    }

    /// Whether `name` looks like `existing` mistyped, once both are folded as names are compared: one
    /// edit away (two from a name of six letters or more), with the same digits, since `shelf1` beside
    /// `shelf2` is a series, not a slip. Names of three letters or fewer are too short to tell.
    static func isSlip(_ name: String, of existing: String) -> Bool {
        let typed = Array(name.trimmingCharacters(in: .whitespaces).nameFolded.precomposedStringWithCanonicalMapping)
        let known = Array(existing.nameFolded.precomposedStringWithCanonicalMapping)
        let digits = { (letters: [Character]) in letters.filter(\.isNumber) }
        guard min(typed.count, known.count) > 3, digits(typed) == digits(known) else { return false }
        return editDistance(typed, known) <= (min(typed.count, known.count) >= 6 ? 2 : 1)
    }
}
