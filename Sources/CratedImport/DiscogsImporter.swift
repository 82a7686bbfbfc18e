import CratedCore
import Foundation
import GRDB
import Synchronization

public struct ImportOptions: Sendable {
    /// The owner of the copies; nil means the only user, or the default user created on first use.
    public var userName: String?
    /// Reads and checks everything, reports what would change, writes nothing.
    public var dryRun = false
    /// Imports the valid rows and lists the others, instead of refusing the whole file.
    public var skipInvalid = false
    /// The default user's name (configuration `import.defaultUser`).
    public var defaultUserName = "collector"
    /// How to read slashed dates that allow both orders (`03/04/2021`); nil: as the file's other
    /// dates tell, and a file whose dates all allow both is refused.
    public var slashedDateOrder: SlashedDateOrder?
    /// How the import writes: chosen from the file's size against the database's (`.automatic`), or
    /// forced, for tests that show both ways give the same database.
    var writeMode = ImportWriteMode.automatic

    public init(userName: String? = nil, dryRun: Bool = false, skipInvalid: Bool = false, defaultUserName: String = "collector",
                slashedDateOrder: SlashedDateOrder? = nil) {
        self.userName = userName
        self.dryRun = dryRun
        self.skipInvalid = skipInvalid
        self.defaultUserName = defaultUserName
        self.slashedDateOrder = slashedDateOrder
    }
}

/// The order of day and month in a file's slashed dates (`DD/MM/YYYY` or `MM/DD/YYYY`).
public enum SlashedDateOrder: String, Codable, Sendable {
    case dayFirst, monthFirst
}

private final class SlashedDatesRecord: Sendable {
    let value = Mutex<SlashedDatesRead?>(nil)
}

/// How an import read the file's slashed dates, and why so.
public struct SlashedDatesRead: Codable, Sendable, Equatable {
    public enum DecidedBy: String, Codable, Sendable {
        /// A date that allows only this order told.
        case file
        /// `--month-first` or `--day-first`.
        case option
    }

    public var order: SlashedDateOrder
    public var decidedBy: DecidedBy
}

/// See `DiscogsImporter.usesBulkWrite`.
enum ImportWriteMode: Sendable {
    case automatic
    /// Row by row into the indexes, artists and albums looked up by index.
    case incremental
    /// Catalogue in memory, secondary indexes and per-row triggers set aside and made again at the end
    /// (`ImportIndexes`, `ImportTriggers`),
    /// an empty search index built beside the import (`SearchIndexBuilder`).
    case bulk
}

/// What an import did (or, with `--dry-run`, would do).
public struct ImportSummary: Codable, Sendable, Equatable {
    public var file: String
    public var user: String
    /// Whether this import made the user (or, in a dry run, would have): a mistyped `--user` shows here.
    public var userCreated = false
    public var dryRun: Bool
    public var rowsRead = 0
    /// Distinct releases in the file.
    public var albums = 0
    public var albumsAdded = 0
    /// Distinct artist credits in the file.
    public var artists = 0
    public var artistsAdded = 0
    public var copiesAdded = 0
    public var copiesUpdated = 0
    public var copiesUnchanged = 0
    /// The user's copies that no row of the file is: records sold or removed on Discogs since an
    /// earlier import, or added in crated. They are kept; the app removes them.
    public var copiesNotInFile = 0
    /// Fields the user changed in crated that the file gives yet another value of: crated's are kept
    /// (Discogs keeps its own). A field the user left as Discogs gave it takes the file's value.
    public var editsKept = 0
    /// Distinct crates (Discogs folders other than `Uncategorized`) in the file.
    public var crates = 0
    public var cratesAdded = 0
    public var customFields: [String] = []
    /// Columns the import does not read (a near miss of one it reads, say `Notes` for `Collection
    /// Notes`, or one of the user's own), in the file's order.
    public var ignoredColumns: [String] = []
    /// Nil when the file has no slashed dates.
    public var slashedDates: SlashedDatesRead?
    public var skipped: [RowProblem] = []
}

public struct ImportProgress: Sendable {
    public var bytesRead: Int
    public var totalBytes: Int
    public var rowsRead: Int
}

