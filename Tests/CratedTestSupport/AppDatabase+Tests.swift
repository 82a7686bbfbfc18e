import CratedCore
import GRDB

// How tests read what the code under test wrote: through GRDB's own pool, beside the read-only
// connections that crated's reads use, so that a test never depends on the code it checks.
extension AppDatabase {
    public var reader: any DatabaseReader { writer }

    public func syncState(ofAlbum albumId: Int64) throws -> AlbumSyncState? {
        try reader.read { db in try AlbumSyncState.fetchOne(db, key: albumId) }
    }

    public func copies(ofUser userId: Int64) throws -> [CollectionItem] {
        try reader.read { db in
            try CollectionItem.filter(CollectionItem.Columns.userId == userId).order(CollectionItem.Columns.id).fetchAll(db)
        }
    }
}

extension Migration {
    /// The embedded migrations before `fileName`: a database as a release without that one left it.
    public static func embedded(before fileName: String) -> [Migration] {
        Array(embedded.prefix { $0.fileName < fileName })
    }
}
