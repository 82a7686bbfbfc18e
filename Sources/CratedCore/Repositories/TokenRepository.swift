import Crypto
import Foundation
import Synchronization
import GRDB

/// A token as the owner sees it once, at creation: `crt_<prefix>_<secret>`.
public struct IssuedToken: Sendable {
    public var token: String
    public var record: APIToken
}

/// Who a request acts for, once its bearer token checked out.
public struct Principal: Sendable, Equatable {
    public var userId: Int64
    public var userName: String
    public var tokenId: Int64
    public var scope: TokenScope
}

/// When tokens stop opening the API: each at its own `expires_at`, if it has one, and a token an
/// app signed in for (`POST /v1/tokens`) once it has gone unused for `signInIdleLimit`, so that the
/// token of a phone lost or sold stops by itself while one in use never does.
public struct TokenExpiry: Sendable, Equatable {
    /// Nil: a token an app signed in for does not stop for being unused.
    public var signInIdleLimit: TimeInterval?

    public init(signInIdleLimit: TimeInterval?) {
        self.signInIdleLimit = signInIdleLimit
    }

    /// Tokens stop at their own dates only.
    public static let byDateOnly = TokenExpiry(signInIdleLimit: nil)

    /// When a token stops, in seconds since 1970 (nil: never), from its expiry date, whether an app
    /// signed in for it, and its last use (its creation when never used).
    func end(expiresAt: Int64?, fromSignIn: Bool, lastUsedOrCreated: Int64) -> (seconds: Int64, forIdleness: Bool)? {
        let idleEnd = fromSignIn ? signInIdleLimit.map { lastUsedOrCreated + Int64($0) } : nil
        switch (expiresAt, idleEnd) {
        case (let date?, let idle?): return idle < date ? (idle, true) : (date, false)
        case (let date?, nil): return (date, false)
        case (nil, let idle?): return (idle, true)
        case (nil, nil): return nil
        }
    }

    /// When `token` stops (nil: never), and whether for going unused.
    public func end(of token: APIToken) -> (date: Date, forIdleness: Bool)? {
        let seconds = { (text: String?) in text.flatMap(Timestamp.date(from:)).map { Int64($0.timeIntervalSince1970) } }
        let lastUsedOrCreated = seconds(token.lastUsedAt) ?? seconds(token.createdAt) ?? 0
        return end(expiresAt: seconds(token.expiresAt), fromSignIn: token.fromSignIn, lastUsedOrCreated: lastUsedOrCreated)
            .map { (Date(timeIntervalSince1970: TimeInterval($0.seconds)), $0.forIdleness) }
    }
}

public enum TokenError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case invalidLabel(String)
    /// A whole token whose prefix names a token but whose secret is not that token's.
    case notThisToken(prefix: String)
    /// A token past its expiry date, or an app's unused for too long (`TokenExpiry`); `at` is RFC 3339.
    case expired(at: String, forIdleness: Bool)

    public var description: String {
        switch self {
        case .expired(let at, let forIdleness):
            forIdleness ? "the token expired at \(at), unused for longer than the server keeps an app's sign-in; sign in again"
                        : "the token expired at \(at); ask the server's operator for a new one"
        case .notFound(let prefix):
            "no token with the prefix '\(prefix)'\(prefix.count == 12 ? "" : " (a prefix is the whole 12 characters crated token list shows)")"
        case .notThisToken(let prefix): "the token given is not token \(prefix) (its secret differs): nothing revoked; give the prefix alone to revoke \(prefix)"
        case .invalidLabel(let reason): "invalid token label: \(reason)"
        }
    }
}

/// What a token's label may be, from the command line or an app's sign-in: `crated token list`
/// prints it, so it is one line without control or format characters (escapes, bidi overrides),
/// but for those that join emoji and letters (a device named "Dev 👨‍💻 iPad", a flag's tags).
public enum TokenLabel {
    public static let rule = "one line of 1 to 100 characters, without control characters"

    public static func isAcceptable(_ label: String) -> Bool {
        !label.isEmpty && label.count <= 100 && !label.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            case .format: !joining.contains { $0.contains(scalar.value) }
            default: false
            }
        }
    }

    /// Zero-width non-joiner and joiner, and the tag characters of subdivision flags.
    private static let joining: [ClosedRange<UInt32>] = [0x200C...0x200D, 0xE0020...0xE007F]
}

