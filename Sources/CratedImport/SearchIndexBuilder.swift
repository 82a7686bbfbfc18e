import CratedCore
import Foundation
import GRDB

/// Builds the search index of a bulk import's new albums in a scratch database, on a connection and a
/// thread of its own, while the import's connection writes the rest; the import then copies the
/// finished index into `album_search`.
///
/// Indexing is the largest single cost of a large import (FTS5 with two prefix indexes: ~1.7 s of
/// 200,000 rows), and SQLite does all of one connection's work on one core. Here it runs beside the
/// import's own connection: the writer hands each batch of new albums over as it writes them, and
/// they wait, packed, until the rows are in (or until `pendingBytesLimit` of them wait): while the
/// rows are read and written, the reading and writing threads keep both cores busy, and indexing
/// beside them only slowed them down; once the rows are in, the import's connection builds its
/// indexes on one core and indexing takes the other. The copy is then a plain append of its rows.
///
/// Only for a search index that is empty (a first import): the copy replaces FTS5's own tables
/// (`album_search_data`, `_idx`, `_content`, `_docsize`, `_config`) whole. The scratch index starts as
/// a copy of the import database's (its configuration and empty structure), takes the albums
/// `SearchIndex.add` would, in the same order, in one transaction, and so ends with the same rows.
///
/// The scratch file is attached to the import's connection before its transaction (SQLite does not
/// attach inside one) and removed after it; one that a killed import left is removed by the next.
final class SearchIndexBuilder: @unchecked Sendable {
    /// The scratch database's name on the import's connection.
    static let schemaName = "import_search"
    /// FTS5's tables for `album_search`, copied back whole.
    static let shadowTables = ["album_search_data", "album_search_idx", "album_search_content", "album_search_docsize", "album_search_config"]

    let path: String
    /// The scratch connection; used only on `queue`.
    private var scratch: DatabaseQueue?
    private let queue = DispatchQueue(label: "crated import search index")
    private let failure = NSLock()
    private var error: (any Error)?
    private var started = false
    /// Albums handed over by `add` and not yet indexed, packed, and the ends of either side; guarded
    /// by `feed`.
    private let feed = NSCondition()
    private var waitingAlbums: [PackedAlbums] = []
    private var waitingBytes = 0
    private var albumsEnded = false
    private var indexingEnded = false
    /// Indexing starts before the rows are in once this much is waiting, and `add` waits while twice
    /// as much is: memory stays bounded however large the import. 200,000 rows of the benchmark's
    /// file pack into ~17 MB.
    let pendingBytesLimit: Int

    private static let filePrefix = "crated-import-search-"

    /// A scratch file attached to `db` (outside a transaction); nothing is written to it until `start`.
    init(attachingTo db: Database, pendingBytesLimit: Int = 24 << 20) throws {
        self.pendingBytesLimit = pendingBytesLimit
        Self.removeFilesOfEndedImports()
        let name = Self.filePrefix + "\(getpid())-\(UUID().uuidString).sqlite"
        path = FileManager.default.temporaryDirectory.appending(path: name).path
        try db.execute(sql: "ATTACH DATABASE ? AS \(Self.schemaName)", arguments: [path])
        // Read once, start to end: through the memory map (the connection's setting) its ~50 MB of
        // pages would all count as the import's memory.
        try db.execute(sql: "PRAGMA \(Self.schemaName).mmap_size = 0")
    }

    /// Detaches and removes the scratch file (outside a transaction).
    func detach(_ db: Database) {
        // An import that failed before `finish` leaves the indexing thread waiting for albums: what
        // waits is not needed any more (after `copy`, nothing does).
        feed.lock()
        waitingAlbums.removeAll()
        waitingBytes = 0
        feed.unlock()
        finish()
        queue.sync { scratch = nil }
        try? db.execute(sql: "DETACH DATABASE \(Self.schemaName)")
        for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// Removes the scratch files that killed imports left: those named after a process that has ended.
    static func removeFilesOfEndedImports() {
        let folder = FileManager.default.temporaryDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(filePrefix) {
            guard let pid = Int32(name.dropFirst(filePrefix.count).prefix { $0 != "-" }),
                  kill(pid, 0) != 0 && errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: folder.appending(path: name))
        }
    }