public enum ImportError: Error, Equatable, CustomStringConvertible {
    case fileNotFound(String)
    case isDirectory(String)
    case unreadable(String, reason: String)
    case emptyFile
    case headerOnly
    case binary(kind: String)
    case wantlist
    case notACollectionExport(reason: String, header: String)
    case unterminatedQuote(line: Int)
    case recordTooLong(line: Int, limit: Int)
    /// The header is there, split by this separator (plural: `semicolons`) instead of commas.
    case separatedBy(String)
    case notUTF8(line: Int, column: Int, columnName: String)
    case slashedDatesInBothOrders(monthFirstLine: Int, monthFirstDate: String, dayFirstLine: Int, dayFirstDate: String)
    /// `--month-first` or `--day-first` given for a file with a date that can only be the other order.
    case slashedDateOrderContradicted(SlashedDateOrder, line: Int, date: String)
    /// Every slashed date allows both orders and no option says which.
    case slashedDateOrderUnknown(line: Int, date: String)
    case invalidRows([RowProblem], total: Int)
    case user(UserError)
    case databaseLocked
    case database(String)

    public var description: String {
        switch self {
        case .fileNotFound(let path):
            return "no such file: \(path)"
        case .isDirectory(let path):
            return "\(path) is a directory; give the path of a Discogs collection export (.csv)"
        case .unreadable(let path, let reason):
            return "cannot read \(path): \(reason)"
        case .emptyFile:
            return "the file is empty; expected a Discogs collection export with the header \(DiscogsExportHeader.expected)"
        case .headerOnly:
            return "the file has a header but no rows: nothing to import"
        case .binary(let kind):
            return "this is \(kind), not a CSV file; expected a Discogs collection export (.csv)"
        case .wantlist:
            return "this is a Discogs wantlist export, not a collection export; export your collection from Discogs (Collection > Export) and import that file"
        case .notACollectionExport(let reason, let header):
            return "this is not a Discogs collection export: \(reason). Its header is: \(header.prefix(200)). Expected a header like: \(DiscogsExportHeader.expected)"
        case .unterminatedQuote(let line):
            return "line \(line): a quoted field opens here and is never closed; nothing was imported"
        case .recordTooLong(let line, let limit):
            return "line \(line): the row runs past \(limit / 1024) KiB, which no Discogs export's row does (a quote that opens there and is never closed reads as one endless field); nothing was imported"
        case .separatedBy(let separators):
            return "the file is separated by \(separators), not commas; save it as comma-separated CSV (UTF-8) and import that"
        case .notUTF8(let line, let column, let columnName):
            return "line \(line), column \(column) (\(columnName)) is not UTF-8 text: the file is not UTF-8 (Excel's plain \"CSV\" saves another encoding); "
                + "save it as \"CSV UTF-8\" or export it again from Discogs; nothing was imported"
        case .slashedDateOrderUnknown(let line, let date):
            return "every Date Added in the file could be day or month first (line \(line): \(date)), and nothing in it says which; "
                + "import it with --day-first or --month-first (a spreadsheet in the US writes the month first); nothing was imported"
        case .slashedDateOrderContradicted(let order, let line, let date):
            return "the Date Added on line \(line) (\(date)) can only be \(order == .monthFirst ? "day" : "month") first, "
                + "so the file's dates are not \(order == .monthFirst ? "month" : "day") first as --\(order == .monthFirst ? "month" : "day")-first says; "
                + "nothing was imported"
        case .slashedDatesInBothOrders(let monthFirstLine, let monthFirstDate, let dayFirstLine, let dayFirstDate):
            return "the Date Added column puts the month first on line \(monthFirstLine) (\(monthFirstDate)) and the day first on line "
                + "\(dayFirstLine) (\(dayFirstDate)), so a date such as 03/04 could be either; give every date in one order; nothing was imported"
        case .invalidRows(let problems, let total):
            let listed = problems.map { "  \($0)" }.joined(separator: "\n")
            let more = total > problems.count ? "\n  ... and \(total - problems.count) more" : ""
            return "\(total) invalid row\(total == 1 ? "" : "s"); nothing was imported (use --skip-invalid to import the valid rows):\n\(listed)\(more)"
        case .user(let error):
            return error.description
        case .databaseLocked:
            return AppDatabaseError.locked.description + "; nothing was imported"
        case .database(let message):
            return "database error: \(message); nothing was imported"
        }
    }
}

