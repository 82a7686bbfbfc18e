import CratedCore
import CratedJSON
import Foundation
import GRDB

/// Writes export rows into one user's collection inside the caller's transaction. Shared catalogue
/// rows (artists, albums) are reused when they exist; a copy is identified by its release, its date
/// added and its ordinal among identical rows, so importing the same file again changes nothing.
/// A date without seconds (or time), as a spreadsheet writes it back, stands for any copy added
/// within its minute (or day): see `existingCopy`.
///
/// The import is the one bulk write path: its statements are prepared once and bound through the C API
/// (`BulkStatement`), and it remembers the ids it has resolved instead of reading them again.
final class CollectionImportWriter {
    enum CopyOutcome { case added, updated, unchanged }

    private let db: Database
    private let userId: Int64
    private let now: String
    private var artistIds: [String: Int64] = [:]
    /// The artist of each credit of the file met so far, by `PreparedRow.creditNumber`: one array read
    /// per album instead of hashing the credit.
    private var artistIdsByCreditNumber: [Int64?] = []
    /// The catalogue's albums by release id (see `catalogueInMemory`).
    private var albumIds: [Int64: Int64] = [:]
    /// The album of each release of the file met so far, by `PreparedRow.releaseNumber`.
    private var albumsByReleaseNumber: [(id: Int64, isNew: Bool)?] = []
    /// The crate of each folder of the file met so far, by `PreparedRow.folderNumber`; nil inside when
    /// the folder is not a crate.
    private var cratesByFolderNumber: [Int64??] = []
    private var crateIds: [String: Int64] = [:]
    /// The user's crates, read when the file names its first folder.
    private var userCrates: [(id: Int64, name: String)]?
    private var nextCratePosition: [Int64: Int] = [:]
    /// The copies of the file that existed before it, each with the crate of its row's folder (0 for
    /// a folder that is not a crate): see `moveCopiesOutOfOtherFolders`.
    private var folderCrateOfCopy: [Int64: Int64] = [:]
    /// Of those, the ones whose fields the rows changed (counted as updated already), and the ones
    /// that joined their folder's crate.
    private var copiesChanged: Set<Int64> = []
    private var copiesJoined: Set<Int64> = []
    /// The copy fields the file has columns for; a copy found keeps its stored value of the others.
    private let fileHas: (rating: Bool, mediaCondition: Bool, sleeveCondition: Bool, notes: Bool)
    /// The file's custom fields, trimmed and lowercased as columns are matched: a copy found keeps its
    /// stored custom fields of other names.
    private let fileCustomFields: Set<String>
    /// Copies that a date without seconds has matched within its minute (or day): the next such
    /// row takes the next copy.
    private var copiesMatchedWithinSpan: Set<Int64> = []
    /// Whether `artistIds` and `albumIds` started out holding the whole catalogue (see `init`), so that
    /// a name or release missing from them is missing from the database too.
    private let catalogueInMemory: Bool

    private let findArtist: BulkStatement
    private let insertArtist: BulkStatement
    private let findAlbum: BulkStatement
    private let insertAlbums: MultiRowInsert
    private let insertAlbumArtists: MultiRowInsert
    private let insertLabels: MultiRowInsert
    private let insertFormats: MultiRowInsert
    private let findCopy: BulkStatement
    private let findCopiesWithin: BulkStatement
    private let updateCopy: BulkStatement
    private let insertCopies: MultiRowInsert
    private let insertCrateItem: BulkStatement
    private let insertCrateItems: MultiRowInsert
    private let insertGridRows: MultiRowInsert
    private let countGridCopy: BulkStatement
    /// See `notesGridPending`.
    private let noteGridPending: BulkStatement?

    /// New albums wait here with their credits, labels and formats, and go in with the copies waiting
    /// (before them: the copies' foreign key needs the album), a batch per INSERT, as copies do. The
    /// writer gives their ids itself, as for copies: the albums waiting have consecutive ids.
    private var pendingAlbums: [PendingAlbum] = []
    private var nextAlbumId: Int64
    /// The first id this writer gives: the albums from it on are new, and their grid rows are the writer's
    /// to write (see `deferGridUpkeep`).
    private let firstNewAlbumId: Int64

    private struct PendingAlbum {
        var id: Int64
        var artistId: Int64
        var prepared: PreparedRow
        /// The album's grid row so far (`collection_album`): a new album's copies are all this import's.
        var copies = 0
        var latestAdded = ""
        /// `latestAdded` in seconds, to compare: the text has four-digit years, so orders the same.
        var latestAddedSeconds = Int64.min
        var bestRating = 0
    }

