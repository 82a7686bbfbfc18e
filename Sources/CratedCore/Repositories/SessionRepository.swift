import Crypto
import Foundation
import GRDB
import HummingbirdBcrypt

/// The rules a web sign-in password must meet (`crated user passwd`).
public enum PasswordRules {
    public static let minimumCharacters = 8
    /// bcrypt reads at most 72 bytes: a longer password would be cut short without a word, so it is
    /// refused instead.
    public static let maximumBytes = 72
    /// The work factor of new hashes: about a quarter of a second on one core of a small server.
    public static let cost: UInt8 = 12

    /// Throws `PasswordError` for a password that breaks a rule.
    public static func check(_ password: String) throws {
        guard password.count >= minimumCharacters else { throw PasswordError.tooShort }
        guard password.utf8.count <= maximumBytes else { throw PasswordError.tooLong }
        guard !password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw PasswordError.controlCharacters
        }
        guard password.contains(where: { !$0.isWhitespace }) else { throw PasswordError.onlySpaces }
    }
}

public enum PasswordError: Error, Equatable, CustomStringConvertible {
    case tooShort, tooLong, controlCharacters, onlySpaces

    public var description: String {
        switch self {
        case .tooShort: "the password must have at least \(PasswordRules.minimumCharacters) characters"
        case .tooLong: "the password must be at most \(PasswordRules.maximumBytes) bytes in UTF-8 (bcrypt reads no further)"
        case .controlCharacters: "the password must not contain control characters"
        case .onlySpaces: "the password must not be only spaces"
        }
    }
}

/// A session just created: the cookie's value, shown once and stored only as a hash.
public struct IssuedSession: Sendable {
    public var secret: String
    public var csrfToken: String
    public var expiresAt: Date
    public var principal: Principal
}

/// The caller behind a session cookie.
public struct SessionPrincipal: Sendable, Equatable {
    public var principal: Principal
    public var sessionId: Int64
    /// What a write made with the cookie must carry in `X-CSRF-Token`.
    public var csrfToken: String
    public var expiresAt: String
}

extension AppDatabase {
    /// The label of the api_token row behind each session (`crated token list` shows it).
    public static let sessionTokenLabel = "web session"

    /// Sets (or replaces) a user's sign-in password, stored as a bcrypt hash, and ends the user's
    /// sessions and the tokens apps signed in for: a changed password signs every browser and app
    /// out. `cost` is for tests.
    public func setPassword(userName: String, password: String, cost: UInt8 = PasswordRules.cost) throws {
        try PasswordRules.check(password)
        let hash = Bcrypt.hash(password, cost: cost)
        try writeBlocking { db in
            guard let user = try User.fetch(db, named: userName.trimmingCharacters(in: .whitespaces)) else { throw UserError.notFound(userName) }
            try db.execute(
                sql: "INSERT INTO user_password (user_id, hash, changed_at) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET hash = excluded.hash, changed_at = excluded.changed_at",
                arguments: [user.id!, hash, Timestamp.now()])
            try db.execute(sql: "DELETE FROM api_token WHERE id IN (SELECT token_id FROM web_session WHERE user_id = ?)", arguments: [user.id!])
            // The apps signed in with the old password sign in again.
            try db.execute(sql: "UPDATE api_token SET revoked_at = ? WHERE user_id = ? AND from_sign_in AND revoked_at IS NULL",
                           arguments: [Timestamp.now(), user.id!])
        }
    }

    /// Whether the user has a web sign-in password.
    public func hasPassword(userName: String) throws -> Bool {
        try read { db in
            guard let user = try User.fetch(db, named: userName) else { return false }
            return try Bool.fetchOne(db, sql: "SELECT 1 FROM user_password WHERE user_id = ?", arguments: [user.id!]) ?? false
        }
    }

    /// The user whose name and password these are, or nil. A user who does not exist or has no
    /// password costs one bcrypt check as well, so the answer's time does not tell which users exist.
    /// Slow on purpose (a quarter of a second): call it off the event loops.
    public func verifyPassword(userName: String, password: String) throws -> User? {
        let found = try read { db -> (User, String)? in
            guard let user = try User.fetch(db, named: userName.trimmingCharacters(in: .whitespaces)),
                  let hash = try String.fetchOne(db, sql: "SELECT hash FROM user_password WHERE user_id = ?", arguments: [user.id!])
            else { return nil }
            return (user, hash)
        }
        guard password.utf8.count <= PasswordRules.maximumBytes, let (user, hash) = found else {
            _ = Bcrypt.verify(password, hash: DummyPasswordHash.value)
            return nil
        }
        return Bcrypt.verify(password, hash: hash) ? user : nil
    }

