import CratedJSON
import Foundation
import GRDB

/// A user's whole Discogs collection as the API lists it, ready for `AppDatabase.applyCollection`.
public struct DiscogsCollectionSnapshot: Sendable {
    public struct Folder: Sendable, Equatable {
        public var id: Int64
        public var name: String

        public init(id: Int64, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// One copy (a Discogs collection instance).
    public struct Instance: Sendable {
        public var instanceId: Int64
        public var releaseId: Int64
        public var folderId: Int64
        /// The date added as crated stores it (`YYYY-MM-DDTHH:MM:SSZ`).
        public var dateAdded: String
        /// Other forms of the same date that a copy imported from CSV may carry.
        public var dateAddedAlternatives: [String]
        public var rating: Int?
        /// The conditions and notes; nil when the listing leaves them out, as Discogs does for anyone
        /// but the collection's owner, and then a copy keeps its own (from an import, say).
        public var notes: Notes?
        /// Custom fields by name; nil when their names are unknown or the listing leaves out the
        /// notes (then they are left as they are).
        public var customFields: [(name: String, value: String)]?
        /// What the listing says about the release: enough for an album until release sync fills it.
        public var release: ReleaseMetadata

        public init(
            instanceId: Int64, releaseId: Int64, folderId: Int64, dateAdded: String, dateAddedAlternatives: [String],
            rating: Int?, notes: Notes?, customFields: [(name: String, value: String)]?, release: ReleaseMetadata
        ) {
            self.instanceId = instanceId
            self.releaseId = releaseId
            self.folderId = folderId
            self.dateAdded = dateAdded
            self.dateAddedAlternatives = dateAddedAlternatives
            self.rating = rating
            self.notes = notes
            self.customFields = customFields
            self.release = release
        }

        /// The copy's fields as Discogs gives them; those it leaves out (see `givenFields`) are empty.
        var fieldValues: CopyFieldValues {
            CopyFieldValues(rating: rating, mediaCondition: notes?.mediaCondition, sleeveCondition: notes?.sleeveCondition, notes: notes?.notes,
                            customFields: Dictionary((customFields ?? []).map { ($0.name, $0.value) }) { first, _ in first })
        }

        /// The fields the listing gives: the rating always, the others only with the notes.
        var givenFields: GivenCopyFields {
            let (hasNotes, hasCustomFields) = (notes != nil, customFields != nil)
            return GivenCopyFields(rating: true, mediaCondition: hasNotes, sleeveCondition: hasNotes, notes: hasNotes,
                                   customField: { _ in hasCustomFields })
        }
    }

    /// A copy's conditions and notes, from the notes fields of a collection instance.
    public struct Notes: Sendable, Equatable {
        public var mediaCondition: String?
        public var sleeveCondition: String?
        public var notes: String?

        public init(mediaCondition: String?, sleeveCondition: String?, notes: String?) {
            self.mediaCondition = mediaCondition
            self.sleeveCondition = sleeveCondition
            self.notes = notes
        }
    }

    public var folders: [Folder]
    public var instances: [Instance]
    /// False when the listing changed while it was read page by page (its count of items moved, or
    /// an instance came twice, or fewer came than it counted): a copy it leaves out may only have
    /// shifted onto a page already read, so its absence removes nothing.
    public var isWhole: Bool

    public init(folders: [Folder], instances: [Instance], isWhole: Bool = true) {
        self.folders = folders
        self.instances = instances
        self.isWhole = isWhole
    }

    /// Folder 0 ("All") lists everything and folder 1 ("Uncategorized") holds what is in no folder:
    /// neither becomes a crate.
    public static let foldersThatAreNotCrates: Set<Int64> = [0, 1]
}

/// What applying a collection snapshot changed.
public struct CollectionSyncSummary: Codable, Sendable, Equatable {
    public var instances = 0
    public var copiesAdded = 0
    /// Copies from a CSV import that were recognised as Discogs instances (by release and date added).
    public var copiesMatched = 0
    public var copiesUpdated = 0
    public var copiesUnchanged = 0
    /// Copies that came from Discogs and that Discogs no longer lists.
    public var copiesRemoved = 0
    /// Copies Discogs did not list but kept, because the listing changed while it was read; a pass
    /// that reads it whole removes those still missing.
    public var removalsDeferred = 0
    public var albumsAdded = 0
    public var cratesAdded = 0
    public var cratesLinked = 0
    /// Fields the user changed in crated that Discogs now gives yet another value of: crated's are
    /// kept (Discogs keeps its own). A field the user left as Discogs gave it takes Discogs' value.
    public var editsKept = 0

