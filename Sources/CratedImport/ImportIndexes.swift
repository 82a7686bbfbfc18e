import CratedCore
import GRDB

/// The secondary indexes of the tables an import writes, set aside for a large import and built
/// again at its end, inside the import's transaction.
///
/// Filling an index row by row inserts into a B-tree in random key order (artist names, sort keys),
/// a seek and often a page split per row; `CREATE INDEX` sorts the finished table once and writes
/// the index's pages in order. For an import that is large against what the database holds that
/// is several times cheaper. DDL is transactional in SQLite: if the import fails or is killed, the
/// rollback brings the indexes back as they were, and readers never see the database without them
/// (they read the last commit).
///
/// Only indexes the import does not read are set aside: the writer finds artists and albums in
/// dictionaries loaded at its start (see `CollectionImportWriter`), copies by the table's UNIQUE
/// constraint and crate entries by their primary key, which are not indexes that can be dropped.
struct ImportIndexes {
    /// The tables an import writes row by row. The search index is built in one pass already.
    static let tables = ["artist", "album_artist", "album_format", "collection_item", "crate_item", "collection_album"]

    /// SQLite's page cache, in KiB, while a bulk write and its index builds run (see `rebuild`).
    static let bulkCacheKiB = 12288

    /// Name and `CREATE INDEX` statement of every index set aside, as the migrations wrote it.
    private(set) var setAside: [(name: String, sql: String)] = []
    var names: [String] { setAside.map(\.name) }

    /// Drops the indexes of `tables` that a migration created (those with SQL; the ones SQLite makes
    /// for UNIQUE and PRIMARY KEY constraints have none and stay) and remembers how to make them again.
    static func setAside(_ db: Database) throws -> ImportIndexes {
        let rows = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_schema
            WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (SELECT value FROM json_each(?))
            ORDER BY name
            """, arguments: ["[" + tables.map { "\"\($0)\"" }.joined(separator: ",") + "]"])
        var indexes = ImportIndexes()
        for row in rows {
            let name: String = row["name"]
            indexes.setAside.append((name, row["sql"]))
            try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
        }
        return indexes
    }

    /// About how many rows the largest tables that an import writes hold: the larger of the album and
    /// copy counts, read from their largest ids (an index seek each instead of a count).
    static func rowsHeld(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT MAX((SELECT COALESCE(MAX(id), 0) FROM album), (SELECT COALESCE(MAX(id), 0) FROM collection_item))
            """) ?? 0
    }

    /// Builds every index set aside again, from the statement that first created it.
    func rebuild(_ db: Database) throws {
        // Each build sorts its keys. In memory (temp_store = MEMORY) SQLite's sorter allocates every
        // key on its own and sorts on one thread; on file it sorts runs as large as the cache allows,
        // on worker threads, and merges them (the temporary files stay in the OS's cache). The cache
        // also holds the table being read: with 12 MB or more, a table's pages stay there across the
        // builds of its indexes (collection_album has five, collection_item three) instead of being
        // read back from the WAL for each. 200,000 rows, all fifteen builds: 1.10 s CPU with 2 MB ->
        // 0.82 s with 16 MB (32 MB: no faster, 20 MB more at the peak); the bulk write's cache.
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size")!
        let tempStore = try Int.fetchOne(db, sql: "PRAGMA temp_store")!
        try db.execute(sql: "PRAGMA temp_store = FILE")
        try db.execute(sql: "PRAGMA threads = 2")
        try db.execute(sql: "PRAGMA cache_size = -\(Self.bulkCacheKiB)")
        defer {
            try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)")
            try? db.execute(sql: "PRAGMA threads = 0")
            try? db.execute(sql: "PRAGMA temp_store = \(tempStore)")
        }
        for index in setAside {
            try db.execute(sql: index.sql)
        }
    }
}
