import CratedCore
import GRDB

/// A set of album ids as a bitmap over `0...maxAlbumId`: what one grid restriction lets through.
/// 25 KB for a catalogue of 200,000 albums, and a lookup is a shift and a mask.
struct AlbumSet: Sendable {
    private var words: [UInt64]

    /// Ids beyond `maxAlbumId` are left out: no grid that asks holds them.
    init(maxAlbumId: Int64, ids: (_ insert: (Int64) -> Void) throws -> Void) rethrows {
        var words = [UInt64](repeating: 0, count: Int(maxAlbumId) / 64 + 1)
        try ids { id in
            guard id >= 0, id <= maxAlbumId else { return }
            words[Int(id) >> 6] |= 1 << UInt64(id & 63)
        }
        self.words = words
    }

    func contains(_ id: Int64) -> Bool {
        let word = Int(id) >> 6
        return word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
    }

    /// The albums a restriction's query (one column of album ids) answers.
    static func reading(_ db: Database, _ query: GridSQL.Fragment, maxAlbumId: Int64) throws -> AlbumSet {
        try AlbumSet(maxAlbumId: maxAlbumId) { insert in
            try db.forEachRow(query.sql, values: query.arguments) { insert(try $0.int64(0)) }
        }
    }

    /// Bytes held, for the cache's bound.
    var weight: Int { words.count * 8 }
}
