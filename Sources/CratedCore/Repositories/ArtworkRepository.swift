import Foundation
import GRDB

/// crated's copy of one cover source (Migrations/0011_artwork.sql).
public struct ArtworkRecord: CratedRecord, Identifiable, Equatable {
    public var id: Int64?
    public var sourceURL: String
    public var key: String
    public var sha256: String?
    public var bytes: Int?
    public var format: String?
    public var width: Int?
    public var height: Int?
    public var color: String?
    public var etag: String?
    public var lastModified: String?
    public var fetchedAt: String?
    public var failures: Int
    public var lastError: String?
    public var retryAt: String?
    public var usedAt: String?
    /// The host had no usable image and no original is kept: answers show no cover (0023).
    public var unusable: Bool
    /// The last fetch failed because the host failed every request, not this image (0039).
    public var hostFailed: Bool

    public static let databaseTableName = "artwork"

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case id, sourceURL = "source_url", key, sha256, bytes, format, width, height, color, etag
        case lastModified = "last_modified", fetchedAt = "fetched_at", failures, lastError = "last_error"
        case retryAt = "retry_at", usedAt = "used_at", unusable, hostFailed = "host_failed"
    }

    /// The original is on disk.
    public var isStored: Bool { sha256 != nil }
}

/// One resized copy of an original (`artwork_variant`).
public struct ArtworkVariantRecord: CratedRecord, Equatable {
    public var sha256: String
    public var width: Int
    /// `webp` or `jpeg`.
    public var format: String
    public var height: Int
    public var bytes: Int
    public var usedAt: String

    public static let databaseTableName = "artwork_variant"

    public init(sha256: String, width: Int, format: String, height: Int, bytes: Int, usedAt: String) {
        (self.sha256, self.width, self.format, self.height, self.bytes, self.usedAt) = (sha256, width, format, height, bytes, usedAt)
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case sha256, width, format, height, bytes, usedAt = "used_at"
    }
}

/// What a fetched original is, as recorded.
public struct StoredOriginal: Sendable, Equatable {
    public var sha256: String
    public var bytes: Int
    public var format: String
    public var width: Int
    public var height: Int
    public var color: String
    public var etag: String?
    public var lastModified: String?

    public init(sha256: String, bytes: Int, format: String, width: Int, height: Int, color: String, etag: String?, lastModified: String?) {
        (self.sha256, self.bytes, self.format, self.width, self.height, self.color) = (sha256, bytes, format, width, height, color)
        (self.etag, self.lastModified) = (etag, lastModified)
    }
}

/// Covers by state, for `crated artwork status` and `GET /v1/sync`.
public struct ArtworkCounts: Codable, Sendable, Equatable {
    /// Covers whose original is on disk.
    public var stored = 0
    /// Never fetched yet, and not waiting after a failure.
    public var pending = 0
    /// The last fetch failed; retried at `retry_at`.
    public var failed = 0
    /// Of `failed`, those whose host has no usable image (404, not an image, too large, corrupt):
    /// answers show no cover for them until a fetch succeeds.
    public var unusable = 0
    /// Fetched once, then evicted to keep within the disk budget: fetched again when asked for.
    public var evicted = 0

    public init() {}
}

/// Bytes on disk by kind.
public struct ArtworkDiskUsage: Sendable, Equatable {
    public var originals = 0
    public var originalBytes = 0
    public var variants = 0
    public var variantBytes = 0

    public var totalBytes: Int { originalBytes + variantBytes }

    public init() {}
}