extension AppDatabase {
    /// Creates a token: 12 random hex digits of public prefix (to find it) and 32 random bytes of
    /// secret. Only the SHA-256 of the whole token is stored.
    /// - Parameter expiresAt: when it stops opening the API; nil, never.
    public func createToken(userName: String, scope: TokenScope, label: String?, expiresAt: Date? = nil) throws -> IssuedToken {
        if let label, !TokenLabel.isAcceptable(label) { throw TokenError.invalidLabel(TokenLabel.rule) }
        return try writeBlocking { db in
            guard let user = try User.fetch(db, named: userName) else { throw UserError.notFound(userName) }
            return try Self.createToken(db, userId: user.id!, scope: scope, label: label, expiresAt: expiresAt)
        }
    }

    /// A token an app signs in for with its user's password (`POST /v1/tokens`), which a new
    /// password revokes.
    public func createSignInToken(userId: Int64, scope: TokenScope, label: String) async throws -> IssuedToken {
        try await write { db in try Self.createToken(db, userId: userId, scope: scope, label: label, fromSignIn: true) }
    }

    static func createToken(_ db: Database, userId: Int64, scope: TokenScope, label: String?, fromSignIn: Bool = false,
                            expiresAt: Date? = nil) throws -> IssuedToken {
        let prefix = TokenSecret.randomHex(bytes: 6)
        let token = "crt_\(prefix)_\(TokenSecret.random(bytes: 32))"
        var record = APIToken(
            id: nil, userId: userId, label: label, tokenHash: TokenSecret.hash(token), tokenPrefix: prefix,
            scope: scope, createdAt: Timestamp.now(), lastUsedAt: nil, revokedAt: nil, fromSignIn: fromSignIn,
            expiresAt: expiresAt.map(Timestamp.string(from:)))
        try record.insert(db)
        return IssuedToken(token: token, record: record)
    }

    /// On a database without users (a fresh install): creates the default user and a write token for it.
    public func bootstrapDefaultUser(named name: String) throws -> (user: User, token: IssuedToken)? {
        try writeBlocking { db in
            guard try User.fetchCount(db) == 0 else { return nil }
            let user = try Self.addUser(db, named: name)
            return (user, try Self.createToken(db, userId: user.id!, scope: .write, label: "created by serve on first start"))
        }
    }

