import CratedCore
import CratedJSON
import Foundation

/// A valid export row with the text the import writer derives from it, prepared ahead of the writer.
///
/// A class: the writer keeps rows waiting in several places (the stream's batch, its albums and copies
/// waiting to be written), and a struct of a dozen strings would be copied, reference by reference, each time.
final class PreparedRow: Sendable {
    let row: DiscogsExportRow
    /// The credit as shown (`DiscogsText.displayName`), and its sort key, also the artist's.
    let credit: String
    let creditSortKey: String
    /// The numbers of the row's credit, release and folder in the file: each distinct value is
    /// numbered from 0 in the order it first appears, so that the writer finds its artist, album and
    /// crate by number instead of hashing the text or id again.
    let creditNumber: Int
    let releaseNumber: Int
    let folderNumber: Int?
    let titleSortKey: String
    let labels: [(name: String, catalogNumber: String?)]
    /// The title, credit, labels and catalogue numbers as the search index holds them, and the
    /// grid's artist key: made here, on the reading thread, since the writer's thread is the
    /// import's critical path and the search text alone took a third of its own work.
    let searchTitle: String
    let searchArtists: String
    let searchLabels: String
    let searchCatalogNumbers: String
    let gridArtistKey: String
    /// Formats with their descriptions as the JSON text stored.
    let formats: [(name: String, quantity: Int, descriptions: String)]
    /// RFC 3339, as stored.
    let dateAdded: String
    let customFields: String
    /// Identical rows are several copies: the nth valid row with the same release and date added is
    /// copy n (from 0). Given by the reading thread, which sees every row in file order.
    let ordinal: Int

    init(_ row: DiscogsExportRow, credit: ImportRowStream.Credit, releaseNumber: Int, folderNumber: Int?, ordinal: Int) {
        self.row = row
        self.credit = credit.displayName
        creditSortKey = credit.sortKey
        creditNumber = credit.number
        self.releaseNumber = releaseNumber
        self.folderNumber = folderNumber
        titleSortKey = DiscogsText.sortKey(row.title)
        labels = DiscogsText.labels(label: row.label, catalogNumbers: row.catalogNumbers)
        // The text `SearchIndex.insertSQL` would read back: labels and catalogue numbers in order,
        // the numbers Discogs gives as `none` (nil) left out.
        searchTitle = SearchText.indexed(row.title)
        searchArtists = SearchText.indexed(credit.displayName)
        if labels.count == 1 {
            // Most rows: the one label's own text, no copy.
            searchLabels = SearchText.indexed(labels[0].name)
            searchCatalogNumbers = SearchText.catalogNumbers(labels[0].catalogNumber.map { [$0] } ?? [])
        } else {
            searchLabels = SearchText.indexed(labels.map(\.name).joined(separator: " "))
            searchCatalogNumbers = SearchText.catalogNumbers(labels.compactMap(\.catalogNumber))
        }
        gridArtistKey = GridKey.artist(creditSortKey: credit.sortKey, year: row.year, titleSortKey: titleSortKey)
        formats = DiscogsText.formats(row.format).map { ($0.name, $0.quantity, JSONText.array($0.descriptions)) }
        dateAdded = Timestamp.string(fromEpochSeconds: row.dateAdded)
        customFields = JSONText.object(row.customFields)
        self.ordinal = ordinal
    }

    /// The row's album as the search index holds it (no tracks before sync).
    func searchAlbum(id: Int64) -> SearchIndexBuilder.Album {
        SearchIndexBuilder.Album(id: id, title: searchTitle, artists: searchArtists, labels: searchLabels, catalogNumbers: searchCatalogNumbers)
    }
}

/// Reads, checks and prepares the export's rows on a thread of its own, a few batches ahead of the
/// caller: on two cores the parsing and the text work of the next rows overlap the database writes
/// of the previous ones. Rows come out in file order, problems in their place among them.
///
/// `@unchecked Sendable`: the reader is used only by the reading thread; everything else is guarded
/// by `condition`.
final class ImportRowStream: @unchecked Sendable {
    enum Item {
        case row(PreparedRow)
        case problem(RowProblem)
    }

    struct Batch {
        var items: [Item]
        /// Bytes of the file read when the batch was full (for progress).
        var bytesRead: Int
    }

    private let reader: CSVReader
    private let header: DiscogsExportHeader
    /// Reads the file's dates ahead and decides the order of its slashed ones (see `DiscogsImporter`);
    /// asked at the first slashed date, so that a file without one is read once.
    private let slashedDatesAreMonthFirst: @Sendable () throws -> Bool
    private let condition = NSCondition()
    private var batches: [Batch] = []
    /// Rows the caller is done with, released by the reading thread (see `recycle`).
    private var spent: [[Item]] = []
    private var readingEnded = false
    private var failure: (any Error)?
    private var stopping = false
    private var threadEnded = false

    /// What the reading thread counted over the valid rows, for the summary: read once `next()` has
    /// returned nil (the thread has ended by then).
    struct Tally {
        /// Distinct artist credits.
        var credits = 0
        var folders = Set<String>()
    }

    /// A release met in the file: its number, and how many valid rows named it with each date added
    /// (identical rows are several copies: the nth is copy n). Most releases have one date added.
    struct ReleaseSeen {
        var number: Int
        var firstDateAdded: Int64
        var rowsWithFirstDate = 1
        var rowsWithOtherDates: [Int64: Int] = [:]

        init(number: Int, firstDateAdded: Int64) {
            self.number = number
            self.firstDateAdded = firstDateAdded
        }