/// Imports a Discogs collection export (CSV) into one user's collection, in one transaction: the
/// file is streamed row by row and either every valid row lands or, on a problem, nothing does.
public struct DiscogsImporter: Sendable {
    public let database: AppDatabase
    /// How many row problems an error lists before it counts the rest.
    static let listedProblems = 20
    /// Discogs' default folder holds what is in no folder; it does not become a crate.
    static let foldersThatAreNotCrates: Set<String> = ["Uncategorized", "All"]

    public init(database: AppDatabase) {
        self.database = database
    }

    public func importFile(
        at path: String,
        options: ImportOptions = ImportOptions(),
        progress: (@Sendable (ImportProgress) -> Void)? = nil
    ) throws -> ImportSummary {
        let (handle, size, bomLength) = try Self.open(path)
        defer { try? handle.close() }
        let reader = try Self.csvReader(handle, path: path, skipping: bomLength)
        guard let headerRecord = try Self.nextRecord(reader) else { throw ImportError.emptyFile }
        guard headerRecord.invalidUTF8Fields.isEmpty else {
            throw ImportError.binary(kind: "a file whose header is not UTF-8 text")
        }
        let header = try DiscogsExportHeader(fields: headerRecord.fields)
        let dateColumn = header.dateAdded
        // Asked on the reading thread (`ImportRowStream`), told in the summary.
        let slashedDatesRead = SlashedDatesRecord()
        let slashedDatesAreMonthFirst: @Sendable () throws -> Bool = {
            let read = try Self.slashedDates(path: path, skipping: bomLength, dateColumn: dateColumn, given: options.slashedDateOrder)
            slashedDatesRead.value.withLock { $0 = read }
            return read?.order == .monthFirst
        }

        do {
            return try database.writer.writeWithoutTransaction { db in
                var summary: ImportSummary?
                // Decided before the transaction, which the bulk write begins differently. Another
                // writer adding rows before it begins would only make the choice slower, not wrong.
                let bulk = try Self.usesBulkWrite(db, options.writeMode, fileSize: size)
                // Attached now, as SQLite attaches only outside a transaction; used if the search
                // index turns out to be empty.
                let searchBuilder = bulk ? try SearchIndexBuilder(attachingTo: db) : nil
                defer { searchBuilder?.detach(db) }
                // A bulk write checks no foreign keys row by row (it can be switched only outside a
                // transaction): every row it writes names a parent it read or wrote itself in the same
                // transaction, and the ~10 parent lookups a row cost 0.6 s of 200,000 rows on the
                // writing thread. The one constraint that is more than a check is kept by hand: see
                // `checkGridDeferralEnded`.
                let foreignKeys = try Bool.fetchOne(db, sql: "PRAGMA foreign_keys")!
                if bulk && foreignKeys { try db.execute(sql: "PRAGMA foreign_keys = OFF") }
                defer { if bulk && foreignKeys { try? db.execute(sql: "PRAGMA foreign_keys = ON") } }
                // A bigger page cache for the bulk write: the indexes of a large collection stop
                // spilling to disk mid-transaction. Restored to SQLite's default afterwards.
                try db.execute(sql: "PRAGMA cache_size = -32768")
                defer { try? db.execute(sql: "PRAGMA cache_size = -2000") }
                // Statement journals (every INSERT into a table with triggers opens one) stay in memory
                // instead of a temporary file: their writes were ~6% of the import. Each holds the few
                // pages one statement changes. (The index builds of a bulk write sort on file.)
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
                defer { try? db.execute(sql: "PRAGMA temp_store = DEFAULT") }
                // BEGIN IMMEDIATE would take the scratch file's lock too, for the whole import, and
                // stop the builder writing it: with one attached, the transaction takes the main
                // database's write lock by its first statement instead, before it reads anything.
                try db.inTransaction(searchBuilder == nil ? .immediate : .deferred) {
                    if let searchBuilder { try searchBuilder.lockMainDatabase(db) }
                    summary = try run(db: db, reader: reader, header: header, slashedDatesAreMonthFirst: slashedDatesAreMonthFirst,
                                      path: path, size: size, options: options, bulk: bulk, searchBuilder: searchBuilder, progress: progress)
                    summary?.slashedDates = slashedDatesRead.value.withLock { $0 }
                    if bulk && foreignKeys { try Self.checkGridDeferralEnded(db) }
                    return options.dryRun ? .rollback : .commit
                }
                return summary!
            }
        } catch let error as DatabaseError where error.isBusy {
            throw ImportError.databaseLocked
        } catch let error as DatabaseError {
            throw ImportError.database(error.message ?? error.description)
        } catch let error as UserError {
            throw ImportError.user(error)
        }
    }

