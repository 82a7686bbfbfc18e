import CratedJSON
import Foundation
import GRDB

/// Why a collection change was refused. The API maps `notFound` to 404, `conflict` to 409 and
/// `invalid` to 422.
public enum CollectionError: Error, Equatable, CustomStringConvertible {
    case notFound(String)
    case conflict(field: String?, message: String)
    case invalid(field: String, message: String)

    public var description: String {
        switch self {
        case .notFound(let what): "\(what) not found"
        case .conflict(_, let message), .invalid(_, let message): message
        }
    }
}

/// A crate as its list shows it: how many copies it holds, and the cover of the album at its front
/// (its first copy in crate order), nil when it is empty or that album has no cover.
public struct CrateSummary: Sendable, Equatable {
    public var crate: Crate
    public var copies: Int
    public var cover: AlbumCover?

    public init(crate: Crate, copies: Int, cover: AlbumCover?) {
        (self.crate, self.copies, self.cover) = (crate, copies, cover)
    }
}

/// A crate's copy with its album, in crate order.
public struct CrateEntry: Sendable, Equatable {
    public var position: Int
    public var addedAt: String
    public var copy: CollectionItem
    public var album: AlbumListing
}

/// Where a page of a crate's contents ends: the position and copy of its last entry. Its text is
/// opaque to clients (`position_copy`).
public struct CrateCursor: Sendable, Hashable, LosslessStringConvertible {
    let position: Int64
    let copyId: Int64

    /// Nil for text that is not a cursor: the API answers 400.
    public init?(_ description: String) {
        let parts = description.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let position = Int64(parts[0]), position >= 0, let copyId = RecordID.parse(parts[1]) else { return nil }
        self.position = position
        self.copyId = copyId
    }

    init(position: Int64, copyId: Int64) {
        self.position = position
        self.copyId = copyId
    }

    public var description: String { "\(position)_\(copyId)" }
}

/// One page of a crate's contents, in crate order.
public struct CratePage: Sendable, Equatable {
    public var crate: Crate
    /// Copies in the whole crate.
    public var copies: Int
    public var entries: [CrateEntry]
    /// Nil on the last page.
    public var next: CrateCursor?
}

/// Where a move puts a copy: just before or just after another copy of the same crate.
public enum CratePlacement: Sendable, Equatable {
    case before(copyId: Int64)
    case after(copyId: Int64)
}

/// Changes to one copy; nil leaves a field as it is, `.some(nil)` clears it.
public struct CopyChanges: Sendable, Equatable {
    public var rating: Int??
    public var mediaCondition: String??
    public var sleeveCondition: String??
    public var notes: String??
    public var customFields: [String: String]?
    public var crateIds: [Int64]?

    public init(rating: Int?? = nil, mediaCondition: String?? = nil, sleeveCondition: String?? = nil, notes: String?? = nil,
                customFields: [String: String]? = nil, crateIds: [Int64]? = nil) {
        self.rating = rating
        self.mediaCondition = mediaCondition
        self.sleeveCondition = sleeveCondition
        self.notes = notes
        self.customFields = customFields
        self.crateIds = crateIds
    }
}

/// Goldmine grades exactly as Discogs writes them.
public enum Grading {
    public static let media = ["Mint (M)", "Near Mint (NM or M-)", "Very Good Plus (VG+)", "Very Good (VG)",
                               "Good Plus (G+)", "Good (G)", "Fair (F)", "Poor (P)"]
    public static let sleeve = media + ["Generic", "Not Graded", "No Cover"]
}

extension AppDatabase {
    static let maxCrateNameLength = 100