    /// When set, new albums are indexed for search by this builder, beside the import (a bulk import
    /// into an empty search index), handed over a thousand or so at a time.
    var searchBuilder: SearchIndexBuilder?
    private var searchPending: [SearchIndexBuilder.Album] = []

    /// New copies wait here and go in `copyBatchSize` rows per INSERT. `collection_item` has triggers
    /// (the grids'), and with a trigger SQLite opens a statement journal for every INSERT: one row per
    /// INSERT spent more on that than on the row. The writer gives the ids itself (see `nextCopyId`),
    /// so that crates can name the copies still waiting.
    private var pendingCopies: [PendingCopy] = []
    /// Crate entries of waiting copies: written after them (the foreign key needs the copy first).
    private var pendingCrateItems: [(crateId: Int64, itemId: Int64, position: Int)] = []
    /// A full statement's worth: the copies are flushed in whole `MultiRowInsert` batches.
    private static let copyBatchSize = MultiRowInsert.maximumRows
    /// The import holds the write lock from start to end, so the ids after the largest ever given
    /// (`sqlite_sequence`: a deleted copy's id is not given again) are free; SQLite would give the same.
    private var nextCopyId: Int64
    /// The copies from this id on are the import's own.
    private let firstNewCopyId: Int64

    private struct PendingEntry {
        var album: Int
        var position: Int
    }
    private var pendingEntries: [PendingEntry] = []

    private struct PendingCopy {
        var id: Int64
        var albumId: Int64
        var prepared: PreparedRow
    }

    /// A copy's fields that the export carries and a re-import may change.
    private struct CopyFields: Equatable {
        var rating: Int?
        var mediaCondition: String?
        var sleeveCondition: String?
        var notes: String?
        var customFields: String

        /// The row's fields, none where the file has no column.
        init(_ prepared: PreparedRow) {
            let row = prepared.row
            self.init(rating: row.rating, mediaCondition: row.mediaCondition, sleeveCondition: row.sleeveCondition,
                      notes: row.notes, customFields: prepared.customFields)
        }

        init(rating: Int?, mediaCondition: String?, sleeveCondition: String?, notes: String?, customFields: String) {
            (self.rating, self.mediaCondition, self.sleeveCondition, self.notes, self.customFields) =
                (rating, mediaCondition, sleeveCondition, notes, customFields)
        }

        /// Read from `rating, media_condition, sleeve_condition, notes, custom_fields` at `first`.
        init(_ columns: StatementColumns, from first: Int32) throws {
            self.init(rating: try columns.optionalInt64(first).map(Int.init), mediaCondition: try columns.optionalString(first + 1),
                      sleeveCondition: try columns.optionalString(first + 2), notes: try columns.optionalString(first + 3),
                      customFields: try columns.string(first + 4))
        }

        var values: CopyFieldValues {
            CopyFieldValues(rating: rating, mediaCondition: mediaCondition, sleeveCondition: sleeveCondition, notes: notes,
                            customFields: CopyFieldValues.customFields(stored: customFields))
        }
    }

    /// A copy the file has a row for, as stored.
    private struct FoundCopy {
        var id: Int64
        var fields: CopyFields
        /// `collection_item.discogs_fields`: set once the user has edited the copy in crated.
        var discogs: String?

        /// Read from `id, rating, media_condition, sleeve_condition, notes, custom_fields, discogs_fields`.
        init(_ columns: StatementColumns) throws {
            (id, fields, discogs) = (try columns.int64(0), try CopyFields(columns, from: 1), try columns.optionalString(6))
        }
    }

    /// Fields the user changed in crated that the file gives yet another value of: crated's are kept.
    private(set) var editsKept = 0

    private(set) var artistsAdded = 0
    /// Albums this import created, to index for search once the rows are in.
    private(set) var newAlbumIds: [Int64] = []
    var albumsAdded: Int { newAlbumIds.count }
    /// Distinct releases written so far, new or not.
    var albumsSeen: Int { albumsSeenCount }
    private var albumsSeenCount = 0
    private(set) var cratesAdded = 0