    /// The users, when none of them can get in: no token that opens the API and no password (for the
    /// web client or an app's sign-in). Empty when someone can, or there are no users.
    public func usersWithNoWayIn(now: Date = Date()) throws -> [String] {
        try read { db in
            let wayIn = try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM api_token WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?))
                    OR EXISTS (SELECT 1 FROM user_password)
                """, arguments: [Timestamp.string(from: now)]) ?? false
            return wayIn ? [] : try String.fetchAll(db, sql: "SELECT name FROM user ORDER BY id")
        }
    }

    /// Every token (or a user's), with its user's name and, for a web session's token, when the
    /// session ends.
    public func tokens(userName: String? = nil) throws -> [(token: APIToken, userName: String, sessionExpiresAt: String?)] {
        try read { db in
            var sql = """
                SELECT api_token.*, user.name AS user_name, web_session.expires_at AS session_expires_at
                FROM api_token JOIN user ON user.id = api_token.user_id LEFT JOIN web_session ON web_session.token_id = api_token.id
                """
            var arguments: StatementArguments = []
            if let userName {
                // A name no one has is a mistake to say, not an empty list.
                guard let user = try User.fetch(db, named: userName) else { throw UserError.notFound(userName) }
                sql += " WHERE api_token.user_id = ?"
                arguments = [user.id!]
            }
            return try Row.fetchAll(db, sql: sql + " ORDER BY api_token.id", arguments: arguments).map {
                (try APIToken(row: $0), $0["user_name"], $0["session_expires_at"])
            }
        }
    }

    /// Revokes the token whose prefix (or whole token) is given. Revoked tokens stay listed.
    /// The prefix may come as `token list` shows it or as the token begins (`crt_<prefix>`).
    /// `wasActive` is false for a token revoked before, which keeps its first revocation time.
    public func revokeToken(_ prefixOrToken: String) throws -> (token: APIToken, wasActive: Bool) {
        let wholeToken = TokenSecret.prefix(of: prefixOrToken) != nil
        let prefix = TokenSecret.prefix(of: prefixOrToken) ?? String(prefixOrToken.trimmingPrefix("crt_"))
        return try writeBlocking { db in
            guard var token = try APIToken.filter(Column("token_prefix") == prefix).fetchOne(db) else { throw TokenError.notFound(prefix) }
            // A mistyped whole token must not revoke the one its prefix happens to name.
            if wholeToken, token.tokenHash != TokenSecret.hash(prefixOrToken) { throw TokenError.notThisToken(prefix: prefix) }
            guard token.revokedAt == nil else { return (token, false) }
            token.revokedAt = Timestamp.now()
            try token.update(db)
            return (token, true)
        }
    }

    /// Revokes the token of this id (an app signing out with it); a token revoked before keeps its
    /// first revocation time.
    public func revokeToken(id: Int64) async throws {
        try await write { db in
            try db.execute(sql: "UPDATE api_token SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [Timestamp.now(), id])
        }
    }

    /// The principal for a presented bearer token, or nil when it is unknown, malformed or revoked;
    /// throws `TokenError.expired` for one that `expiry` has ended.
    /// `last_used_at` is written at most once a minute per token, so reads stay reads.
    public func authenticate(bearer token: String, expiry: TokenExpiry = .byDateOnly, now: Date = Date()) throws -> Principal? {
        guard let prefix = TokenSecret.prefix(of: token) else { return nil }
        // Every API request runs this: one cached statement, read outside a transaction (a single
        // SELECT is consistent on its own, and BEGIN/COMMIT would double the work). SQLite reads
        // the times as seconds, cheaper than parsing the timestamps here.
        let found = try unsafeRead { db in
            try db.firstRow("""
                SELECT api_token.id, api_token.user_id, api_token.scope, api_token.token_hash,
                       unixepoch(api_token.last_used_at), user.name, unixepoch(api_token.created_at),
                       api_token.from_sign_in, unixepoch(api_token.expires_at)
                FROM api_token JOIN user ON user.id = api_token.user_id
                WHERE token_prefix = ? AND revoked_at IS NULL
                """, arguments: [prefix]) { columns in
                (principal: Principal(userId: try columns.int64(1), userName: try columns.string(5), tokenId: try columns.int64(0),
                                      scope: try columns.value(2)),
                 hash: try columns.data(3), lastUsed: try columns.optionalInt64(4), created: try columns.int64(6),
                 fromSignIn: try columns.int64(7) != 0, expiresAt: try columns.optionalInt64(8))
            }
        }
        guard let found, TokenSecret.token(token, hasHash: found.hash) else { return nil }
        let seconds = Int64(now.timeIntervalSince1970)
        if let end = expiry.end(expiresAt: found.expiresAt, fromSignIn: found.fromSignIn, lastUsedOrCreated: found.lastUsed ?? found.created),
           seconds >= end.seconds {
            throw TokenError.expired(at: Timestamp.string(fromEpochSeconds: end.seconds), forIdleness: end.forIdleness)
        }
        noteUse(tokenId: found.principal.tokenId, lastUsed: found.lastUsed, now: seconds)
        return found.principal
    }

    /// Notes a use of the token when its last recorded one is a minute old or more (or none).
    /// Noted, not written: a request never waits for the write lock (an import may hold it for
    /// seconds) to record a use. `recordTokenUses()` writes them.
    func noteUse(tokenId: Int64, lastUsed: Int64?, now: Int64) {
        if lastUsed.map({ now - $0 >= 60 }) ?? true { tokenUses.note(tokenId: tokenId, at: now) }
    }

    /// Writes the token uses noted since the last call, in one transaction, waiting for the write
    /// lock on GRDB's writer queue rather than on the caller's thread. When the lock cannot be had
    /// within the busy timeout, the uses stay noted for the next call; it never throws for that.
    public func recordTokenUses() async {
        let uses = tokenUses.take()
        guard !uses.isEmpty else { return }
        do {
            try await write { db in
                for (tokenId, seconds) in uses {
                    try db.execute(sql: "UPDATE api_token SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
                                   arguments: [Timestamp.string(fromEpochSeconds: seconds), tokenId, Timestamp.string(fromEpochSeconds: seconds)])
                }
            }
        } catch {
            tokenUses.restore(uses)
        }
    }

    /// Gives each token an app signed in for that has gone unused past `expiry`'s idle days an
    /// expiry date of that moment, so that it stays stopped when the setting is raised or turned
    /// off later: a lost phone's token must not come back. The daemon runs this at start and hourly.
    /// Returns how many it stopped.
    @discardableResult
    public func settleIdleSignInTokens(expiry: TokenExpiry, now: Date = Date()) async throws -> Int {
        guard let idle = expiry.signInIdleLimit else { return 0 }
        return try await write { db in
            try db.execute(sql: """
                UPDATE api_token SET expires_at = strftime('%Y-%m-%dT%H:%M:%SZ', unixepoch(COALESCE(last_used_at, created_at)) + ?1, 'unixepoch')
                WHERE from_sign_in = 1 AND revoked_at IS NULL
                  AND unixepoch(COALESCE(last_used_at, created_at)) + ?1 <= ?2
                  AND (expires_at IS NULL OR unixepoch(expires_at) > unixepoch(COALESCE(last_used_at, created_at)) + ?1)
                """, arguments: [Int64(idle), Int64(now.timeIntervalSince1970)])
            return db.changesCount
        }
    }

    /// Whether the token still opens the API: not revoked, not past its expiry date, its user still
    /// there, and not the token of a web session that has expired (a session's row stays until its
    /// user signs in again). An event stream asks this every few seconds while it is open, and a
    /// stream open on a token is a use of it: an active token's use is noted, so it does not go idle.
    public func isTokenActive(id: Int64, now: Date = Date()) throws -> Bool {
        // No row: not active. A row: active, last used then (nil: never).
        let row: Int64?? = try unsafeRead { db in
            try db.firstRow("""
                SELECT unixepoch(last_used_at) FROM api_token WHERE id = ?1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)
                AND NOT EXISTS (SELECT 1 FROM web_session WHERE token_id = api_token.id AND expires_at <= ?2)
                """, arguments: [id, Timestamp.string(from: now)]) { try $0.optionalInt64(0) }
        }
        guard let lastUsed = row else { return false }
        noteUse(tokenId: id, lastUsed: lastUsed, now: Int64(now.timeIntervalSince1970))
        return true
    }
}

enum TokenSecret {
    static func random(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func hash(_ token: String) -> Data { Data(SHA256.hash(data: Data(token.utf8))) }

    /// `crt_<prefix>_<secret>` -> prefix; nil for anything else.
    static func prefix(of token: String) -> String? {
        // Byte by byte: the secret is base64url and may itself contain "_", so only the first two
        // separators count.
        let bytes = token.utf8
        guard bytes.count > 17, bytes.starts(with: "crt_".utf8) else { return nil }
        let prefixStart = bytes.index(bytes.startIndex, offsetBy: 4)
        let prefixEnd = bytes.index(prefixStart, offsetBy: 12)
        // Prefixes are hex: letters and digits only, so the slice below falls on character boundaries.
        guard bytes[prefixEnd] == UInt8(ascii: "_"),
              bytes[prefixStart..<prefixEnd].allSatisfy(isASCIILetterOrDigit)
        else { return nil }
        return String(token[prefixStart..<prefixEnd])
    }

    private static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Whether `token` hashes to `storedHash`, in time that does not depend on where they differ. On
    /// every API request: compared in place, without a `Data` of the digest or Data's iterator.
    static func token(_ token: String, hasHash storedHash: Data) -> Bool {
        SHA256.hash(data: Array(token.utf8)).withUnsafeBytes { digest in
            storedHash.withUnsafeBytes { stored in constantTimeEqual(digest, stored) }
        }
    }

    static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

/// Token uses noted by `authenticate(bearer:)` and not yet written, by token: the latest of each.
final class TokenUses: Sendable {
    private let pending = Mutex<[Int64: Int64]>([:])

    func note(tokenId: Int64, at seconds: Int64) {
        pending.withLock { $0[tokenId] = max($0[tokenId] ?? seconds, seconds) }
    }

    func take() -> [Int64: Int64] {
        pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
    }

    /// Puts back uses whose write failed; a newer use noted meanwhile wins.
    func restore(_ uses: [Int64: Int64]) {
        pending.withLock { pending in pending.merge(uses) { max($0, $1) } }
    }
}
