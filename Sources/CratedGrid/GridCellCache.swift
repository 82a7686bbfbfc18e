import CratedJSON
import CratedCore
import Synchronization

/// The cells of albums users own (`GridCell`): kept
/// by user and album for one listing generation, so a page of albums shown before needs no SQL for
/// them. Clients ask for the same albums again and again with other page boundaries: on rotation,
/// in split view, when a layout changes, scrolling back, or in another grid of the same collection
/// (a crate, an artist, another sort). Reading a cell costs two b-tree lookups (the user's copies
/// and the album) and an image lookup, more than all the rest of a page.
///
/// Every table a cell is read from advances the listing generation when it changes
/// (Migrations/0007_listing_generation.sql), so a cell kept for the generation a reader's transaction
/// sees is exactly what it would read. Cells of an older generation are dropped as soon as a newer
/// one is seen, and a reader of an older generation (a transaction begun before a write) is neither
/// served nor allowed to store.
final class GridCellCache: Sendable {
    private struct Key: Hashable {
        var userId: Int64
        var albumId: Int64
    }

    private struct State {
        var generation = Int64.min
        var cells: [Key: GridCell] = [:]
    }

    private let capacity: Int
    private let state = Mutex(State())

    /// At most `capacity` cells (some 800 bytes each with their JSON, more with artwork URLs); 0 keeps none.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The kept cells of `albumIds` in their order, nil for each one not kept at `generation`.
    func cells(userId: Int64, albumIds: [Int64], generation: Int64) -> [GridCell?] {
        guard capacity > 0 else { return Array(repeating: nil, count: albumIds.count) }
        return state.withLock { state in
            guard state.generation == generation else { return Array(repeating: nil, count: albumIds.count) }
            return albumIds.map { state.cells[Key(userId: userId, albumId: $0)] }
        }
    }

    /// Keeps cells read at `generation`; nothing when a newer generation has been seen.
    func store(_ cells: [(albumId: Int64, cell: GridCell)], userId: Int64, generation: Int64) {
        guard capacity > 0, !cells.isEmpty else { return }
        state.withLock { state in
            if generation > state.generation {
                state.cells.removeAll(keepingCapacity: true)
                state.generation = generation
            }
            guard generation == state.generation else { return }
            // Full: start again rather than track what was used last; a working set larger than the
            // cache is read from SQLite as it would be without one.
            if state.cells.count + cells.count > capacity { state.cells.removeAll(keepingCapacity: true) }
            for (albumId, cell) in cells.prefix(capacity) { state.cells[Key(userId: userId, albumId: albumId)] = cell }
        }
    }

    /// How many cells are kept (tests).
    var count: Int { state.withLock { $0.cells.count } }
}

/// What a grid cell shows of an album the user owns, before it is placed and its artwork sized, and
/// those fields' JSON, written once: a kept cell is shown on many pages, in many layouts.
final class GridCell: Sendable, Equatable {
    let title: String
    let artist: String
    let year: Int?
    let copyCount: Int
    let rating: Int?
    let dateAdded: String
    let cover: AlbumCover?
    /// Where the album stands in each sort (the date added is `dateAdded`): what a cursor starts from.
    let sortKeys: SortKeys
    /// `"title":…,"artist":…,"year":…,"copyCount":…,"rating":…,"dateAdded":…` (nil ones left out):
    /// the cell's part of a grid item's JSON object.
    let json: [UInt8]
    /// The `json`'s content hash, for page ETags.
    let digest: UInt64

    /// `collection_album`'s sort keys (Migrations/0005_grid.sql).
    struct SortKeys: Sendable, Equatable {
        var artist: String
        var title: String
        /// 99999 when the year is unknown.
        var year: Int64
        /// 0 when no copy is rated.
        var rating: Int64
    }

    init(title: String, artist: String, year: Int?, copyCount: Int, rating: Int?, dateAdded: String, cover: AlbumCover?, sortKeys: SortKeys) {
        self.title = title
        self.artist = artist
        self.year = year
        self.copyCount = copyCount
        self.rating = rating
        self.dateAdded = dateAdded
        self.cover = cover
        self.sortKeys = sortKeys
        json = JSONWriter.fields { fields in
            fields.field("title", title)
            fields.field("artist", artist)
            fields.field("year", year)
            fields.field("copyCount", copyCount)
            fields.field("rating", rating)
            fields.field("dateAdded", dateAdded)
        }
        var hash = StableHash()
        json.withUnsafeBytes { hash.combine($0) }
        digest = hash.value
    }

    static func == (lhs: GridCell, rhs: GridCell) -> Bool {
        lhs.json == rhs.json && lhs.cover == rhs.cover && lhs.sortKeys == rhs.sortKeys
    }
}
