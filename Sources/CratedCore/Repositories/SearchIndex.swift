import GRDB

/// Keeps `album_search` (FTS5) in step with the catalogue. Import and sync call `refresh` for the
/// albums they changed, inside their own transaction.
public enum SearchIndex {
    /// Rewrites the search rows of the given albums from the catalogue tables.
    public static func refresh(_ db: Database, albumIds: some Collection<Int64>) throws {
        guard !albumIds.isEmpty else { return }
        // Batches keep each statement under SQLite's bound-parameter limit.
        for batch in Array(albumIds).chunked(into: 500) {
            let placeholders = databaseQuestionMarks(count: batch.count)
            let arguments = StatementArguments(batch)
            // Cached: sync refreshes one album per transaction, thousands of times in a pass.
            try db.cachedStatement(sql: "DELETE FROM album_search WHERE rowid IN (\(placeholders))").execute(arguments: arguments)
            try db.cachedStatement(sql: """
                INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
                SELECT a.id, a.title,
                       a.artist_credit || ' ' || COALESCE((SELECT group_concat(ar.name || ' ' || ar.discogs_name, ' ')
                                                           FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                           WHERE aa.album_id = a.id), ''),
                       COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), ''),
                       COALESCE((SELECT group_concat(catalog_number, ' ') FROM album_label WHERE album_id = a.id), ''),
                       COALESCE((SELECT group_concat(title, ' ') FROM track WHERE album_id = a.id), '')
                FROM album a WHERE a.id IN (\(placeholders))
                """).execute(arguments: arguments)
        }
    }
}

/// Turns what a user types into a safe FTS5 query: every word becomes a quoted prefix term, so FTS
/// syntax in the input (`"`, `*`, `NEAR(`, `AND`, `-`) is searched for as text, never interpreted.
public enum SearchText {
    /// The MATCH expression for `text`, or nil when it holds no searchable word.
    public static func matchExpression(_ text: String) -> String? {
        let words = text.split { !($0.isLetter || $0.isNumber) }.prefix(16)
        guard !words.isEmpty else { return nil }
        return words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
    }
}

extension Array {
    func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