    public init() {}

    enum CopyChange { case added, matched, updated, unchanged }

    mutating func count(_ change: CopyChange) {
        switch change {
        case .added: copiesAdded += 1
        case .matched: copiesMatched += 1
        case .updated: copiesUpdated += 1
        case .unchanged: copiesUnchanged += 1
        }
    }
}

extension AppDatabase {
    /// Brings a user's copies and crates in step with their Discogs collection, in one transaction.
    ///
    /// A copy is found by its Discogs instance id; failing that, a copy imported from CSV (no
    /// instance id) with the same release and date added is the same copy and gains the id, so
    /// importing CSV and then syncing never duplicates. Copies linked to instances that Discogs no
    /// longer lists are removed, unless the listing was not read whole (`isWhole`); copies that never
    /// came from Discogs never are, and crates that are not folders keep what was added to them by hand.
    public func applyCollection(_ snapshot: DiscogsCollectionSnapshot, userId: Int64, at date: Date) async throws -> CollectionSyncSummary {
        let now = Timestamp.string(from: date)
        return try await write { db in
            var summary = CollectionSyncSummary()
            summary.instances = snapshot.instances.count
            let crateIds = try Self.syncCrates(db, folders: snapshot.folders, userId: userId, now: now, summary: &summary)
            let linkedBefore = Set(try Int64.fetchAll(db, sql: """
                SELECT id FROM collection_item WHERE user_id = ? AND discogs_instance_id IS NOT NULL
                """, arguments: [userId]))

            var albumIds: [Int64: Int64] = [:]
            var listedItemIds = Set<Int64>()
            for instance in snapshot.instances {
                let albumId: Int64
                if let known = albumIds[instance.releaseId] {
                    albumId = known
                } else {
                    albumId = try Self.albumForListing(db, instance: instance, now: now, summary: &summary)
                    albumIds[instance.releaseId] = albumId
                }
                let (itemId, change, editsKept) = try Self.syncCopy(db, instance: instance, userId: userId, albumId: albumId)
                summary.editsKept += editsKept
                listedItemIds.insert(itemId)
                let moved = try Self.placeInCrate(db, itemId: itemId, crateId: crateIds[instance.folderId], userId: userId, now: now)
                // A copy moved to another folder is an update, as a CSV import counts it.
                summary.count(change == .unchanged && moved ? .updated : change)
            }

            // A listing that shares no instance with the copies already linked (an empty one
            // included) looks like another Discogs account's: its absences remove nothing. One read
            // while it changed may have left out a copy that is still there: its absences wait.
            let unlisted = linkedBefore.subtracting(listedItemIds)
            if unlisted.count < linkedBefore.count {
                if snapshot.isWhole {
                    for itemId in unlisted {
                        try db.execute(sql: "DELETE FROM collection_item WHERE id = ?", arguments: [itemId])
                        summary.copiesRemoved += 1
                    }
                } else {
                    summary.removalsDeferred = unlisted.count
                }
            }
            try Self.unlinkDeletedFolders(db, folders: snapshot.folders, userId: userId, now: now)
            return summary
        }
    }

