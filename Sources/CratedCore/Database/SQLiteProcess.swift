import CSQLiteConfig

/// Settings of SQLite that hold for the whole process and must be made before it opens its first
/// connection.
public enum SQLiteProcess {
    /// Turns off SQLite's memory statistics (`sqlite3_memory_used` and the soft heap limit, which crated
    /// uses neither of). With them on, every allocation SQLite makes takes one mutex shared by all
    /// connections: the import's two connections, each on its own thread and both allocating all the
    /// time, spent a share of their time waiting for each other there.
    ///
    /// Returns whether the setting took, which it does only before the first connection is opened.
    @discardableResult
    public static func disableMemoryStatistics() -> Bool {
        crated_sqlite3_disable_memory_statistics() == 0
    }
}