        /// The ordinal of one more row with this date added.
        mutating func nextOrdinal(dateAdded: Int64) -> Int {
            if dateAdded == firstDateAdded {
                rowsWithFirstDate += 1
                return rowsWithFirstDate - 1
            }
            let ordinal = rowsWithOtherDates[dateAdded, default: 0]
            rowsWithOtherDates[dateAdded] = ordinal + 1
            return ordinal
        }
    }

    /// An artist credit's derived text, made once per distinct credit (the same credits recur
    /// throughout a collection).
    struct Credit {
        var displayName: String
        var sortKey: String
        var number: Int
    }
    private var readerTally = Tally()
    var tally: Tally {
        condition.lock()
        defer { condition.unlock() }
        return readerTally
    }

    private static let batchSize = 512
    /// Batches read ahead at most: memory stays flat however far the reading gets ahead.
    private static let batchesAhead = 4

    /// Starts reading at once. The caller must call `stop()` before it closes the file.
    init(reader: CSVReader, header: DiscogsExportHeader, nextRecord: @escaping @Sendable (CSVReader) throws -> CSVRecord?,
         slashedDatesAreMonthFirst: @escaping @Sendable () throws -> Bool) {
        self.reader = reader
        self.header = header
        self.slashedDatesAreMonthFirst = slashedDatesAreMonthFirst
        let thread = Thread { [self] in read(nextRecord) }
        thread.name = "crated import reader"
        thread.start()
    }

    /// The next batch in file order, nil after the last; rethrows what stopped the reading.
    func next() throws -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while batches.isEmpty && !readingEnded { condition.wait() }
        if !batches.isEmpty {
            let batch = batches.removeFirst()
            condition.broadcast()
            return batch
        }
        if let failure { throw failure }
        return nil
    }

    /// Hands rows the caller is done with back to the reading thread, which releases them the next
    /// time it hands a batch over: freeing a row's dozen strings and arrays was ~5% of the writing
    /// thread's time. Rows still referenced elsewhere are freed wherever their last reference goes.
    func recycle(_ items: [Item]) {
        guard !items.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        spent.append(items)
    }

    /// Ends the reading thread, if it is still running, and waits for it.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        while !threadEnded { condition.wait() }
    }

    private func read(_ nextRecord: (CSVReader) throws -> CSVRecord?) {
        var items: [Item] = []
        items.reserveCapacity(Self.batchSize)
        var error: (any Error)?
        // This bookkeeping needs only the file: done here, it leaves the writing thread (the busier
        // of the two) to the database.
        var releases: [Int64: ReleaseSeen] = [:]
        var credits: [String: Credit] = [:]
        var folders: [String: Int] = [:]
        var monthFirst: Bool?
        do {
            while let record = try nextRecord(reader) {
                // Not a row's problem: every row with a letter outside ASCII would be one.
                if let bad = record.invalidUTF8Fields.first {
                    throw ImportError.notUTF8(line: record.line, column: bad + 1, columnName: header.columnName(bad))
                }
                if monthFirst == nil, header.dateAdded < record.fields.count,
                   record.fields[header.dateAdded].utf8.contains(UInt8(ascii: "/")) {
                    monthFirst = try slashedDatesAreMonthFirst()
                }
                do throws(RowProblem) {
                    let row = try DiscogsExportRow(record: record, header: header, monthFirst: monthFirst ?? false)
                    let releaseNumber: Int, ordinal: Int
                    if let index = releases.index(forKey: row.releaseId) {
                        releaseNumber = releases.values[index].number
                        ordinal = releases.values[index].nextOrdinal(dateAdded: row.dateAdded)
                    } else {
                        releaseNumber = releases.count
                        ordinal = 0
                        releases[row.releaseId] = ReleaseSeen(number: releaseNumber, firstDateAdded: row.dateAdded)
                    }
                    let credit: Credit
                    if let known = credits[row.artistCredit] {
                        credit = known
                    } else {
                        let displayName = DiscogsText.displayName(row.artistCredit)
                        credit = Credit(displayName: displayName, sortKey: DiscogsText.sortKey(displayName), number: credits.count)
                        credits[row.artistCredit] = credit
                    }
                    var folderNumber: Int?
                    if let folder = row.folder {
                        folderNumber = folders[folder] ?? folders.count
                        if folderNumber == folders.count { folders[folder] = folderNumber }
                    }
                    let prepared = PreparedRow(row, credit: credit, releaseNumber: releaseNumber, folderNumber: folderNumber, ordinal: ordinal)
                    items.append(.row(prepared))
                } catch {
                    items.append(.problem(error))
                }
                if items.count == Self.batchSize {
                    guard hand(items) else { break }
                    items.removeAll(keepingCapacity: true)
                }
            }
        } catch let thrown {
            error = thrown
        }
        let tally = Tally(credits: credits.count, folders: Set(folders.keys))
        condition.lock()
        if !items.isEmpty { batches.append(Batch(items: items, bytesRead: reader.bytesRead)) }
        failure = error
        readerTally = tally
        readingEnded = true
        threadEnded = true
        condition.broadcast()
        condition.unlock()
    }

    /// Queues a full batch, waiting while enough are ahead; false when the caller has stopped.
    private func hand(_ items: [Item]) -> Bool {
        var released: [[Item]] = []
        defer { released.removeAll() }  // outside the lock
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= Self.batchesAhead && !stopping { condition.wait() }
        if stopping { return false }
        batches.append(Batch(items: items, bytesRead: reader.bytesRead))
        swap(&released, &spent)
        condition.broadcast()
        return true
    }
}