    /// Crates for the Discogs folders: found by folder id, else by name (a crate the CSV import
    /// made from the folder's name), else created. Returns folder id -> crate id.
    private static func syncCrates(
        _ db: Database, folders: [DiscogsCollectionSnapshot.Folder], userId: Int64, now: String, summary: inout CollectionSyncSummary
    ) throws -> [Int64: Int64] {
        var crateIds: [Int64: Int64] = [:]
        // Names compare as the API compares them (case folded, Unicode normalised): a folder `Soul`
        // is the user's crate `soul`, not a second crate the API would call the same name.
        var crates = try Crate.filter(Column("user_id") == userId).fetchAll(db)
        for folder in folders where !DiscogsCollectionSnapshot.foldersThatAreNotCrates.contains(folder.id) {
            guard let name = AppDatabase.folderCrateName(folder.name) else { continue }
            if let index = crates.firstIndex(where: { $0.discogsFolderId == folder.id }) {
                // A folder renamed on Discogs renames its crate, unless another crate has that name.
                let crate = crates[index]
                let nameTaken = crates.contains { $0.id != crate.id && AppDatabase.sameCrateName($0.name, name) }
                if crate.name != name && !nameTaken {
                    try db.execute(sql: "UPDATE crate SET name = ?, updated_at = ? WHERE id = ?", arguments: [name, now, crate.id!])
                    crates[index].name = name
                }
                crateIds[folder.id] = crate.id!
            } else if let index = crates.firstIndex(where: { AppDatabase.sameCrateName($0.name, name) }) {
                try db.execute(sql: "UPDATE crate SET discogs_folder_id = ?, updated_at = ? WHERE id = ?", arguments: [folder.id, now, crates[index].id!])
                crates[index].discogsFolderId = folder.id
                crateIds[folder.id] = crates[index].id!
                summary.cratesLinked += 1
            } else {
                var crate = Crate(userId: userId, name: name, discogsFolderId: folder.id, isFolder: true, createdAt: now, updatedAt: now)
                try crate.insert(db)
                crates.append(crate)
                crateIds[folder.id] = crate.id!
                summary.cratesAdded += 1
            }
        }
        if !crateIds.isEmpty {
            try db.execute(sql: "UPDATE crate SET is_folder = 1 WHERE is_folder = 0 AND id IN (\(databaseQuestionMarks(count: crateIds.count)))",
                           arguments: StatementArguments(Array(crateIds.values)))
        }
        return crateIds
    }

    /// A folder deleted on Discogs leaves its crate as an ordinary crate, and so does a crate a CSV
    /// import made from a folder name Discogs no longer has (`syncCrates` has linked every other).
    /// Runs after the copies are placed, so that copies that moved out of the folder have left its
    /// crate first.
    private static func unlinkDeletedFolders(_ db: Database, folders: [DiscogsCollectionSnapshot.Folder], userId: Int64, now: String) throws {
        let folderIds = folders.map(\.id)
        try db.execute(sql: """
            UPDATE crate SET discogs_folder_id = NULL, is_folder = 0, updated_at = ?
            WHERE user_id = ? AND is_folder = 1
            AND (discogs_folder_id IS NULL OR discogs_folder_id NOT IN (\(databaseQuestionMarks(count: max(1, folderIds.count)))))
            """, arguments: [now, userId] + StatementArguments(folderIds.isEmpty ? [-1] : folderIds))
    }

