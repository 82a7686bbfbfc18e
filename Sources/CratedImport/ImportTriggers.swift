import CratedCore
import GRDB

/// The per-row INSERT triggers of the tables a bulk import writes, set aside with the indexes
/// (`ImportIndexes`) and made again from their own statements before the import ends, inside its
/// transaction (a rollback brings them back as they were; readers never see the schema without them).
///
/// While the import defers the grid upkeep (migrations 0005, 0009) these triggers do nothing but note
/// the copies of albums the catalogue held before in `grid_pending`, which the writer then does itself
/// (`CollectionImportWriter.notesGridPending`). Running them anyway cost every row a trigger program
/// that checked for the deferral: about 0.2 s of a 200,000-row import, on the writing thread.
struct ImportTriggers {
    /// By name, so that a trigger a later migration adds runs as usual until it is looked at.
    static let names = [
        "collection_item_grid_insert",                  // WHEN NOT EXISTS grid_deferral: quiet
        "collection_item_grid_insert_deferred",         // notes old albums' copies: done by the writer
        "listing_generation_collection_album_insert",   // quiet during a deferral (0009)
        "crate_generation_insert",                      // WHEN NOT EXISTS grid_deferral: quiet (0010)
    ]

    /// Name and `CREATE TRIGGER` statement of every trigger set aside, as the migrations wrote it.
    private(set) var setAside: [(name: String, sql: String)] = []

    static func setAside(_ db: Database) throws -> ImportTriggers {
        var triggers = ImportTriggers()
        for name in names {
            guard let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?", arguments: [name])
            else { continue }
            triggers.setAside.append((name, sql))
            try db.execute(sql: "DROP TRIGGER \(name.quotedDatabaseIdentifier)")
        }
        return triggers
    }

    /// Makes every trigger set aside again.
    func restore(_ db: Database) throws {
        for trigger in setAside {
            try db.execute(sql: trigger.sql)
        }
    }
}
