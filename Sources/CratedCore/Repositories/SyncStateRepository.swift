import Foundation
import GRDB

/// Where an album stands with metadata sync.
public enum AlbumSyncStatus: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    case never, synced, failed
    case notFound = "not_found"
}

/// The `album_sync` row of one album.
public struct AlbumSyncState: CratedRecord, Equatable {
    public var albumId: Int64
    public var status: AlbumSyncStatus
    public var attempts: Int
    public var lastError: String?
    public var nextAttemptAt: String?
    public var etag: String?
    public var lastSyncedAt: String?
    public var lastAttemptAt: String?
    /// The last release fetched had images whose URLs Discogs left blank (see `albumsDueForSync`).
    public var imagesWithheld: Bool

    public static let databaseTableName = "album_sync"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case albumId = "album_id", status, attempts, lastError = "last_error", nextAttemptAt = "next_attempt_at"
        case etag, lastSyncedAt = "last_synced_at", lastAttemptAt = "last_attempt_at", imagesWithheld = "images_withheld"
    }

    public enum Columns {
        public static let albumId = Column(CodingKeys.albumId)
        public static let status = Column(CodingKeys.status)
        public static let attempts = Column(CodingKeys.attempts)
        public static let lastError = Column(CodingKeys.lastError)
        public static let nextAttemptAt = Column(CodingKeys.nextAttemptAt)
        public static let etag = Column(CodingKeys.etag)
        public static let lastSyncedAt = Column(CodingKeys.lastSyncedAt)
        public static let imagesWithheld = Column(CodingKeys.imagesWithheld)
        public static let lastAttemptAt = Column(CodingKeys.lastAttemptAt)
    }
}

/// An album that a sync pass should fetch.
public struct SyncCandidate: Sendable, Equatable {
    public var albumId: Int64
    public var releaseId: Int64
    public var status: AlbumSyncStatus
    /// Sent as `If-None-Match`; only an album that was synced has one.
    public var etag: String?
}

/// An album whose last sync attempt failed, and when it is tried again.
public struct FailedAlbumSync: Codable, Sendable, Equatable {
    public var albumId: Int64
    public var releaseId: Int64
    public var title: String
    /// Why, for a person.
    public var error: String
    /// Failed attempts in a row.
    public var attempts: Int
    public var lastAttemptAt: String?
    /// When a scheduled pass tries it again (a pass someone asks for tries it at once).
    public var nextAttemptAt: String?
}

/// How many albums (with a Discogs release id) are in each sync state.
public struct SyncStateCounts: Codable, Sendable, Equatable {
    public var never = 0
    /// Synced, stale ones included.
    public var synced = 0
    /// Synced longer ago than the staleness period.
    public var stale = 0
    public var failed = 0
    public var notFound = 0
    /// What a pass started now would fetch: never synced, stale, or failed or not found and due
    /// (and with a Discogs token, those whose images Discogs withheld).
    public var due = 0
    /// Synced albums whose images Discogs withheld: it blanks their URLs without a token. A pass with
    /// a token fetches them again.
    public var imagesWithheld = 0

    public init() {}
}