    /// With `catalogueInMemory`, every artist and album is read into the writer's dictionaries at once,
    /// and the import finds them there instead of by an index seek per row; meant for an import that is
    /// large against the catalogue (the dictionaries hold no more than the import would add anyway), and
    /// needed when the artist indexes are set aside (`ImportIndexes`).
    ///
    /// With `notesGridPending`, the writer notes the new copies of albums it did not create in
    /// `grid_pending` itself, as the trigger set aside does (`ImportTriggers`).
    init(db: Database, userId: Int64, header: DiscogsExportHeader, catalogueInMemory: Bool = false, notesGridPending: Bool = false) throws {
        self.db = db
        self.userId = userId
        fileHas = (header.rating != nil, header.mediaCondition != nil, header.sleeveCondition != nil, header.notes != nil)
        fileCustomFields = Set(header.customFields.map { GivenCopyFields.customFieldKey($0.name) })
        self.now = Timestamp.now()
        self.catalogueInMemory = catalogueInMemory
        if catalogueInMemory {
            // The artist `findArtist` would return: one with a Discogs id before one known only by name.
            let artists = try Row.fetchCursor(db, sql: "SELECT discogs_name, id FROM artist ORDER BY discogs_id IS NULL, id")
            while let row = try artists.next() {
                let name: String = row[0]
                if artistIds[name] == nil { artistIds[name] = row[1] }
            }
            let albums = try Row.fetchCursor(db, sql: "SELECT discogs_release_id, id FROM album WHERE discogs_release_id IS NOT NULL")
            while let row = try albums.next() {
                albumIds[row[0]] = row[1]
            }
        }
        findArtist = try BulkStatement(db, sql: "SELECT id FROM artist WHERE discogs_name = ? ORDER BY discogs_id IS NULL LIMIT 1")
        insertArtist = try BulkStatement(db, sql: "INSERT INTO artist (name, discogs_name, sort_name) VALUES (?, ?, ?)")
        findAlbum = try BulkStatement(db, sql: "SELECT id FROM album WHERE discogs_release_id = ?")
        // OR FAIL: see `MultiRowInsert`.
        insertAlbums = MultiRowInsert(db, """
            INSERT OR FAIL INTO album (id, discogs_release_id, title, sort_title, artist_credit, artist_sort_name, year, released,
                               format_summary, created_at, updated_at)
            """, columns: 11)
        insertAlbumArtists = MultiRowInsert(db, "INSERT OR FAIL INTO album_artist (album_id, position, artist_id, join_phrase)", columns: 4)
        insertLabels = MultiRowInsert(db, "INSERT OR FAIL INTO album_label (album_id, position, name, catalog_number)", columns: 4)
        insertFormats = MultiRowInsert(db, "INSERT OR FAIL INTO album_format (album_id, position, name, quantity, descriptions)", columns: 5)
        nextAlbumId = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) + 1 FROM album")!
        firstNewAlbumId = nextAlbumId
        insertGridRows = MultiRowInsert(db, """
            INSERT OR FAIL INTO collection_album (user_id, album_id, copies, latest_added, best_rating, artist_key, title_key, year_key)
            """, columns: 8)
        // As the grid trigger of migration 0005 counts a copy into an album's row.
        countGridCopy = try BulkStatement(db, sql: """
            UPDATE collection_album SET copies = copies + 1, latest_added = max(latest_added, ?), best_rating = max(best_rating, ?)
            WHERE album_id = ? AND user_id = ?
            """)
        // As `collection_item_grid_insert_deferred` (migration 0009) notes a copy.
        noteGridPending = notesGridPending
            ? try BulkStatement(db, sql: "INSERT OR IGNORE INTO grid_pending (album_id, user_id) VALUES (?, ?)") : nil
        // The migration tests import into databases from before 0031; the daemon and the commands
        // always run migrated.
        let discogsFields = try db.columns(in: "collection_item").contains { $0.name == "discogs_fields" } ? "discogs_fields" : "NULL"
        findCopy = try BulkStatement(db, sql: """
            SELECT id, rating, media_condition, sleeve_condition, notes, custom_fields, \(discogsFields) FROM collection_item
            WHERE user_id = ? AND album_id = ? AND date_added = ? AND copy_ordinal = ?
            """)
        // Dates are stored as RFC 3339 text of one width, so they order as text.
        findCopiesWithin = try BulkStatement(db, sql: """
            SELECT id, rating, media_condition, sleeve_condition, notes, custom_fields, \(discogsFields) FROM collection_item
            WHERE user_id = ? AND album_id = ? AND date_added > ? AND date_added < ?
            ORDER BY date_added, copy_ordinal, id
            """)
        updateCopy = try BulkStatement(db, sql: """
            UPDATE collection_item SET rating = ?1, media_condition = ?2, sleeve_condition = ?3, notes = ?4, custom_fields = ?5
                \(discogsFields == "NULL" ? "" : ", discogs_fields = ?6") WHERE id = ?7
            """)
        // ABORT (the default): an OR FAIL here would also override the OR IGNORE of the grid trigger
        // that a copy's insert fires on the incremental path.
        insertCopies = MultiRowInsert(db, """
            INSERT INTO collection_item (id, user_id, album_id, date_added, copy_ordinal, rating, media_condition,
                                         sleeve_condition, notes, custom_fields)
            """, columns: 10)
        let largestEverGiven = try db.tableExists("sqlite_sequence")  // from migration 0024 on
            ? Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'collection_item'") ?? 0 : 0
        nextCopyId = max(try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(id), 0) FROM collection_item")!, largestEverGiven) + 1
        firstNewCopyId = nextCopyId
        insertCrateItem = try BulkStatement(db, sql: "INSERT OR IGNORE INTO crate_item (crate_id, item_id, position, added_at) VALUES (?, ?, ?, ?)")
        insertCrateItems = MultiRowInsert(db, "INSERT OR IGNORE INTO crate_item (crate_id, item_id, position, added_at)", columns: 4)
    }

    /// Postpones the upkeep of the album grids' summary (`collection_album`, migration 0005) to
    /// `finishGridUpkeep`, which recounts every album touched in one statement instead of a trigger
    /// per copy. Both run inside the import's transaction.
    ///
    /// The albums this writer creates are left out of that (migration 0009): their copies are all
    /// new, all written here, so the writer counts them as it goes and writes each new album's grid
    /// row with the album. Recounting them took most of a large first import's upkeep.
    func deferGridUpkeep() throws {
        try db.execute(sql: "INSERT INTO grid_deferral (id, writer_counts_from) VALUES (1, ?)", arguments: [firstNewAlbumId])
    }

    /// Writes the albums and copies still waiting, and hands the last new albums to the search builder.
    func flush() throws {
        try writePendingCopies()
        searchBuilder?.add(searchPending)
        searchPending.removeAll()
    }

    /// Writes what is still waiting, then recounts the grids (see `deferGridUpkeep`).
    func finishGridUpkeep() throws {
        try flush()
        try db.execute(sql: "DELETE FROM grid_deferral")
    }

    /// The artist of the row's credit (see `artistId(credit:name:sortName:)`).
    private func artistId(for prepared: PreparedRow) throws -> Int64 {
        let number = prepared.creditNumber
        if number < artistIdsByCreditNumber.count, let id = artistIdsByCreditNumber[number] { return id }
        let id = try artistId(credit: prepared.row.artistCredit, name: prepared.credit, sortName: prepared.creditSortKey)
        if number >= artistIdsByCreditNumber.count {
            artistIdsByCreditNumber.append(contentsOf: repeatElement(nil, count: number + 1 - artistIdsByCreditNumber.count))
        }
        artistIdsByCreditNumber[number] = id
        return id
    }

    /// The artist that a CSV credit names. A credit cannot be split safely (commas and `&` occur inside
    /// names: `Earth, Wind & Fire`), so the whole credit is one artist until sync brings the real ones.
    private func artistId(credit: String, name: String, sortName: String) throws -> Int64 {
        if let id = artistIds[credit] { return id }
        let id: Int64
        if !catalogueInMemory, let found = try findArtist(credit) {
            id = found
        } else {
            insertArtist.bind(1, name)
            insertArtist.bind(2, credit)
            insertArtist.bind(3, sortName)
            try insertArtist.execute()
            id = db.lastInsertedRowID
            artistsAdded += 1
        }
        return id
    }

    private func findArtist(_ credit: String) throws -> Int64? {
        findArtist.bind(1, credit)
        return try findArtist.fetchInt64()
    }

    /// The album for the row's release; created from the row when the catalogue lacks it.
    /// An album that exists is left as it is: sync's data is richer than the export's.
    func album(for prepared: PreparedRow) throws -> (id: Int64, isNew: Bool) {
        let number = prepared.releaseNumber
        if number < albumsByReleaseNumber.count, let known = albumsByReleaseNumber[number] { return known }
        let album = try firstAlbum(for: prepared)
        if number >= albumsByReleaseNumber.count {
            albumsByReleaseNumber.append(contentsOf: repeatElement(nil, count: number + 1 - albumsByReleaseNumber.count))
        }
        albumsByReleaseNumber[number] = album
        albumsSeenCount += 1
        return album
    }

    /// The album for the first row of this import that names its release.
    private func firstAlbum(for prepared: PreparedRow) throws -> (id: Int64, isNew: Bool) {
        let row = prepared.row
        if catalogueInMemory {
            if let id = albumIds[row.releaseId] { return (id, false) }
        } else {
            findAlbum.bind(1, row.releaseId)
            if let id = try findAlbum.fetchInt64() { return (id, false) }
        }
        // The credit as shown names the one artist the CSV gives (see `artistId`), so both share a sort key.
        let artistId = try artistId(for: prepared)

        let albumId = nextAlbumId
        nextAlbumId += 1
        pendingAlbums.append(PendingAlbum(id: albumId, artistId: artistId, prepared: prepared))
        newAlbumIds.append(albumId)
        return (albumId, true)
    }

    /// Adds the copy, updates it when the export's fields changed, or leaves it. Returns its id.
    func upsertCopy(_ prepared: PreparedRow, albumId: Int64, albumIsNew: Bool, ordinal: Int) throws -> (id: Int64, outcome: CopyOutcome) {
        let (row, dateAdded) = (prepared.row, prepared.dateAdded)
        // A new album has no copies yet: no need to look.
        if !albumIsNew, let found = try existingCopy(prepared, albumId: albumId, ordinal: ordinal) {
            let (fields, discogs) = found.discogs == nil
                ? (fields(of: prepared, over: found.fields), nil) : merged(prepared, over: found)
            if fields == found.fields && discogs == found.discogs { return (found.id, .unchanged) }
            bind(fields, to: updateCopy, from: 1)
            updateCopy.bind(6, discogs)
            updateCopy.bind(7, found.id)
            try updateCopy.execute()
            return (found.id, fields == found.fields ? .unchanged : .updated)
        }
        // Counted before a full batch is written, so that an album waiting goes in with this copy counted.
        if albumIsNew {
            try countInGrid(albumId: albumId, dateAdded: dateAdded, seconds: row.dateAdded, rating: row.rating)
        } else if let noteGridPending {
            noteGridPending.bind(1, albumId)
            noteGridPending.bind(2, userId)
            try noteGridPending.execute()
        }
        // A full batch goes first, so that the copy added here is still waiting when this returns.
        if pendingCopies.count == Self.copyBatchSize { try writePendingCopies() }
        let id = nextCopyId
        nextCopyId += 1
        pendingCopies.append(PendingCopy(id: id, albumId: albumId, prepared: prepared))
        return (id, .added)
    }

    /// The stored copy the row stands for: the one of its date added and ordinal. A date without
    /// seconds (or time) was cut short by a spreadsheet: without a copy at that very date and
    /// ordinal (one such a row added, or one added on the minute), it stands for the earliest copy
    /// added later within its minute (or day) that no row has matched yet. The copy keeps its date.
    private func existingCopy(_ prepared: PreparedRow, albumId: Int64, ordinal: Int) throws -> FoundCopy? {
        let row = prepared.row
        findCopy.bind(1, userId)
        findCopy.bind(2, albumId)
        findCopy.bind(3, prepared.dateAdded)
        findCopy.bind(4, ordinal)
        if let found = try findCopy.fetchFirst(FoundCopy.init) { return found }
        if row.dateAddedPrecision == .second { return nil }
        findCopiesWithin.bind(1, userId)
        findCopiesWithin.bind(2, albumId)
        findCopiesWithin.bind(3, prepared.dateAdded)
        findCopiesWithin.bind(4, Timestamp.string(fromEpochSeconds: row.dateAdded + row.dateAddedPrecision.span))
        var found: FoundCopy?
        try findCopiesWithin.forEach { columns in
            let id = try columns.int64(0)
            // The import's own copies are this file's rows, found by their date and ordinal.
            guard id < firstNewCopyId && !copiesMatchedWithinSpan.contains(id) else { return true }
            found = try FoundCopy(columns)
            return false
        }
        if let found { copiesMatchedWithinSpan.insert(found.id) }
        return found
    }

    /// The fields a copy found is to have: the file's where it has the column (none for an empty
    /// cell), the stored ones where it has none.
    private func fields(of prepared: PreparedRow, over stored: CopyFields) -> CopyFields {
        let file = CopyFields(prepared)
        return CopyFields(
            rating: fileHas.rating ? file.rating : stored.rating,
            mediaCondition: fileHas.mediaCondition ? file.mediaCondition : stored.mediaCondition,
            sleeveCondition: fileHas.sleeveCondition ? file.sleeveCondition : stored.sleeveCondition,
            notes: fileHas.notes ? file.notes : stored.notes,
            customFields: customFields(of: prepared, over: stored.customFields))
    }

    /// The fields of a copy the user has edited in crated, with what Discogs gave it before
    /// (`found.discogs`): the file's where the user left the field as Discogs gave it, the user's
    /// elsewhere; and what the column keeps now.
    private func merged(_ prepared: PreparedRow, over found: FoundCopy) -> (fields: CopyFields, discogs: String?) {
        let mine = found.fields.values
        let base = found.discogs.flatMap(DiscogsCopyFields.decoded) ?? mine
        let fileCustomFields = fileCustomFields
        let given = GivenCopyFields(rating: fileHas.rating, mediaCondition: fileHas.mediaCondition, sleeveCondition: fileHas.sleeveCondition,
                                    notes: fileHas.notes, customField: { fileCustomFields.contains($0) })
        let row = prepared.row
        let theirs = CopyFieldValues(rating: row.rating, mediaCondition: row.mediaCondition, sleeveCondition: row.sleeveCondition, notes: row.notes,
                                     customFields: Dictionary(row.customFields.map { ($0.name, $0.value) }) { first, _ in first })
        let merge = mine.merged(with: theirs, base: base, given: given)
        editsKept += merge.editsKept
        let fields = merge.fields
        return (CopyFields(rating: fields.rating, mediaCondition: fields.mediaCondition, sleeveCondition: fields.sleeveCondition, notes: fields.notes,
                           // The stored text while the fields are the same: it may be spaced otherwise.
                           customFields: fields.customFields == mine.customFields ? found.fields.customFields
                               : JSONText.object(fields.customFields.map { (name: $0.key, value: $0.value) })),
                DiscogsCopyFields.text(discogs: merge.discogs, fields: fields))
    }

    /// The stored custom fields with those the file has a column for set from the row (removed for
    /// an empty cell). Both texts are `JSONText.object`'s, keys sorted, so equal fields are equal text.
    private func customFields(of prepared: PreparedRow, over stored: String) -> String {
        if fileCustomFields.isEmpty { return stored }
        // Most copies: a copy with no fields, or the fields of this same file imported before.
        if stored == "{}" || stored == prepared.customFields { return prepared.customFields }
        let kept = (FlatJSON.stringObject(stored) ?? [:]).filter { !fileCustomFields.contains(GivenCopyFields.customFieldKey($0.key)) }
        return JSONText.object(kept.map { (name: $0.key, value: $0.value) } + prepared.row.customFields)
    }


    /// Counts a new copy of a new album into the album's grid row: the row waiting with the album, or
    /// the one written with it.
    private func countInGrid(albumId: Int64, dateAdded: String, seconds: Int64, rating: Int?) throws {
        if let first = pendingAlbums.first?.id, albumId >= first {
            let index = Int(albumId - first)
            pendingAlbums[index].copies += 1
            if seconds > pendingAlbums[index].latestAddedSeconds {
                pendingAlbums[index].latestAdded = dateAdded
                pendingAlbums[index].latestAddedSeconds = seconds
            }
            pendingAlbums[index].bestRating = max(pendingAlbums[index].bestRating, rating ?? 0)
        } else {
            countGridCopy.bind(1, dateAdded)
            countGridCopy.bind(2, rating ?? 0)
            countGridCopy.bind(3, albumId)
            countGridCopy.bind(4, userId)
            try countGridCopy.execute()
        }
    }

    /// Writes the albums waiting, with their credits, labels, formats and grid rows.
    private func writePendingAlbums() throws {
        guard !pendingAlbums.isEmpty else { return }
        let now = now
        try insertAlbums.insert(pendingAlbums) { statement, first, album in
            let (row, prepared) = (album.prepared.row, album.prepared)
            statement.bind(first, album.id)
            statement.bind(first + 1, row.releaseId)
            statement.bind(first + 2, row.title)
            statement.bind(first + 3, prepared.titleSortKey)
            statement.bind(first + 4, prepared.credit)
            statement.bind(first + 5, prepared.creditSortKey)
            statement.bind(first + 6, row.year)
            statement.bind(first + 7, row.year.map(String.init))
            statement.bind(first + 8, row.format.isEmpty ? nil : row.format)
            statement.bind(first + 9, now)
            statement.bind(first + 10, now)
        }
        // The CSV names one artist per album (see `artistId`).
        try insertAlbumArtists.insert(pendingAlbums) { statement, first, album in
            statement.bind(first, album.id)
            statement.bind(first + 1, 0)
            statement.bind(first + 2, album.artistId)
            statement.bind(first + 3, "")
        }
        // Labels and formats by (album, position) in the albums waiting: no copy of their text.
        pendingEntries.removeAll(keepingCapacity: true)
        for (album, pending) in pendingAlbums.enumerated() {
            for position in pending.prepared.labels.indices { pendingEntries.append(PendingEntry(album: album, position: position)) }
        }
        try insertLabels.insert(pendingEntries) { [pendingAlbums] statement, first, entry in
            let label = pendingAlbums[entry.album].prepared.labels[entry.position]
            statement.bind(first, pendingAlbums[entry.album].id)
            statement.bind(first + 1, entry.position)
            statement.bind(first + 2, label.name)
            statement.bind(first + 3, label.catalogNumber)
        }
        pendingEntries.removeAll(keepingCapacity: true)
        for (album, pending) in pendingAlbums.enumerated() {
            for position in pending.prepared.formats.indices { pendingEntries.append(PendingEntry(album: album, position: position)) }
        }
        try insertFormats.insert(pendingEntries) { [pendingAlbums] statement, first, entry in
            let format = pendingAlbums[entry.album].prepared.formats[entry.position]
            statement.bind(first, pendingAlbums[entry.album].id)
            statement.bind(first + 1, entry.position)
            statement.bind(first + 2, format.name)
            statement.bind(first + 3, format.quantity)
            statement.bind(first + 4, format.descriptions)
        }
        // The keys as the grid triggers make them from the album row.
        let userId = userId
        try insertGridRows.insert(pendingAlbums) { statement, first, album in
            let prepared = album.prepared
            statement.bind(first, userId)
            statement.bind(first + 1, album.id)
            statement.bind(first + 2, album.copies)
            statement.bind(first + 3, album.latestAdded)
            statement.bind(first + 4, album.bestRating)
            statement.bind(first + 5, prepared.gridArtistKey)
            statement.bind(first + 6, prepared.titleSortKey)
            statement.bind(first + 7, prepared.row.year ?? GridKey.unknownYear)
        }
        if let searchBuilder {
            for album in pendingAlbums {
                searchPending.append(album.prepared.searchAlbum(id: album.id))
            }
            if searchPending.count >= 1024 {
                searchBuilder.add(searchPending)
                searchPending.removeAll(keepingCapacity: true)
            }
        }
        pendingAlbums.removeAll(keepingCapacity: true)
    }

    private func writePendingCopies() throws {
        try writePendingAlbums()
        guard !pendingCopies.isEmpty else { return }
        let userId = userId
        try insertCopies.insert(pendingCopies) { statement, first, copy in
            statement.bind(first, copy.id)
            statement.bind(first + 1, userId)
            statement.bind(first + 2, copy.albumId)
            statement.bind(first + 3, copy.prepared.dateAdded)
            statement.bind(first + 4, copy.prepared.ordinal)
            bind(CopyFields(copy.prepared), to: statement, from: first + 5)
        }
        pendingCopies.removeAll(keepingCapacity: true)
        // A waiting copy is new, so its crate entry is too (OR IGNORE as for any entry).
        let now = now
        try insertCrateItems.insert(pendingCrateItems) { statement, first, item in
            statement.bind(first, item.crateId)
            statement.bind(first + 1, item.itemId)
            statement.bind(first + 2, item.position)
            statement.bind(first + 3, now)
        }
        pendingCrateItems.removeAll(keepingCapacity: true)
    }

    /// Binds a copy's fields in column order: rating, media condition, sleeve condition, notes, custom fields.
    private func bind(_ fields: CopyFields, to statement: BulkStatement, from first: Int32) {
        statement.bind(first, fields.rating)
        statement.bind(first + 1, fields.mediaCondition)
        statement.bind(first + 2, fields.sleeveCondition)
        statement.bind(first + 3, fields.notes)
        statement.bind(first + 4, fields.customFields)
    }

    /// Puts the copy in the crate named after the row's Discogs folder (created on first use), at the
    /// end, unless the folder is not a crate (`DiscogsImporter.foldersThatAreNotCrates`). A copy that
    /// `upsertCopy` has just added is still waiting to be written, and its entry waits with it.
    func addToCrate(folderOf prepared: PreparedRow, itemId: Int64, outcome: CopyOutcome) throws {
        guard let number = prepared.folderNumber, let folder = prepared.row.folder else { return }
        let crateId: Int64?
        if number < cratesByFolderNumber.count, let known = cratesByFolderNumber[number] {
            crateId = known
        } else {
            crateId = DiscogsImporter.foldersThatAreNotCrates.contains(folder) ? nil : try self.crateId(named: folder)
            if number >= cratesByFolderNumber.count {
                cratesByFolderNumber.append(contentsOf: repeatElement(nil, count: number + 1 - cratesByFolderNumber.count))
            }
            cratesByFolderNumber[number] = .some(crateId)
        }
        if outcome == .added {
            if let crateId {
                pendingCrateItems.append((crateId, itemId, nextCratePosition[crateId]!))
                nextCratePosition[crateId]! += 1
            }
            return
        }
        if let crateId, try writeCrateItem(crateId: crateId, itemId: itemId, position: nextCratePosition[crateId]!) {
            nextCratePosition[crateId]! += 1
            copiesJoined.insert(itemId)
        }
        folderCrateOfCopy[itemId] = crateId ?? 0
        if outcome == .updated { copiesChanged.insert(itemId) }
    }

    /// A copy that Discogs has moved to another folder leaves the crates of the user's other folders
    /// (`crate.is_folder`, migration 0014); the user's own crates keep it. Run once every row is
    /// written, so that a folder crate a later row claims counts for the rows before it too.
    /// Returns how many copies whose fields the rows left unchanged have changed crates.
    func moveCopiesOutOfOtherFolders() throws -> Int {
        defer { (folderCrateOfCopy, copiesChanged, copiesJoined) = ([:], [], []) }
        guard !folderCrateOfCopy.isEmpty else { return 0 }
        let folderCrates = try Int64.fetchAll(db, sql: "SELECT id FROM crate WHERE user_id = ? AND is_folder = 1", arguments: [userId])
        // One pass over the folder crates' entries finds the few to take out: a DELETE per copy cost
        // a re-import of 200,000 unchanged rows 2 s.
        var leaving: [(crateId: Int64, itemId: Int64)] = []
        try db.forEachRow("SELECT crate_id, item_id FROM crate_item WHERE crate_id IN (\(databaseQuestionMarks(count: folderCrates.count)))",
                          ids: folderCrates) { columns in
            let (crateId, itemId) = (try columns.int64(0), try columns.int64(1))
            if let folderCrate = folderCrateOfCopy[itemId], folderCrate != crateId { leaving.append((crateId, itemId)) }
        }
        let leave = try BulkStatement(db, sql: "DELETE FROM crate_item WHERE crate_id = ? AND item_id = ?")
        for entry in leaving {
            leave.bind(1, entry.crateId)
            leave.bind(2, entry.itemId)
            try leave.execute()
        }
        return copiesJoined.union(leaving.map(\.itemId)).subtracting(copiesChanged).count
    }

    /// Returns whether the entry is new (a copy already in the crate keeps its place).
    @discardableResult
    private func writeCrateItem(crateId: Int64, itemId: Int64, position: Int) throws -> Bool {
        insertCrateItem.bind(1, crateId)
        insertCrateItem.bind(2, itemId)
        insertCrateItem.bind(3, position)
        insertCrateItem.bind(4, now)
        try insertCrateItem.execute()
        return db.changesCount > 0
    }

    /// Crates are few: created or found once each, through GRDB.
    /// The crate of a folder, nil for a folder named with spaces only. Names compare as the API
    /// compares them: a folder `soul` is the user's crate `Soul`, and a name a Mac wrote decomposed
    /// is the crate of the same name composed.
    private func crateId(named folder: String) throws -> Int64? {
        if let id = crateIds[folder] { return id }
        guard let name = AppDatabase.folderCrateName(folder) else { return nil }
        if userCrates == nil {
            userCrates = try Row.fetchAll(db, sql: "SELECT id, name FROM crate WHERE user_id = ? ORDER BY id", arguments: [userId])
                .map { (id: $0["id"], name: $0["name"]) }
        }
        let id: Int64
        if let found = userCrates?.first(where: { AppDatabase.sameCrateName($0.name, name) }) {
            id = found.id
            try db.execute(sql: "UPDATE crate SET is_folder = 1 WHERE id = ? AND is_folder = 0", arguments: [id])
        } else {
            try db.execute(sql: "INSERT INTO crate (user_id, name, is_folder, created_at, updated_at) VALUES (?, ?, 1, ?, ?)",
                           arguments: [userId, name, now, now])
            id = db.lastInsertedRowID
            userCrates?.append((id: id, name: name))
            cratesAdded += 1
        }
        crateIds[folder] = id
        // Two spellings of one name reach the same crate: its next place is read once, since entries
        // of the first may still wait to be written.
        if nextCratePosition[id] == nil {
            nextCratePosition[id] = try Int.fetchOne(
                db, sql: "SELECT COALESCE(MAX(position) + 1, 0) FROM crate_item WHERE crate_id = ?", arguments: [id]) ?? 0
        }
        return id
    }
}