    /// Starts a session for a user, lasting `lifetime` from `now`: a new write-scope api_token row
    /// labelled as a web session, and the session with its cookie secret (stored as a SHA-256) and
    /// CSRF token. Ended and expired sessions are cleared on the way.
    public func createSession(userId: Int64, lifetime: TimeInterval, now: Date = Date()) async throws -> IssuedSession {
        let secret = TokenSecret.random(bytes: 32)
        let csrf = TokenSecret.random(bytes: 24)
        let expires = now.addingTimeInterval(lifetime)
        return try await write { db in
            try Self.deleteEndedSessions(db, now: now)
            guard let user = try User.fetchOne(db, key: userId) else { throw UserError.notFound("#\(userId)") }
            let token = try Self.createToken(db, userId: userId, scope: .write, label: Self.sessionTokenLabel)
            try db.execute(
                sql: "INSERT INTO web_session (user_id, token_id, secret_hash, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [userId, token.record.id!, TokenSecret.hash(secret), csrf, Timestamp.string(from: now), Timestamp.string(from: expires)])
            return IssuedSession(
                secret: secret, csrfToken: csrf, expiresAt: expires,
                principal: Principal(userId: userId, userName: user.name, tokenId: token.record.id!, scope: .write))
        }
    }

    /// The session a cookie's value opens, or nil when it is unknown, expired, signed out, or its
    /// token was revoked. Its use is noted on its token, as a bearer token's is (`crated token list`
    /// shows when a session was last used).
    public func authenticate(sessionSecret secret: String, now: Date = Date()) throws -> SessionPrincipal? {
        // Secrets are 43 base64url characters; anything else is no session and costs no query.
        guard secret.utf8.count == 43, secret.utf8.allSatisfy(Self.isBase64URL) else { return nil }
        let found = try unsafeRead { db in
            try Row.fetchOne(db.cachedStatement(sql: """
                SELECT web_session.id, web_session.csrf_token, web_session.expires_at, web_session.token_id, user.id, user.name,
                       unixepoch(api_token.last_used_at)
                FROM web_session
                JOIN api_token ON api_token.id = web_session.token_id AND api_token.revoked_at IS NULL
                JOIN user ON user.id = web_session.user_id
                WHERE web_session.secret_hash = ? AND web_session.expires_at > ?
                """), arguments: [TokenSecret.hash(secret), Timestamp.string(from: now)]).map { row in
                (SessionPrincipal(
                    principal: Principal(userId: row[4], userName: row[5], tokenId: row[3], scope: .write),
                    sessionId: row[0], csrfToken: row[1], expiresAt: row[2]),
                 lastUsed: row[6] as Int64?)
            }
        }
        guard let (session, lastUsed) = found else { return nil }
        noteUse(tokenId: session.principal.tokenId, lastUsed: lastUsed, now: Int64(now.timeIntervalSince1970))
        return session
    }

    /// Ends a session (sign-out): its token row goes, and the session with it, so a stream opened
    /// with the cookie ends within two seconds and the cookie opens nothing again.
    public func endSession(id: Int64) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM api_token WHERE id = (SELECT token_id FROM web_session WHERE id = ?)", arguments: [id])
        }
    }

    /// The number of sessions that would open the API now, per user name (for `crated user list`
    /// and the tests).
    public func activeSessionCount(userName: String, now: Date = Date()) throws -> Int {
        try read { db in
            guard let user = try User.fetch(db, named: userName) else { return 0 }
            return try Int.fetchOne(db, sql: """
                SELECT count(*) FROM web_session
                JOIN api_token ON api_token.id = web_session.token_id AND api_token.revoked_at IS NULL
                WHERE web_session.user_id = ? AND web_session.expires_at > ?
                """, arguments: [user.id!, Timestamp.string(from: now)]) ?? 0
        }
    }

    /// Expired sessions and those whose token was revoked open nothing; their token rows go.
    static func deleteEndedSessions(_ db: Database, now: Date) throws {
        try db.execute(sql: """
            DELETE FROM api_token WHERE id IN (
                SELECT web_session.token_id FROM web_session JOIN api_token ON api_token.id = web_session.token_id
                WHERE web_session.expires_at <= ? OR api_token.revoked_at IS NOT NULL)
            """, arguments: [Timestamp.string(from: now)])
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}

/// A bcrypt hash of no one's password, checked when the user has none, so that a sign-in for a user
/// who does not exist takes as long as one for a user who does. Made once, at the real cost.
private enum DummyPasswordHash {
    static let value = Bcrypt.hash(TokenSecret.random(bytes: 16), cost: PasswordRules.cost)
}