    /// Takes the main database's write lock at the start of a deferred transaction, as BEGIN IMMEDIATE
    /// would, without locking the scratch file: a write that changes nothing (the grids' pending list is
    /// empty outside an import), waiting out another writer up to the busy timeout.
    func lockMainDatabase(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM main.grid_pending")
    }

    /// Whether the import database's search index is empty, so that this builder may replace it.
    static func canReplace(_ db: Database) throws -> Bool {
        try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM album_search_content)")!
    }

    /// Starts the scratch index as a copy of the import database's (empty) one, and starts indexing:
    /// the albums that `add` hands over are indexed once the rows are in (see the type's comment).
    /// `expectedAlbums` sizes FTS5's buffer as `SearchIndex.add` would for that many albums; the file's
    /// size gives it, the number of new albums being known only at the end.
    func start(from db: Database, expectedAlbums: Int) throws {
        let create = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE name = 'album_search'")!
        let data = try Row.fetchAll(db, sql: "SELECT id, block FROM album_search_data").map { ($0["id"] as DatabaseValue, $0["block"] as DatabaseValue) }
        let config = try Row.fetchAll(db, sql: "SELECT k, v FROM album_search_config").map { ($0["k"] as DatabaseValue, $0["v"] as DatabaseValue) }
        started = true
        run { scratch in
            try scratch.execute(sql: create)
            try scratch.execute(sql: "DELETE FROM album_search_data")
            for (id, block) in data {
                try scratch.execute(sql: "INSERT INTO album_search_data (id, block) VALUES (?, ?)", arguments: [id, block])
            }
            try scratch.execute(sql: "DELETE FROM album_search_config")
            for (key, value) in config {
                try scratch.execute(sql: "INSERT INTO album_search_config (k, v) VALUES (?, ?)", arguments: [key, value])
            }
        }
        // One transaction for the whole index, one single-row INSERT per album. FTS5 writes its pending
        // terms out as a segment when they pass its buffer, at a savepoint and at the commit; a
        // single-row INSERT opens no savepoint (an INSERT ... SELECT does, hence `SearchIndex.add`'s
        // one statement), so the segments come out as that one statement's would: the same rows.
        run { [self] scratch in
            defer { endIndexing() }
            let insert = try BulkStatement(scratch, sql: "INSERT INTO album_search (\(SearchIndex.columns)) VALUES (?, ?, ?, ?, ?, '')")
            try SearchIndex.indexing(scratch, albums: expectedAlbums) {
                while let albums = nextAlbums() {
                    try albums.forEach { id, texts in
                        // As `SearchIndex.insertSQL` reads them; no tracks before sync.
                        insert.bind(1, id)
                        for (column, text) in texts.enumerated() { insert.bind(Int32(column) + 2, utf8: text) }
                        try insert.execute()
                    }
                }
            }
        }
    }

    /// A new album's searchable text, as `SearchIndex.insertSQL` builds it from the catalogue.
    struct Album: Sendable {
        var id: Int64
        var title: String
        var artists: String
        var labels: String
        var catalogNumbers: String
    }

    /// Albums' ids and texts in one buffer: waiting as `Album`s (five strings each, most of them
    /// allocations of their own), the albums of a whole import took twice the memory or more.
    struct PackedAlbums: Sendable {
        /// Per album: the id, the four texts' byte counts, then the texts' bytes.
        private var bytes: [UInt8] = []
        let count: Int
        var byteCount: Int { bytes.count }

        init(_ albums: [Album]) {
            count = albums.count
            bytes.reserveCapacity(albums.reduce(0) { total, album in
                total + 24 + album.title.utf8.count + album.artists.utf8.count + album.labels.utf8.count + album.catalogNumbers.utf8.count
            })
            for album in albums {
                withUnsafeBytes(of: album.id.littleEndian) { bytes.append(contentsOf: $0) }
                let texts = [album.title, album.artists, album.labels, album.catalogNumbers]
                for text in texts { withUnsafeBytes(of: UInt32(text.utf8.count).littleEndian) { bytes.append(contentsOf: $0) } }
                for text in texts { bytes.append(contentsOf: text.utf8) }
            }
        }

        /// Calls `body` with each album's id and its title, artists, labels and catalogue numbers as
        /// UTF-8, valid during the call.
        func forEach(_ body: (Int64, [UnsafeBufferPointer<UInt8>]) throws -> Void) rethrows {
            try bytes.withUnsafeBufferPointer { buffer in
                let raw = UnsafeRawBufferPointer(buffer)
                var offset = 0
                var texts: [UnsafeBufferPointer<UInt8>] = []
                texts.reserveCapacity(4)
                for _ in 0..<count {
                    let id = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self))
                    var start = offset + 24
                    texts.removeAll(keepingCapacity: true)
                    for column in 0..<4 {
                        let length = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset + 8 + 4 * column, as: UInt32.self)))
                        texts.append(UnsafeBufferPointer(rebasing: buffer[start..<start + length]))
                        start += length
                    }
                    try body(id, texts)
                    offset = start
                }
            }
        }
    }

    /// Hands new albums (in id order) to the indexing thread. Waits while twice `pendingBytesLimit`
    /// is waiting already, so that memory stays bounded if indexing falls behind the import.
    func add(_ albums: [Album]) {
        guard started, !albums.isEmpty else { return }
        let packed = PackedAlbums(albums)
        feed.lock()
        defer { feed.unlock() }
        while waitingBytes >= 2 * pendingBytesLimit && !indexingEnded { feed.wait() }
        // Indexing has failed: `copy` reports why.
        guard !indexingEnded else { return }
        waitingAlbums.append(packed)
        waitingBytes += packed.byteCount
        feed.broadcast()
    }

    /// Marks the last album handed over: indexing ends after it, and `copy` waits for that.
    func finish() {
        feed.lock()
        albumsEnded = true
        feed.broadcast()
        feed.unlock()
    }

    /// The next albums handed over, once the last has been (see `finish`) or `pendingBytesLimit` is
    /// waiting; nil after the last.
    private func nextAlbums() -> PackedAlbums? {
        feed.lock()
        defer { feed.unlock() }
        while (waitingAlbums.isEmpty || waitingBytes < pendingBytesLimit) && !albumsEnded { feed.wait() }
        guard !waitingAlbums.isEmpty else { return nil }
        feed.broadcast()
        let albums = waitingAlbums.removeFirst()
        waitingBytes -= albums.byteCount
        return albums
    }

    private func endIndexing() {
        feed.lock()
        indexingEnded = true
        feed.broadcast()
        feed.unlock()
    }

    /// Waits for the scratch index and replaces the import database's search index with it, inside
    /// the import's transaction.
    func copy(into db: Database) throws {
        queue.sync {}
        failure.lock()
        defer { failure.unlock() }
        if let error { throw error }
        for table in Self.shadowTables {
            try db.execute(sql: "DELETE FROM main.\(table)")
            try db.execute(sql: "INSERT INTO main.\(table) SELECT * FROM \(Self.schemaName).\(table)")
        }
        try ListingGeneration.advance(db)
    }

    /// Runs `work` on the scratch connection, in order; after a failure, nothing more runs.
    private func run(_ work: @escaping @Sendable (Database) throws -> Void) {
        queue.async { [self] in
            failure.lock()
            let failed = error != nil
            failure.unlock()
            guard !failed else { return }
            do {
                if scratch == nil {
                    var configuration = Configuration()
                    configuration.label = "import search index"
                    // A scratch file, thrown away after the import: no journal, no syncs.
                    configuration.journalMode = .default
                    configuration.prepareDatabase { db in
                        try db.execute(sql: "PRAGMA journal_mode = OFF")
                        try db.execute(sql: "PRAGMA synchronous = OFF")
                    }
                    scratch = try DatabaseQueue(path: path, configuration: configuration)
                }
                // Each step is a transaction of its own: the index is read only after the last.
                try scratch!.write { try work($0) }
            } catch {
                failure.lock()
                self.error = error
                failure.unlock()
                // `add` must not wait for an indexing that will not run.
                endIndexing()
            }
        }
    }
}