    private func run(
        db: Database, reader: CSVReader, header: DiscogsExportHeader, slashedDatesAreMonthFirst: @escaping @Sendable () throws -> Bool,
        path: String, size: Int,
        options: ImportOptions, bulk: Bool, searchBuilder: SearchIndexBuilder?, progress: (@Sendable (ImportProgress) -> Void)?
    ) throws -> ImportSummary {
        let usersBefore = try User.fetchCount(db)
        let user = try AppDatabase.resolveUser(db, named: options.userName, defaultName: options.defaultUserName, createIfMissing: true)
        let indexes = bulk ? try ImportIndexes.setAside(db) : nil
        let triggers = bulk ? try ImportTriggers.setAside(db) : nil
        // Without the random-order index inserts a bulk write touches far fewer pages at a time, and
        // the in-memory sorts of the index builds come on top of the cache: a smaller cache keeps the
        // peak memory under 150 MB at the same speed (200,000 rows: 32 MB 160 MiB, 16 MB 144 MiB
        // once libvips and its libraries were linked, 12 MB 130 MiB and 1.04x the rows/s of 16 MB).
        if bulk { try db.execute(sql: "PRAGMA cache_size = -\(ImportIndexes.bulkCacheKiB)") }
        let writer = try CollectionImportWriter(db: db, userId: user.id!, header: header, catalogueInMemory: bulk, notesGridPending: triggers != nil)
        try writer.deferGridUpkeep()
        let searchBuilder = try bulk && SearchIndexBuilder.canReplace(db) ? searchBuilder : nil
        // At most one new album per row: the file size tells about how many, as for the write mode.
        try searchBuilder?.start(from: db, expectedAlbums: size / Self.estimatedBytesPerRow)
        writer.searchBuilder = searchBuilder
        var summary = ImportSummary(file: path, user: user.name, dryRun: options.dryRun)
        summary.userCreated = try User.fetchCount(db) > usersBefore
        summary.customFields = header.customFields.map(\.name)
        summary.ignoredColumns = header.ignoredColumns

        var problems: [RowProblem] = []
        var problemCount = 0

        // Rows are read and prepared on another thread while this one writes (ImportRowStream).
        let stream = ImportRowStream(reader: reader, header: header, nextRecord: Self.nextRecord,
                                     slashedDatesAreMonthFirst: slashedDatesAreMonthFirst)
        defer { stream.stop() }
        var bytesRead = 0
        // The batch before the one being written: its rows are written by now (see `recycle`).
        var written: [ImportRowStream.Item] = []
        while let batch = try stream.next() {
            stream.recycle(written)
            written = batch.items
            bytesRead = batch.bytesRead
            for item in batch.items {
                summary.rowsRead += 1
                if let progress, summary.rowsRead % 5000 == 0 {
                    progress(ImportProgress(bytesRead: bytesRead, totalBytes: size, rowsRead: summary.rowsRead))
                }
                let prepared: PreparedRow
                switch item {
                case .row(let valid):
                    prepared = valid
                case .problem(let problem):
                    problemCount += 1
                    if options.skipInvalid || problems.count < Self.listedProblems { problems.append(problem) }
                    continue
                }
                // Once the file is known to be invalid nothing will be kept: only look for more problems.
                if problemCount > 0 && !options.skipInvalid { continue }

                let album = try writer.album(for: prepared)
                let copy = try writer.upsertCopy(prepared, albumId: album.id, albumIsNew: album.isNew, ordinal: prepared.ordinal)
                switch copy.outcome {
                case .added: summary.copiesAdded += 1
                case .updated: summary.copiesUpdated += 1
                case .unchanged: summary.copiesUnchanged += 1
                }
                try writer.addToCrate(folderOf: prepared, itemId: copy.id, outcome: copy.outcome)
            }
        }
        progress?(ImportProgress(bytesRead: bytesRead, totalBytes: size, rowsRead: summary.rowsRead))

        if summary.rowsRead == 0 { throw ImportError.headerOnly }
        if problemCount > 0 && !options.skipInvalid {
            throw ImportError.invalidRows(problems, total: problemCount)
        }
        // The new albums' search text has been handed to the search builder with the rows; it indexes
        // them now, on another core, beside the grid recount and the index builds that follow.
        try writer.flush()
        // A copy whose folder changed on Discogs has changed, though its fields may not have.
        let moved = try writer.moveCopiesOutOfOtherFolders()
        summary.copiesUnchanged -= moved
        summary.copiesUpdated += moved
        try triggers?.restore(db)
        searchBuilder?.finish()
        try writer.finishGridUpkeep()
        try indexes?.rebuild(db)
        if let searchBuilder {
            try searchBuilder.copy(into: db)
        } else {
            try SearchIndex.add(db, newAlbumIds: writer.newAlbumIds)
        }
        summary.skipped = problems
        summary.albums = writer.albumsSeen
        // Counted by the reading thread over the valid rows, which are the rows written: a file with
        // an invalid row is written only with --skip-invalid, which skips just those rows.
        let tally = stream.tally
        summary.artists = tally.credits
        summary.crates = tally.folders.subtracting(Self.foldersThatAreNotCrates).count
        summary.albumsAdded = writer.albumsAdded
        summary.artistsAdded = writer.artistsAdded
        summary.cratesAdded = writer.cratesAdded
        summary.editsKept = writer.editsKept
        // In the import's transaction: a dry run's rollback takes it back with everything else. The
        // daemon's /metrics counts imported rows from these rows (crated import is another process).
        try AppDatabase.recordImportRun(db, userId: user.id!, path: path, rowsRead: summary.rowsRead)
        // Every valid row is one copy of the user's, added, updated or unchanged.
        let copies = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM collection_item WHERE user_id = ?", arguments: [user.id!]) ?? 0
        summary.copiesNotInFile = copies - summary.copiesAdded - summary.copiesUpdated - summary.copiesUnchanged
        return summary
    }