    /// The user's crates by name, each with how many copies it holds and its front cover.
    public func crates(userId: Int64) throws -> [CrateSummary] {
        try read { db in
            let crates = try Crate.fetchAll(db.cachedStatement(sql: "SELECT * FROM crate WHERE user_id = ?"), arguments: [userId])
                .sortedByName()
            // Counting walks every copy of every crate, 200,000 in a large collection: the counts are
            // kept until the listing generation changes, which every write to crate_item advances.
            let counts = try crateCopyCounts.value(for: "\(userId)", in: db) {
                let rows = try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT crate_id, COUNT(*) FROM crate_item WHERE crate_id IN (SELECT id FROM crate WHERE user_id = ?)
                    GROUP BY crate_id
                    """), arguments: [userId])
                return Dictionary(uniqueKeysWithValues: rows.map { row -> (Int64, Int) in (row[0], row[1]) })
            }
            let covers = try Dictionary(uniqueKeysWithValues: Row.fetchAll(db.cachedStatement(sql: """
                SELECT front.crate_id, \(AlbumCover.columns) FROM (\(Self.frontAlbums) WHERE c.user_id = ?) AS front
                \(AlbumCover.joins(album: "front.album_id"))
                """), arguments: [userId]).compactMap { row in AlbumCover(coverColumnsOf: row).map { (row[0] as Int64, $0) } })
            return crates.map { CrateSummary(crate: $0, copies: counts[$0.id!] ?? 0, cover: covers[$0.id!]) }
        }
    }

    /// Each crate's id and the album of its front copy (`crate c`), null when it is empty: found in
    /// `crate_item_order`, so a crate of 200,000 copies costs what a small one does.
    static let frontAlbums = """
        SELECT c.id AS crate_id,
               (SELECT ci.album_id FROM crate_item x JOIN collection_item ci ON ci.id = x.item_id
                WHERE x.crate_id = c.id ORDER BY x.position, x.item_id LIMIT 1) AS album_id
        FROM crate c
        """

    public func createCrate(userId: Int64, name: String) async throws -> Crate {
        let name = try Self.validCrateName(name)
        return try await write { db in
            // Each new name is compared with every other (`ensureCrateNameFree`), and the list of
            // crates comes whole: without a cap, one user's thousands of crates slowed every write.
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM crate WHERE user_id = ?", arguments: [userId]) ?? 0
            guard count < Self.maxCratesPerUser else {
                throw CollectionError.conflict(field: nil, message: "you have \(count) crates, the most one user may have; delete one to make another")
            }
            try Self.ensureCrateNameFree(db, userId: userId, name: name, except: nil)
            let now = Timestamp.now()
            var crate = Crate(id: nil, userId: userId, name: name, discogsFolderId: nil, createdAt: now, updatedAt: now)
            try crate.insert(db)
            return crate
        }
    }

    /// Renames the crate; returns it with how many copies it holds and its front cover.
    public func renameCrate(id: Int64, userId: Int64, name: String) async throws -> CrateSummary {
        let name = try Self.validCrateName(name)
        return try await write { db in
            var crate = try Self.crate(db, id: id, userId: userId)
            try Self.ensureCrateNameFree(db, userId: userId, name: name, except: id)
            if crate.name != name && crate.discogsFolderId == nil {
                // A CSV import knows a folder's crate by its name only: renamed, it is the user's own
                // and keeps its copies when an import moves them to the folder's crate.
                crate.isFolder = false
            }
            crate.name = name
            crate.updatedAt = Timestamp.now()
            try crate.update(db)
            let copies = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM crate_item WHERE crate_id = ?", arguments: [id]) ?? 0
            let cover = try Row.fetchOne(db, sql: """
                SELECT \(AlbumCover.columns) FROM (\(Self.frontAlbums) WHERE c.id = ?) AS front
                \(AlbumCover.joins(album: "front.album_id"))
                """, arguments: [id]).flatMap { AlbumCover(coverColumnsOf: $0) }
            return CrateSummary(crate: crate, copies: copies, cover: cover)
        }
    }

    public func deleteCrate(id: Int64, userId: Int64) async throws {
        try await write { db in
            _ = try Self.crate(db, id: id, userId: userId)
            _ = try Crate.deleteOne(db, key: id)
        }
    }

    /// At most `limit` of the crate's copies in crate order, after `cursor`. A crate may hold every
    /// copy of a large collection, so its contents come a page at a time, each found by index.
    public func crateContents(id: Int64, userId: Int64, after cursor: CrateCursor? = nil, limit: Int = 100) throws -> CratePage {
        try read { db in
            let crate = try Self.crate(db, id: id, userId: userId)
            let copies = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM crate_item WHERE crate_id = ?"), arguments: [id]) ?? 0
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT crate_item.position AS crate_position, crate_item.added_at AS crate_added_at, ci.*,
                       a.id AS album_id, a.title, a.artist_credit, a.year,
                       (SELECT COUNT(*) FROM collection_item WHERE album_id = a.id AND user_id = ci.user_id) AS copies,
                       \(AlbumCover.columns)
                FROM crate_item JOIN collection_item ci ON ci.id = crate_item.item_id JOIN album a ON a.id = ci.album_id
                \(AlbumCover.joins(album: "a.id"))
                WHERE crate_item.crate_id = ?1 AND (crate_item.position, crate_item.item_id) > (?2, ?3)
                ORDER BY crate_item.position, crate_item.item_id LIMIT ?4
                """), arguments: [id, cursor?.position ?? Int64.min, cursor?.copyId ?? Int64.min, limit + 1])
            let entries = try rows.prefix(limit).map { row in
                CrateEntry(position: row["crate_position"], addedAt: row["crate_added_at"], copy: try CollectionItem(row: row), album: AlbumListing(row: row))
            }
            let next = rows.count > limit ? entries.last.map { CrateCursor(position: Int64($0.position), copyId: $0.copy.id!) } : nil
            return CratePage(crate: crate, copies: copies, entries: entries, next: next)
        }
    }

    /// Appends copies to the crate in the order given; copies already in it stay where they are.
    /// Returns how many were added.
    @discardableResult
    public func addToCrate(id: Int64, userId: Int64, copyIds: [Int64]) async throws -> Int {
        try await write { db in
            _ = try Self.crate(db, id: id, userId: userId)
            try Self.ensureCopiesBelong(db, copyIds: copyIds, userId: userId)
            return try Self.append(db, copyIds: copyIds, toCrate: id)
        }
    }

    /// Appends a copy of each album, in the order given: the user's first copy (by id) of an album
    /// the crate does not hold yet; an album the crate holds a copy of already adds nothing. Grids
    /// list albums, not copies: an app files an album without reading its copies first. Returns
    /// how many were added.
    @discardableResult
    public func addAlbumsToCrate(id: Int64, userId: Int64, albumIds: [Int64]) async throws -> Int {
        try await write { db in
            _ = try Self.crate(db, id: id, userId: userId)
            guard !albumIds.isEmpty else { throw CollectionError.invalid(field: "albumIds", message: "albumIds must name at least one album") }
            guard albumIds.count <= 1000 else { throw CollectionError.invalid(field: "albumIds", message: "at most 1000 albums at once") }
            guard albumIds.allSatisfy({ $0 > 0 }) else { throw CollectionError.invalid(field: "albumIds", message: "album ids are positive integers") }
            var copyIds: [Int64] = []
            for albumId in albumIds {
                let copies = try Row.fetchAll(db.cachedStatement(sql: """
                    SELECT ci.id, EXISTS (SELECT 1 FROM crate_item WHERE crate_id = ? AND item_id = ci.id) AS in_crate
                    FROM collection_item ci WHERE ci.user_id = ? AND ci.album_id = ? ORDER BY ci.id
                    """), arguments: [id, userId, albumId])
                guard let first = copies.first else { throw CollectionError.notFound("album \(albumId) in your collection") }
                if copies.contains(where: { $0["in_crate"] as Bool }) { continue }
                let copyId: Int64 = first["id"]
                if !copyIds.contains(copyId) { copyIds.append(copyId) }
            }
            return try Self.append(db, copyIds: copyIds, toCrate: id)
        }
    }

    /// Appends the copies not in the crate yet, in order; touches the crate. Returns how many.
    private static func append(_ db: Database, copyIds: [Int64], toCrate id: Int64) throws -> Int {
        var next = try Int.fetchOne(db, sql: "SELECT COALESCE(MAX(position) + 1, 0) FROM crate_item WHERE crate_id = ?", arguments: [id]) ?? 0
        var added = 0
        let now = Timestamp.now()
        for copyId in copyIds {
            try db.execute(sql: "INSERT OR IGNORE INTO crate_item (crate_id, item_id, position, added_at) VALUES (?, ?, ?, ?)",
                           arguments: [id, copyId, next, now])
            if db.changesCount > 0 { next += 1; added += 1 }
        }
        try touchCrate(db, id: id)
        return added
    }

    public func removeFromCrate(id: Int64, userId: Int64, copyId: Int64) async throws {
        try await write { db in
            _ = try Self.crate(db, id: id, userId: userId)
            try db.execute(sql: "DELETE FROM crate_item WHERE crate_id = ? AND item_id = ?", arguments: [id, copyId])
            guard db.changesCount > 0 else { throw CollectionError.notFound("copy \(copyId) in crate \(id)") }
            try Self.touchCrate(db, id: id)
        }
    }

    /// Takes every copy of the album out of the crate: a grid of the crate lists albums, and a client
    /// editing it from the grid has no copy ids. Returns how many were taken out.
    @discardableResult
    public func removeAlbumFromCrate(id: Int64, userId: Int64, albumId: Int64) async throws -> Int {
        try await write { db in
            _ = try Self.crate(db, id: id, userId: userId)
            try db.execute(sql: """
                DELETE FROM crate_item WHERE crate_id = ? AND item_id IN (SELECT id FROM collection_item WHERE user_id = ? AND album_id = ?)
                """, arguments: [id, userId, albumId])
            let removed = db.changesCount
            guard removed > 0 else { throw CollectionError.notFound("album \(albumId) in crate \(id)") }
            try Self.touchCrate(db, id: id)
            return removed
        }
    }

    /// Puts the crate's copies in the given order, which must name each of them exactly once.
    public func reorderCrate(id: Int64, userId: Int64, copyIds: [Int64]) async throws {
        try await write { db in
            _ = try Self.crate(db, id: id, userId: userId)
            let current = try Int64.fetchAll(db, sql: "SELECT item_id FROM crate_item WHERE crate_id = ?", arguments: [id])
            guard copyIds.count == current.count, Set(copyIds) == Set(current) else {
                throw CollectionError.invalid(field: "copyIds", message: "the new order must list each of the crate's \(current.count) copies exactly once")
            }
            for (position, copyId) in copyIds.enumerated() {
                try db.execute(sql: "UPDATE crate_item SET position = ? WHERE crate_id = ? AND item_id = ?", arguments: [position, id, copyId])
            }
            try Self.touchCrate(db, id: id)
        }
    }

    /// Moves one copy just before or after another of the crate; the others keep their order. Only
    /// the copies between its old and new places move, each by one.
    public func moveInCrate(id: Int64, userId: Int64, copyId: Int64, to placement: CratePlacement) async throws {
        try await write { db in
            _ = try Self.crate(db, id: id, userId: userId)
            func position(of copy: Int64) throws -> Int64 {
                guard let position = try Int64.fetchOne(db, sql: "SELECT position FROM crate_item WHERE crate_id = ? AND item_id = ?", arguments: [id, copy]) else {
                    throw CollectionError.notFound("copy \(copy) in crate \(id)")
                }
                return position
            }
            let from = try position(of: copyId)
            let (anchorId, after) = switch placement {
            case .before(let anchor): (anchor, false)
            case .after(let anchor): (anchor, true)
            }
            guard anchorId != copyId else {
                throw CollectionError.invalid(field: after ? "after" : "before", message: "a copy cannot move next to itself")
            }
            let anchor = try position(of: anchorId)
            // The new place in positions as they are now; the copy's own slot frees one on its side.
            let to: Int64
            if from > anchor {
                to = after ? anchor + 1 : anchor
                try db.execute(sql: "UPDATE crate_item SET position = position + 1 WHERE crate_id = ? AND position >= ? AND position < ?",
                               arguments: [id, to, from])
            } else {
                to = after ? anchor : anchor - 1
                try db.execute(sql: "UPDATE crate_item SET position = position - 1 WHERE crate_id = ? AND position > ? AND position <= ?",
                               arguments: [id, from, to])
            }
            try db.execute(sql: "UPDATE crate_item SET position = ? WHERE crate_id = ? AND item_id = ?", arguments: [to, id, copyId])
            try Self.touchCrate(db, id: id)
        }
    }

    public func copy(id: Int64, userId: Int64) throws -> (copy: CollectionItem, crates: [Crate]) {
        try read { db in
            guard let copy = try CollectionItem.filter(key: id).filter(Column("user_id") == userId).fetchOne(db) else {
                throw CollectionError.notFound("copy \(id)")
            }
            let crates = try Crate.fetchAll(db, sql: """
                SELECT crate.* FROM crate JOIN crate_item ON crate_item.crate_id = crate.id WHERE crate_item.item_id = ?
                """, arguments: [id]).sortedByName()
            return (copy, crates)
        }
    }

    /// Takes the copy out of the user's collection and out of every crate that held it (a record
    /// sold or given away). The album stays in the catalogue for anyone else's copies; the grid,
    /// counts and search follow from the schema's triggers.
    public func removeCopy(id: Int64, userId: Int64) async throws {
        try await write { db in
            let crateIds = try Int64.fetchAll(db, sql: """
                SELECT crate_item.crate_id FROM crate_item JOIN collection_item ON collection_item.id = crate_item.item_id
                WHERE crate_item.item_id = ? AND collection_item.user_id = ?
                """, arguments: [id, userId])
            try db.execute(sql: "DELETE FROM collection_item WHERE id = ? AND user_id = ?", arguments: [id, userId])
            guard db.changesCount > 0 else { throw CollectionError.notFound("copy \(id)") }
            for crateId in crateIds { try Self.touchCrate(db, id: crateId) }
        }
    }

    /// C0 and C1 controls and DEL (a NUL, a terminal's escape sequences), but those `allowing` names.
    static func hasControlCharacters(_ text: String, allowing allowed: Set<Unicode.Scalar> = []) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control && !allowed.contains($0) }
    }

    /// The copy's own fields as a Discogs export names them (`Collection Notes`), lowercased.
    static let builtInFieldNames: Set<String> = ["media condition", "sleeve condition", "notes"]

    /// Applies the changes in one transaction after checking every one of them.
    public func updateCopy(id: Int64, userId: Int64, changes: CopyChanges) async throws -> (copy: CollectionItem, crates: [Crate]) {
        if case .some(.some(let rating)) = changes.rating, !(1...5).contains(rating) {
            throw CollectionError.invalid(field: "rating", message: "rating must be from 1 to 5, or null to clear it")
        }
        if case .some(.some(let grade)) = changes.mediaCondition, !Grading.media.contains(grade) {
            throw CollectionError.invalid(field: "mediaCondition", message: "mediaCondition must be one of: \(Grading.media.joined(separator: ", "))")
        }
        if case .some(.some(let grade)) = changes.sleeveCondition, !Grading.sleeve.contains(grade) {
            throw CollectionError.invalid(field: "sleeveCondition", message: "sleeveCondition must be one of: \(Grading.sleeve.joined(separator: ", "))")
        }
        if case .some(.some(let notes)) = changes.notes, notes.count > 10_000 {
            throw CollectionError.invalid(field: "notes", message: "notes must be at most 10000 characters")
        }
        // SQLite would keep text only up to a NUL, and `crated export` to a terminal would run an
        // escape sequence: refused, line breaks and tabs apart.
        if case .some(.some(let notes)) = changes.notes, Self.hasControlCharacters(notes, allowing: ["\n", "\r", "\t"]) {
            throw CollectionError.invalid(field: "notes", message: "notes cannot contain control characters other than line breaks and tabs")
        }
        if let fields = changes.customFields {
            guard fields.count <= 50, fields.allSatisfy({ !$0.key.trimmingCharacters(in: .whitespaces).isEmpty && $0.key.count <= 100 && $0.value.count <= 1000 }) else {
                throw CollectionError.invalid(field: "customFields", message: "customFields takes at most 50 fields, names of 1-100 characters, values of at most 1000")
            }
            // A Discogs custom field may be a text area: its values keep their line breaks.
            guard !fields.contains(where: { Self.hasControlCharacters($0.key) || Self.hasControlCharacters($0.value, allowing: ["\n", "\r", "\t"]) }) else {
                throw CollectionError.invalid(field: "customFields",
                                              message: "customFields cannot contain control characters: none in names, none but line breaks and tabs in values")
            }
            // An export names each field's column `Collection <name>`, and the import finds columns
            // case-insensitively: these would be read back as the copy's own fields, or twice.
            let names = fields.keys.map(GivenCopyFields.customFieldKey)
            if let taken = fields.keys.first(where: { Self.builtInFieldNames.contains(GivenCopyFields.customFieldKey($0)) }) {
                throw CollectionError.invalid(field: "customFields", message: "'\(taken)' is the name of a copy's own field; name the custom field otherwise")
            }
            guard Set(names).count == names.count else {
                throw CollectionError.invalid(field: "customFields", message: "customFields names two fields alike but for case or spaces")
            }
        }
        try await write { db in
            guard var copy = try CollectionItem.filter(key: id).filter(Column("user_id") == userId).fetchOne(db) else {
                throw CollectionError.notFound("copy \(id)")
            }
            // What Discogs last gave the copy, kept while the user's fields differ from it, so that
            // a later import or sync leaves this edit be (`CopyFieldValues.merged`).
            let discogs = copy.discogsFields.flatMap(DiscogsCopyFields.decoded) ?? copy.fieldValues
            if let rating = changes.rating { copy.rating = rating }
            if let grade = changes.mediaCondition { copy.mediaCondition = grade }
            if let grade = changes.sleeveCondition { copy.sleeveCondition = grade }
            if let notes = changes.notes { copy.notes = notes.flatMap { $0.isEmpty ? nil : $0 } }
            // An empty value is no field, as an export's empty cell is none (notes alike).
            if let fields = changes.customFields { copy.customFields = JSONText.object(fields.filter { !$0.value.isEmpty }.map { ($0.key, $0.value) }) }
            copy.discogsFields = DiscogsCopyFields.text(discogs: discogs, fields: copy.fieldValues)
            try copy.update(db)
            if let crateIds = changes.crateIds {
                let wanted = Set(crateIds)
                let owned = Set(try Int64.fetchAll(db, sql: "SELECT id FROM crate WHERE user_id = ?", arguments: [userId]))
                if let missing = wanted.subtracting(owned).sorted().first { throw CollectionError.notFound("crate \(missing)") }
                let current = Set(try Int64.fetchAll(db, sql: "SELECT crate_id FROM crate_item WHERE item_id = ?", arguments: [id]))
                for crateId in current.subtracting(wanted) {
                    try db.execute(sql: "DELETE FROM crate_item WHERE crate_id = ? AND item_id = ?", arguments: [crateId, id])
                    try Self.touchCrate(db, id: crateId)
                }
                let now = Timestamp.now()
                for crateId in wanted.subtracting(current).sorted() {
                    try db.execute(sql: """
                        INSERT INTO crate_item (crate_id, item_id, position, added_at)
                        VALUES (?, ?, (SELECT COALESCE(MAX(position) + 1, 0) FROM crate_item WHERE crate_id = ?), ?)
                        """, arguments: [crateId, id, crateId, now])
                    try Self.touchCrate(db, id: crateId)
                }
            }
        }
        return try copy(id: id, userId: userId)
    }

    // MARK: - Checks shared by the crate operations

    static func crate(_ db: Database, id: Int64, userId: Int64) throws -> Crate {
        guard let crate = try Crate.filter(key: id).filter(Column("user_id") == userId).fetchOne(db) else {
            throw CollectionError.notFound("crate \(id)")
        }
        return crate
    }

    static func validCrateName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw CollectionError.invalid(field: "name", message: "a crate needs a name") }
        // Characters as a reader counts them, and a bound on what each may hold: one character may
        // carry any number of combining marks, and 5,000 of them made a name of 10 KB.
        guard trimmed.count <= maxCrateNameLength, trimmed.unicodeScalars.count <= 4 * maxCrateNameLength else {
            throw CollectionError.invalid(field: "name", message: "a crate name is at most \(maxCrateNameLength) characters")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw CollectionError.invalid(field: "name", message: "a crate name cannot contain control characters")
        }
        // Stored composed, so that one name is stored one way whatever the keyboard sent.
        return trimmed.precomposedStringWithCanonicalMapping
    }

    /// The name of the crate a Discogs folder becomes (import and sync alike), or nil for a name of
    /// spaces: as the API would store it, with any control character a space.
    package static func folderCrateName(_ folder: String) -> String? {
        let scalars = folder.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }
        let name = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? nil : name.precomposedStringWithCanonicalMapping
    }

    /// The crates a user may make (`POST /v1/crates`); a Discogs folder's, which import and
    /// collection sync make, are not held to it.
    public static let maxCratesPerUser = 1000

    /// Two crate names are one when they are after Unicode normalisation and case folding: `Äb` and
    /// `äb`, `Café` composed and decomposed, `Straße` and `STRASSE`.
    package static func sameCrateName(_ a: String, _ b: String) -> Bool {
        a.nameFolded == b.nameFolded
    }

    static func ensureCrateNameFree(_ db: Database, userId: Int64, name: String, except: Int64?) throws {
        let others = try String.fetchAll(db, sql: "SELECT name FROM crate WHERE user_id = ? AND id IS NOT ?", arguments: [userId, except])
        if let clash = others.first(where: { sameCrateName($0, name) }) {
            throw CollectionError.conflict(field: "name", message: "you already have a crate named '\(clash)'")
        }
    }

    static func ensureCopiesBelong(_ db: Database, copyIds: [Int64], userId: Int64) throws {
        guard !copyIds.isEmpty else { throw CollectionError.invalid(field: "copyIds", message: "copyIds must name at least one copy") }
        guard copyIds.count <= 1000 else { throw CollectionError.invalid(field: "copyIds", message: "at most 1000 copies at once") }
        guard copyIds.allSatisfy({ $0 > 0 }) else { throw CollectionError.invalid(field: "copyIds", message: "copy ids are positive integers") }
        let unique = Array(Set(copyIds))
        let owned = Set(try Int64.fetchAll(db, sql: "SELECT id FROM collection_item WHERE user_id = ? AND id IN (\(databaseQuestionMarks(count: unique.count)))",
                                           arguments: StatementArguments([userId] + unique)))
        if let missing = copyIds.first(where: { !owned.contains($0) }) { throw CollectionError.notFound("copy \(missing)") }
    }

    static func touchCrate(_ db: Database, id: Int64) throws {
        try db.execute(sql: "UPDATE crate SET updated_at = ? WHERE id = ?", arguments: [Timestamp.now(), id])
    }
}