extension AppDatabase {
    /// The albums a pass should fetch, most urgent first: never synced, then failed and due, then
    /// stale (oldest first), then not found and due. `userId` limits them to one user's collection.
    /// With `imagesWithheldAreDue` (sync has a Discogs token), a synced album whose images Discogs
    /// withheld is due too, without its ETag: the same release would answer 304.
    /// With `failedAreDue` (a pass someone asked for), an album whose last attempt failed is due
    /// before its backoff ends: its user wants it tried now.
    public func albumsDueForSync(now: Date, staleBefore: Date, userId: Int64? = nil, limit: Int? = nil,
                                 imagesWithheldAreDue: Bool = false, failedAreDue: Bool = false) throws -> [SyncCandidate] {
        var arguments: StatementArguments = [Timestamp.string(from: staleBefore), Timestamp.string(from: now)]
        var userFilter = ""
        if let userId {
            userFilter = "AND EXISTS (SELECT 1 FROM collection_item ci WHERE ci.album_id = a.id AND ci.user_id = ?)"
            arguments += [userId]
        }
        arguments += [limit ?? -1]  // SQLite: a negative LIMIT is no limit
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.id, a.discogs_release_id, COALESCE(s.status, 'never') AS status,
                       \(imagesWithheldAreDue ? "CASE WHEN s.images_withheld THEN NULL ELSE s.etag END" : "s.etag") AS etag
                FROM album a LEFT JOIN album_sync s ON s.album_id = a.id
                WHERE a.discogs_release_id IS NOT NULL
                  AND (\(Self.dueCondition(imagesWithheldAreDue: imagesWithheldAreDue))\(failedAreDue ? " OR s.status = 'failed'" : ""))
                  \(userFilter)
                ORDER BY CASE COALESCE(s.status, 'never') WHEN 'never' THEN 0 WHEN 'failed' THEN 1 WHEN 'synced' THEN 2 ELSE 3 END,
                         s.last_synced_at, a.id
                LIMIT ?
                """, arguments: arguments).map { row in
                SyncCandidate(albumId: row["id"], releaseId: row["discogs_release_id"], status: row["status"], etag: row["etag"])
            }
        }
    }

    /// `s` is the album's `album_sync` row (null when never tried); the two arguments are the
    /// staleness cut-off and now.
    private static func dueCondition(imagesWithheldAreDue: Bool) -> String {
        """
        (s.album_id IS NULL OR s.status = 'never'
         OR (s.status = 'synced' AND (s.last_synced_at <= ?1\(imagesWithheldAreDue ? " OR s.images_withheld" : "")))
         OR (s.status IN ('failed', 'not_found') AND s.next_attempt_at <= ?2))
        """
    }

    /// Albums by sync state: the whole catalogue's, or with `userId` those in that user's collection.
    public func syncStateCounts(now: Date, staleBefore: Date, userId: Int64? = nil, imagesWithheldAreDue: Bool = false) throws -> SyncStateCounts {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT
                    COUNT(*) FILTER (WHERE s.album_id IS NULL OR s.status = 'never') AS never,
                    COUNT(*) FILTER (WHERE s.status = 'synced') AS synced,
                    COUNT(*) FILTER (WHERE s.status = 'synced' AND s.last_synced_at <= ?1) AS stale,
                    COUNT(*) FILTER (WHERE s.status = 'failed') AS failed,
                    COUNT(*) FILTER (WHERE s.status = 'not_found') AS not_found,
                    COUNT(*) FILTER (WHERE \(Self.dueCondition(imagesWithheldAreDue: imagesWithheldAreDue))) AS due,
                    COUNT(*) FILTER (WHERE s.status = 'synced' AND s.images_withheld) AS images_withheld
                FROM album a LEFT JOIN album_sync s ON s.album_id = a.id
                WHERE a.discogs_release_id IS NOT NULL
                  AND (?3 IS NULL OR EXISTS (SELECT 1 FROM collection_album ca WHERE ca.user_id = ?3 AND ca.album_id = a.id))
                """, arguments: [Timestamp.string(from: staleBefore), Timestamp.string(from: now), userId])!
            var counts = SyncStateCounts()
            counts.never = row["never"]
            counts.synced = row["synced"]
            counts.stale = row["stale"]
            counts.failed = row["failed"]
            counts.notFound = row["not_found"]
            counts.due = row["due"]
            counts.imagesWithheld = row["images_withheld"]
            return counts
        }
    }

    /// Albums whose last sync attempt failed, the soonest to be tried again first: the whole
    /// catalogue's, or with `userId` that user's. `GET /v1/sync` lists them: a pass's own report
    /// names only the failures of that pass.
    public func failedAlbumSyncs(userId: Int64?, limit: Int) throws -> [FailedAlbumSync] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT a.id, a.discogs_release_id, a.title, s.last_error, s.attempts, s.last_attempt_at, s.next_attempt_at
                FROM album_sync s JOIN album a ON a.id = s.album_id
                WHERE s.status = 'failed' AND a.discogs_release_id IS NOT NULL
                  \(userId == nil ? "" : "AND EXISTS (SELECT 1 FROM collection_album ca WHERE ca.album_id = a.id AND ca.user_id = ?)")
                ORDER BY s.next_attempt_at, a.id
                LIMIT ?
                """, arguments: StatementArguments((userId.map { [$0] } ?? []) + [Int64(limit)])).map { row in
                FailedAlbumSync(albumId: row[0], releaseId: row[1], title: row[2], error: row[3] ?? "unknown", attempts: row[4],
                                lastAttemptAt: row[5], nextAttemptAt: row[6])
            }
        }
    }

    /// Which of these albums the user owns a copy of.
    public func albumsOwned(byUser userId: Int64, among albumIds: [Int64]) throws -> Set<Int64> {
        guard !albumIds.isEmpty else { return [] }
        return try read { db in
            Set(try Int64.fetchAll(db, sql: """
                SELECT album_id FROM collection_album WHERE user_id = ? AND album_id IN (\(sqlQuestionMarks(count: albumIds.count)))
                """, arguments: StatementArguments([userId] + albumIds)))
        }
    }

    /// Which of these image URLs belong to an album the user owns a copy of.
    public func imageURLsOwned(byUser userId: Int64, among urls: [String]) throws -> Set<String> {
        guard !urls.isEmpty else { return [] }
        return try read { db in
            let marks = sqlQuestionMarks(count: urls.count)
            let rows = try Row.fetchAll(db, sql: """
                SELECT ai.uri, ai.uri150 FROM album_image ai JOIN collection_album ca ON ca.album_id = ai.album_id
                WHERE ca.user_id = ? AND (ai.uri IN (\(marks)) OR ai.uri150 IN (\(marks)))
                """, arguments: StatementArguments([userId] as [any DatabaseValueConvertible] + urls + urls))
            return Set(rows.flatMap { [$0[0] as String?, $0[1] as String?].compactMap { $0 } }).intersection(urls)
        }
    }

    /// A 304: the album is as Discogs has it; only its freshness changes.
    static func markSyncNotModified(_ db: Database, albumId: Int64, at now: String) throws {
        try db.cachedStatement(sql: """
            UPDATE album_sync SET status = 'synced', attempts = 0, last_error = NULL, next_attempt_at = NULL,
                                  last_synced_at = ?1, last_attempt_at = ?1
            WHERE album_id = ?2
            """).execute(arguments: [now, albumId])
    }

    static func markSynced(_ db: Database, albumId: Int64, etag: String?, imagesWithheld: Bool, at now: String) throws {
        try db.cachedStatement(sql: """
            INSERT INTO album_sync (album_id, status, attempts, last_error, next_attempt_at, etag, last_synced_at, last_attempt_at, images_withheld)
            VALUES (?1, 'synced', 0, NULL, NULL, ?2, ?3, ?3, ?4)
            ON CONFLICT (album_id) DO UPDATE SET
                status = 'synced', attempts = 0, last_error = NULL, next_attempt_at = NULL,
                etag = ?2, last_synced_at = ?3, last_attempt_at = ?3, images_withheld = ?4
            """).execute(arguments: [albumId, etag, now, imagesWithheld])
    }

    static func upsertSyncState(
        _ db: Database, albumId: Int64, status: AlbumSyncStatus, error: String, at date: Date, nextAttempt: Date, countsAsAttempt: Bool
    ) throws {
        let now = Timestamp.string(from: date)
        // The ETag is kept: the data it names is still what the album holds.
        try db.cachedStatement(sql: """
            INSERT INTO album_sync (album_id, status, attempts, last_error, next_attempt_at, last_attempt_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (album_id) DO UPDATE SET
                status = ?2, attempts = attempts + ?3, last_error = ?4, next_attempt_at = ?5, last_attempt_at = ?6
            """).execute(arguments: [albumId, status, countsAsAttempt ? 1 : 0, error, Timestamp.string(from: nextAttempt), now])
    }
}