    /// Rows of a collection export run to about 150 bytes (the fixtures and the benchmark's file).
    static let estimatedBytesPerRow = 150
    /// Below this many rows either way is quick, and a small import leaves the schema alone.
    static let bulkMinimumRows = 10_000

    /// Whether to write in bulk (see `ImportWriteMode.bulk`): when the file holds at least twice as
    /// many rows as the database holds albums or copies. Building an index again costs in proportion
    /// to the whole table, inserting into it in proportion to the rows added, several times more per
    /// row; twice leaves a re-import of the same file (all rows unchanged) on the incremental path.
    static func usesBulkWrite(_ db: Database, _ mode: ImportWriteMode, fileSize: Int) throws -> Bool {
        switch mode {
        case .incremental: return false
        case .bulk: return true
        case .automatic:
            let estimatedRows = fileSize / estimatedBytesPerRow
            guard estimatedRows >= bulkMinimumRows else { return false }
            return estimatedRows >= 2 * (try ImportIndexes.rowsHeld(db))
        }
    }

    /// The grid deferral (migration 0005) must end before its transaction commits; its row's deferred
    /// foreign key fails a commit that would leave it open. With foreign keys off (a bulk write) that
    /// check is made here, with the error SQLite gives.
    static func checkGridDeferralEnded(_ db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grid_deferral)")! {
            throw DatabaseError(resultCode: .SQLITE_CONSTRAINT_FOREIGNKEY, message: "FOREIGN KEY constraint failed")
        }
    }

    /// The records of `handle`, the file at `path`, from after its byte order mark.
    private static func csvReader(_ handle: FileHandle, path: String, skipping bomLength: Int) throws -> CSVReader {
        do {
            return try CSVReader(handle: handle, skipping: bomLength)
        } catch let error as CSVError {
            throw ImportError.unreadable(path, reason: error.description)
        }
    }

    /// How to read the file's slashed dates that allow both orders (`03/04/2021`): a spreadsheet
    /// writes one order throughout, so the dates that allow only one (`03/25/2021`) tell it for the
    /// whole file; `given` (the command's option) when none contradicts it. With neither, the file
    /// is refused: a guess read wrong would misdate every copy, and a later import in the right order
    /// would add them all again (a copy is known by its date). Nil when no slashed date is a date
    /// (each such row is refused as it is read). Reads the file's records once more, on a handle of
    /// its own; an import asks only once it meets a slashed date.
    static func slashedDates(path: String, skipping bomLength: Int, dateColumn: Int, given: SlashedDateOrder?) throws -> SlashedDatesRead? {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw ImportError.unreadable(path, reason: (error as NSError).localizedDescription)
        }
        defer { try? handle.close() }
        let reader = try csvReader(handle, path: path, skipping: bomLength)
        _ = try nextRecord(reader)  // the header
        var monthFirst: (line: Int, date: String)?
        var dayFirst: (line: Int, date: String)?
        var either: (line: Int, date: String)?
        while let record = try nextRecord(reader) {
            guard dateColumn < record.fields.count else { continue }
            let text = record.fields[dateColumn]
            switch DiscogsDate.slashedForm(text) {
            case .monthFirstOnly: if monthFirst == nil { monthFirst = (record.line, text.trimmedSpaces) }
            case .dayFirstOnly: if dayFirst == nil { dayFirst = (record.line, text.trimmedSpaces) }
            case .either: if either == nil { either = (record.line, text.trimmedSpaces) }
            case nil: continue
            }
            if let monthFirst, let dayFirst {
                throw ImportError.slashedDatesInBothOrders(monthFirstLine: monthFirst.line, monthFirstDate: monthFirst.date,
                                                           dayFirstLine: dayFirst.line, dayFirstDate: dayFirst.date)
            }
        }
        switch (given, monthFirst, dayFirst) {
        case (.dayFirst, let only?, _): throw ImportError.slashedDateOrderContradicted(.dayFirst, line: only.line, date: only.date)
        case (.monthFirst, _, let only?): throw ImportError.slashedDateOrderContradicted(.monthFirst, line: only.line, date: only.date)
        case (_, .some, _): return SlashedDatesRead(order: .monthFirst, decidedBy: given == nil ? .file : .option)
        case (_, _, .some): return SlashedDatesRead(order: .dayFirst, decidedBy: given == nil ? .file : .option)
        case (let given?, nil, nil): return SlashedDatesRead(order: given, decidedBy: .option)
        case (nil, nil, nil):
            guard let either else { return nil }
            throw ImportError.slashedDateOrderUnknown(line: either.line, date: either.date)
        }
    }

    @Sendable private static func nextRecord(_ reader: CSVReader) throws -> CSVRecord? {
        do {
            return try reader.next()
        } catch CSVError.unterminatedQuote(let line) {
            throw ImportError.unterminatedQuote(line: line)
        } catch CSVError.recordTooLong(let line, let limit) {
            throw ImportError.recordTooLong(line: line, limit: limit)
        } catch let error as CSVError {
            throw ImportError.unreadable("the file", reason: error.description)
        }
    }

    /// Opens the file after checking that it is one, and sniffs its first bytes: a byte-order mark is
    /// skipped; an archive, a database or any file with NUL bytes is refused for what it is.
    static func open(_ path: String) throws -> (FileHandle, size: Int, bomLength: Int) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw ImportError.fileNotFound(path) }
        guard !isDirectory.boolValue else { throw ImportError.isDirectory(path) }
        let handle: FileHandle
        let head: Data
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            head = try handle.read(upToCount: 4096) ?? Data()
            try handle.seek(toOffset: 0)
        } catch {
            throw ImportError.unreadable(path, reason: (error as NSError).localizedDescription)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard !head.isEmpty else { throw ImportError.emptyFile }
        let bytes = [UInt8](head)
        func starts(_ magic: [UInt8]) -> Bool { bytes.starts(with: magic) }
        if starts([0x50, 0x4B, 0x03, 0x04]) { throw ImportError.binary(kind: "a ZIP archive (unzip it and import the CSV inside)") }
        if starts([0x1F, 0x8B]) { throw ImportError.binary(kind: "a gzip-compressed file (decompress it first)") }
        if starts(Array("SQLite format 3".utf8)) { throw ImportError.binary(kind: "a SQLite database") }
        if starts(Array("%PDF".utf8)) { throw ImportError.binary(kind: "a PDF document") }
        if starts([0xFF, 0xFE]) || starts([0xFE, 0xFF]) { throw ImportError.binary(kind: "UTF-16 text (save it as UTF-8)") }
        if bytes.contains(0) { throw ImportError.binary(kind: "binary data") }
        let bomLength = starts([0xEF, 0xBB, 0xBF]) ? 3 : 0
        let first = bytes.dropFirst(bomLength).first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            throw ImportError.binary(kind: "JSON (an API response, or crated's own `export --format json`, which does not import back)")
        }
        return (handle, size, bomLength)
    }
}