extension AppDatabase {
    public func artwork(key: String) throws -> ArtworkRecord? {
        try read { db in try ArtworkRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM artwork WHERE key = ?"), arguments: [key]) }
    }

    /// The covers of `userId`'s albums (of everyone's with nil) that a sync pass should fetch: never
    /// fetched (not evicted: those wait to be asked for), fetched before `staleBefore` to be checked
    /// again, or unusable (no request asks for those), and not waiting after a failure. Newest
    /// additions first.
    public func coversToFetch(userId: Int64?, now: Date, staleBefore: Date, limit: Int) throws -> [ArtworkRecord] {
        try read { db in
            try ArtworkRecord.fetchAll(db, sql: """
                SELECT ar.* FROM (
                    SELECT ca.album_id, MAX(ca.latest_added) AS added,
                           (SELECT CASE WHEN i.uri <> '' THEN i.uri ELSE i.uri150 END FROM album_image i
                            WHERE i.album_id = ca.album_id AND \(AlbumCover.qualifiedHasURL)
                            ORDER BY \(AlbumCover.qualifiedOrder) LIMIT 1) AS source_url
                    FROM collection_album ca WHERE ?1 IS NULL OR ca.user_id = ?1
                    GROUP BY ca.album_id
                ) covers
                JOIN artwork ar ON ar.source_url = covers.source_url
                WHERE (ar.retry_at IS NULL OR ar.retry_at <= ?2)
                  AND ((ar.fetched_at IS NULL AND ar.sha256 IS NULL) OR (ar.sha256 IS NOT NULL AND ar.fetched_at <= ?3) OR ar.unusable)
                GROUP BY ar.id
                ORDER BY MAX(covers.added) DESC, ar.id
                LIMIT ?4
                """, arguments: [userId, Timestamp.string(from: now), Timestamp.string(from: staleBefore), limit])
        }
    }

    /// Records a fetched original. The colour and size are kept even if the file is evicted later.
    public func recordArtworkFetched(id: Int64, original: StoredOriginal, at now: Date) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE artwork SET sha256 = ?, bytes = ?, format = ?, width = ?, height = ?, color = ?, etag = ?, last_modified = ?,
                                   fetched_at = ?, failures = 0, last_error = NULL, retry_at = NULL, unusable = 0, host_failed = 0,
                                   used_at = COALESCE(used_at, ?)
                WHERE id = ?
                """, arguments: [original.sha256, original.bytes, original.format, original.width, original.height, original.color,
                                 original.etag, original.lastModified, Timestamp.string(from: now), Timestamp.string(from: now), id])
        }
    }

    /// A conditional fetch answered 304: the stored original is current.
    public func recordArtworkUnchanged(id: Int64, at now: Date) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE artwork SET fetched_at = ?, failures = 0, last_error = NULL, retry_at = NULL, unusable = 0, host_failed = 0 WHERE id = ?
                """,
                           arguments: [Timestamp.string(from: now), id])
        }
    }

    /// What a cover refused for its size records as its error, which `retryCoversRefusedForSize`
    /// reads back: larger than the transfer limit (its size unknown), or of a size over the limit.
    public enum SizeRefusal {
        public static func overLimit(_ limit: Int) -> String { "larger than \(limit) bytes" }
        public static func ofSize(_ bytes: Int) -> String { "image data too large (\(bytes) bytes)" }
    }

    /// Covers refused for their size that `maxSourceBytes` now lets in are due at `now`, and show
    /// as covers again: the operator raised `artwork.maxSourceBytes`, and they would otherwise wait
    /// out their week. Returns how many.
    public func retryCoversRefusedForSize(maxSourceBytes: Int, now: Date) throws -> Int {
        try writeBlocking { db in
            try db.execute(sql: """
                UPDATE artwork SET retry_at = ?1, unusable = 0, failures = 0, last_error = NULL
                WHERE (last_error LIKE 'larger than % bytes' AND CAST(substr(last_error, 13) AS INTEGER) < ?2)
                   OR (last_error LIKE 'image data too large (% bytes)' AND CAST(substr(last_error, 23) AS INTEGER) <= ?2)
                """, arguments: [Timestamp.string(from: now), maxSourceBytes])
            return db.changesCount
        }
    }

    /// A fetch that failed: no other attempt before `retryAt`. A cover that is `unusable` (its host has
    /// no image to give) and has no original kept shows as no cover until a fetch succeeds; a
    /// transient failure after that leaves it so. Without `counts` (nothing was asked of the host)
    /// the count of failures, which lengthens the next wait, stays. `hostFailed`: the host failed
    /// every request (`retryCoversAfterTheirHostRecovered` makes the cover due when it answers again).
    public func recordArtworkFailure(id: Int64, error: String, retryAt: Date, unusable: Bool = false, counts: Bool = true,
                                     hostFailed: Bool = false) async throws {
        try await write { db in
            try db.execute(sql: """
                UPDATE artwork SET failures = failures + ?, last_error = ?, retry_at = ?, unusable = sha256 IS NULL AND (unusable OR ?),
                                   host_failed = ?
                WHERE id = ?
                """, arguments: [counts ? 1 : 0, String(error.prefix(500)), Timestamp.string(from: retryAt), unusable, hostFailed, id])
        }
    }

    /// Covers waiting after their host failed every request are due at `now` when `isOnHost` accepts
    /// their source URL: that host gives images again, and they would otherwise wait out their own
    /// delays (up to a day). Returns how many.
    public func retryCoversAfterTheirHostRecovered(isOnHost: @Sendable (String) -> Bool, now: Date) async throws -> Int {
        try await write { db in
            let waiting = try Row.fetchAll(db, sql: "SELECT id, source_url FROM artwork WHERE host_failed AND retry_at > ?",
                                           arguments: [Timestamp.string(from: now)])
            let due = waiting.filter { isOnHost($0["source_url"]) }.map { $0["id"] as Int64 }
            let statement = try db.cachedStatement(sql: "UPDATE artwork SET retry_at = ? WHERE id = ?")
            for id in due { try statement.execute(arguments: [Timestamp.string(from: now), id]) }
            return due.count
        }
    }

    public func artworkVariant(sha256: String, width: Int, format: String) throws -> ArtworkVariantRecord? {
        try read { db in
            try ArtworkVariantRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM artwork_variant WHERE sha256 = ? AND width = ? AND format = ?"),
                                              arguments: [sha256, width, format])
        }
    }

    /// The sizes (width and format) of which most variants have been made, most first: the sizes the
    /// collector's devices draw covers at, which sync makes ahead for the covers it fetches.
    public func mostMadeVariantSizes(limit: Int) throws -> [(width: Int, format: String)] {
        guard limit > 0 else { return [] }
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT width, format FROM artwork_variant GROUP BY width, format ORDER BY COUNT(*) DESC, width, format LIMIT ?
                """, arguments: [limit]).map { (width: $0["width"], format: $0["format"]) }
        }
    }

    public func recordArtworkVariant(_ variant: ArtworkVariantRecord) async throws {
        try await write { db in
            try db.execute(sql: """
                INSERT INTO artwork_variant (sha256, width, format, height, bytes, used_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (sha256, width, format) DO UPDATE SET height = excluded.height, bytes = excluded.bytes, used_at = excluded.used_at
                """, arguments: [variant.sha256, variant.width, variant.format, variant.height, variant.bytes, variant.usedAt])
        }
    }

    /// Marks originals and variants as served at `now`, in one write, for least-recently-used eviction.
    public func recordArtworkUse(originals: Set<String>, variants: Set<ArtworkVariantKey>, at now: Date) async throws {
        guard !originals.isEmpty || !variants.isEmpty else { return }
        let time = Timestamp.string(from: now)
        try await write { db in
            let original = try db.cachedStatement(sql: "UPDATE artwork SET used_at = ? WHERE sha256 = ?")
            for sha256 in originals { try original.execute(arguments: [time, sha256]) }
            let variant = try db.cachedStatement(sql: "UPDATE artwork_variant SET used_at = ? WHERE sha256 = ? AND width = ? AND format = ?")
            for key in variants { try variant.execute(arguments: [time, key.sha256, key.width, key.format]) }
        }
    }

    /// Covers by state: the cover of each album (of `userId`'s albums, with an id), not every image.
    public func artworkCounts(userId: Int64? = nil) throws -> ArtworkCounts {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                WITH covers AS (
                    SELECT DISTINCT (SELECT CASE WHEN i.uri <> '' THEN i.uri ELSE i.uri150 END FROM album_image i
                                     WHERE i.album_id = a.id AND \(AlbumCover.qualifiedHasURL)
                                     ORDER BY \(AlbumCover.qualifiedOrder) LIMIT 1) AS source_url
                    FROM album a
                    WHERE ?1 IS NULL OR a.id IN (SELECT album_id FROM collection_album WHERE user_id = ?1)
                )
                SELECT COUNT(*) FILTER (WHERE sha256 IS NOT NULL) AS stored,
                       COUNT(*) FILTER (WHERE sha256 IS NULL AND fetched_at IS NULL AND failures = 0) AS pending,
                       COUNT(*) FILTER (WHERE sha256 IS NULL AND failures > 0) AS failed,
                       COUNT(*) FILTER (WHERE sha256 IS NULL AND failures > 0 AND unusable) AS unusable,
                       COUNT(*) FILTER (WHERE sha256 IS NULL AND fetched_at IS NOT NULL AND failures = 0) AS evicted
                FROM artwork JOIN covers ON covers.source_url = artwork.source_url
                """, arguments: [userId])!
            var counts = ArtworkCounts()
            counts.stored = row["stored"]
            counts.pending = row["pending"]
            counts.failed = row["failed"]
            counts.unusable = row["unusable"]
            counts.evicted = row["evicted"]
            return counts
        }
    }

    public func artworkDiskUsage() throws -> ArtworkDiskUsage {
        try read { db in
            var usage = ArtworkDiskUsage()
            if let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM (SELECT DISTINCT sha256, bytes FROM artwork WHERE sha256 IS NOT NULL)") {
                (usage.originals, usage.originalBytes) = (row[0], row[1])
            }
            if let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM artwork_variant") {
                (usage.variants, usage.variantBytes) = (row[0], row[1])
            }
            return usage
        }
    }

    /// The least recently used variants, oldest first.
    public func leastRecentlyUsedVariants(limit: Int) throws -> [ArtworkVariantRecord] {
        try read { db in
            try ArtworkVariantRecord.fetchAll(db, sql: "SELECT * FROM artwork_variant ORDER BY used_at, sha256 LIMIT ?", arguments: [limit])
        }
    }

    /// The least recently used originals that have no variant left, oldest first, with their size.
    public func leastRecentlyUsedOriginals(limit: Int) throws -> [(sha256: String, bytes: Int)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT sha256, MAX(bytes) AS bytes FROM artwork
                WHERE sha256 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM artwork_variant v WHERE v.sha256 = artwork.sha256)
                GROUP BY sha256 ORDER BY MAX(COALESCE(used_at, fetched_at, '')), sha256 LIMIT ?
                """, arguments: [limit]).map { ($0["sha256"], $0["bytes"]) }
        }
    }

    /// Forgets a variant whose file is gone.
    public func forgetArtworkVariant(_ key: ArtworkVariantKey) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM artwork_variant WHERE sha256 = ? AND width = ? AND format = ?", arguments: [key.sha256, key.width, key.format])
        }
    }

    /// Forgets an original whose file is gone, with its variants; its size and colour stay, so that
    /// answers do not change, and it is fetched again when asked for.
    public func forgetArtworkOriginal(sha256: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM artwork_variant WHERE sha256 = ?", arguments: [sha256])
            try db.execute(sql: "UPDATE artwork SET sha256 = NULL, bytes = NULL WHERE sha256 = ?", arguments: [sha256])
        }
    }

    /// Every original and variant the database knows of, to tell which files on disk are not.
    public func knownArtworkFiles() throws -> (originals: Set<String>, variants: Set<ArtworkVariantKey>) {
        try read { db in
            let originals = Set(try String.fetchAll(db, sql: "SELECT DISTINCT sha256 FROM artwork WHERE sha256 IS NOT NULL"))
            let variants = Set(try Row.fetchAll(db, sql: "SELECT sha256, width, format FROM artwork_variant").map {
                ArtworkVariantKey(sha256: $0[0], width: $0[1], format: $0[2])
            })
            return (originals, variants)
        }
    }
}

/// Names one variant.
public struct ArtworkVariantKey: Hashable, Sendable {
    public var sha256: String
    public var width: Int
    public var format: String

    public init(sha256: String, width: Int, format: String) {
        (self.sha256, self.width, self.format) = (sha256, width, format)
    }
}