    /// The album of a listed release; created from the listing's basic data when the catalogue
    /// lacks it (release sync fills in the rest, as it does for albums from CSV).
    private static func albumForListing(
        _ db: Database, instance: DiscogsCollectionSnapshot.Instance, now: String, summary: inout CollectionSyncSummary
    ) throws -> Int64 {
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM album WHERE discogs_release_id = ?", arguments: [instance.releaseId]) {
            return id
        }
        let release = instance.release
        let title = release.title.isEmpty ? "Release \(instance.releaseId)" : release.title
        let credit = release.artistCredit
        try db.execute(sql: """
            INSERT INTO album (discogs_release_id, title, sort_title, artist_credit, artist_sort_name, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [instance.releaseId, title, DiscogsText.sortKey(title), credit, DiscogsText.sortKey(credit), now, now])
        let albumId = db.lastInsertedRowID
        try writeRelease(db, release, albumId: albumId, now: now)
        summary.albumsAdded += 1
        return albumId
    }

    /// Finds, links or adds the copy for one instance and brings its fields in step. Returns its id
    /// and what became of its fields.
    private static func syncCopy(
        _ db: Database, instance: DiscogsCollectionSnapshot.Instance, userId: Int64, albumId: Int64
    ) throws -> (itemId: Int64, change: CollectionSyncSummary.CopyChange, editsKept: Int) {
        var copy = try CollectionItem.filter(Column("user_id") == userId && Column("discogs_instance_id") == instance.instanceId).fetchOne(db)
        var matched = false
        if copy == nil {
            let dates = [instance.dateAdded] + instance.dateAddedAlternatives
            copy = try CollectionItem.fetchOne(db, sql: """
                SELECT * FROM collection_item
                WHERE user_id = ? AND album_id = ? AND discogs_instance_id IS NULL AND date_added IN (\(databaseQuestionMarks(count: dates.count)))
                ORDER BY copy_ordinal, id LIMIT 1
                """, arguments: [userId, albumId] + StatementArguments(dates))
            matched = copy != nil
        }
        guard var copy else {
            let ordinal = try Int.fetchOne(db, sql: """
                SELECT COALESCE(MAX(copy_ordinal) + 1, 0) FROM collection_item WHERE user_id = ? AND album_id = ? AND date_added = ?
                """, arguments: [userId, albumId, instance.dateAdded]) ?? 0
            var added = CollectionItem(
                userId: userId, albumId: albumId, dateAdded: instance.dateAdded, copyOrdinal: ordinal, rating: instance.rating,
                mediaCondition: instance.notes?.mediaCondition, sleeveCondition: instance.notes?.sleeveCondition, notes: instance.notes?.notes,
                customFields: JSONText.object(instance.customFields ?? []), discogsInstanceId: instance.instanceId)
            try added.insert(db)
            return (added.id!, .added, 0)
        }
        let before = copy
        copy.discogsInstanceId = instance.instanceId
        // Discogs' values, but for the fields the user has changed in crated since Discogs last gave them.
        let mine = copy.fieldValues
        let merge = mine.merged(with: instance.fieldValues, base: copy.discogsFields.flatMap(DiscogsCopyFields.decoded) ?? mine,
                                given: instance.givenFields)
        copy.fieldValues = merge.fields
        copy.discogsFields = DiscogsCopyFields.text(discogs: merge.discogs, fields: merge.fields)
        if copy != before { try copy.update(db) }
        // What Discogs last gave changing alone is no change the user sees.
        let changed = copy.fieldValues != before.fieldValues || copy.discogsInstanceId != before.discogsInstanceId
        return (copy.id!, matched ? .matched : changed ? .updated : .unchanged, merge.editsKept)
    }

    /// A Discogs instance sits in one folder: the copy joins that folder's crate and leaves the
    /// crates of the user's other folders. Crates that are not folders are not touched. Returns
    /// whether the copy moved.
    private static func placeInCrate(_ db: Database, itemId: Int64, crateId: Int64?, userId: Int64, now: String) throws -> Bool {
        try db.execute(sql: """
            DELETE FROM crate_item WHERE item_id = ?1
            AND crate_id IN (SELECT id FROM crate WHERE user_id = ?2 AND is_folder = 1 AND id IS NOT ?3)
            """, arguments: [itemId, userId, crateId])
        var moved = db.changesCount > 0
        if let crateId {
            try db.execute(sql: """
                INSERT OR IGNORE INTO crate_item (crate_id, item_id, position, added_at)
                SELECT ?1, ?2, COALESCE(MAX(position) + 1, 0), ?3 FROM crate_item WHERE crate_id = ?1
                """, arguments: [crateId, itemId, now])
            moved = moved || db.changesCount > 0
        }
        return moved
    }

    /// The user that sync acts for: the one named (created when `createIfMissing`), else the only
    /// user, else the default user, created on first use.
    public func resolveUser(named name: String?, defaultName: String, createIfMissing: Bool) async throws -> User {
        try await write { db in
            try Self.resolveUser(db, named: name, defaultName: defaultName, createIfMissing: createIfMissing)
        }
    }

    /// The user's crates, each with the ids of its copies in order.
    public func crates(ofUser userId: Int64) throws -> [(crate: Crate, itemIds: [Int64])] {
        try read { db in
            try Crate.filter(Column("user_id") == userId).order(Column("name")).fetchAll(db).map { crate in
                let items = try Int64.fetchAll(db, sql: "SELECT item_id FROM crate_item WHERE crate_id = ? ORDER BY position", arguments: [crate.id!])
                return (crate, items)
            }
        }
    }
}
