import CratedTestSupport
import CratedCore
@testable import CratedGrid
import Foundation
import GRDB

/// A random catalogue and two users' collections, written to a database and kept as a plain model, so
/// that a test can compute by brute force which albums a grid holds and in which order.
///
/// The values are drawn from small pools so that sort keys tie often (ties are where keyset paging goes
/// wrong) and so that names start with letters, digits, symbols, accents and other scripts.
struct RandomLibrary {
    struct Album {
        var id: Int64
        var artistId: Int64
        var credit: String
        var title: String
        var year: Int?
        var genres: Set<String>
        var styles: Set<String>
        var formats: Set<String>
    }

    struct Copy {
        var id: Int64
        var userId: Int64
        var albumId: Int64
        var dateAdded: String
        var rating: Int?
        var crates: Set<Int64>
        /// Its place in each of its crates.
        var cratePositions: [Int64: Int64] = [:]
    }

    static let artistNames = [
        "The Beatles", "Beatles Revival", "Ayler", "Coltrane", "Can", "Cluster", "Neu!", "10cc", "!!!",
        "Ωmega", "Émile Parisien", "a-ha", "Zappa", "Mingus", "The The",
    ]
    static let titleWords = ["blue", "train", "night", "sun", "moon", "river", "kind", "love", "dream", "fire", "1999", "Été"]
    static let genres = ["Jazz", "Rock", "Electronic"]
    static let styles = ["Free Jazz", "Krautrock", "Ambient"]
    static let formats = ["LP", "CD", "7\""]

    let database: AppDatabase
    private(set) var collector: Int64 = 0
    private(set) var other: Int64 = 0
    private(set) var artistIds: [Int64] = []
    private(set) var albums: [Int64: Album] = [:]
    private(set) var copies: [Int64: Copy] = [:]
    /// The collector's crates, then the other user's.
    private(set) var crates: [Int64] = []
    private(set) var otherUsersCrate: Int64 = 0

    /// Writes `albumCount` albums; the collector owns most of them (some in several copies), the other
    /// user some, and a few belong to nobody.
    init(database: AppDatabase, albumCount: Int, using random: inout SeededGenerator) throws {
        self.database = database
        let people = try database.writer.write { db in
            let collector = try db.insertUser("collector")
            let other = try db.insertUser("other")
            let artistIds = try Self.artistNames.map { try db.insertArtist($0) }
            let crates = [try db.insertCrate(userId: collector, name: "Keepers"), try db.insertCrate(userId: collector, name: "To sell")]
            return (collector: collector, other: other, artistIds: artistIds, crates: crates,
                    otherUsersCrate: try db.insertCrate(userId: other, name: "Theirs"))
        }
        collector = people.collector
        other = people.other
        artistIds = people.artistIds
        crates = people.crates
        otherUsersCrate = people.otherUsersCrate
        for _ in 0..<albumCount {
            try addAlbum(using: &random)
        }
        try shuffleCrates(using: &random)
    }

    /// Puts each crate's copies in a random order, with gaps and ties between places (as crates of
    /// older imports have), so that a crate's order is not the order albums were added in.
    mutating func shuffleCrates(using random: inout SeededGenerator) throws {
        for crate in crates + [otherUsersCrate] {
            let members = copies.values.filter { $0.crates.contains(crate) }.map(\.id).sorted()
            let places = members.map { _ in Int64.random(in: 0...Int64(members.count), using: &random) }
            try database.writer.write { db in
                for (copyId, position) in zip(members, places) {
                    try db.execute(sql: "UPDATE crate_item SET position = ? WHERE crate_id = ? AND item_id = ?", arguments: [position, crate, copyId])
                }
            }
            for (copyId, position) in zip(members, places) { copies[copyId]!.cratePositions[crate] = position }
        }
    }

    /// Adds an album with its copies (the collector's in 85 of 100 cases); returns its id.
    @discardableResult
    mutating func addAlbum(using random: inout SeededGenerator) throws -> Int64 {
        let artistIndex = Int.random(in: 0..<artistIds.count, using: &random)
        let title = (0..<Int.random(in: 1...3, using: &random)).map { _ in Self.titleWords.randomElement(using: &random)! }
            .joined(separator: " ").capitalized
        let year: Int? = random.chance(0.2) ? nil : Int.random(in: 1965...1975, using: &random)
        let genres = Set(Self.genres.filter { _ in random.chance(0.4) })
        let styles = Set(Self.styles.filter { _ in random.chance(0.3) })
        let formats = Set(Self.formats.filter { _ in random.chance(0.5) })
        var owners: [Int64] = []
        if random.chance(0.85) { owners += Array(repeating: collector, count: random.chance(0.2) ? Int.random(in: 2...3, using: &random) : 1) }
        if random.chance(0.3) { owners.append(other) }
        let copyPlans = owners.map { owner in
            (owner: owner, date: "\(2018 + Int.random(in: 0...3, using: &random))-01-0\(Int.random(in: 1...9, using: &random))T12:00:00Z",
             rating: random.chance(0.5) ? nil : Int.random(in: 1...5, using: &random),
             crates: owner == collector ? Set(crates.filter { _ in random.chance(0.35) }) : (random.chance(0.5) ? [otherUsersCrate] : []))
        }

        let artistId = artistIds[artistIndex]
        let (albumId, placedCopies) = try database.writer.write { db in
            let albumId = try db.insertAlbum(
                title: title, artistId: artistId, year: year,
                genres: genres.sorted(), styles: styles.sorted(), formats: formats.sorted())
            var copyIds: [Int64] = []
            var cratePositions: [[Int64: Int64]] = []
            for (ordinal, plan) in copyPlans.enumerated() {
                let id = try db.insertCopy(userId: plan.owner, albumId: albumId, dateAdded: plan.date, rating: plan.rating, copyOrdinal: ordinal)
                for crate in plan.crates { try db.addToCrate(crateId: crate, itemId: id) }
                copyIds.append(id)
                cratePositions.append(try Dictionary(uniqueKeysWithValues: plan.crates.map { crate in
                    (crate, try Int64.fetchOne(db, sql: "SELECT position FROM crate_item WHERE crate_id = ? AND item_id = ?", arguments: [crate, id])!)
                }))
            }
            return (albumId, zip(copyIds, cratePositions).map { ($0, $1) })
        }
        albums[albumId] = Album(
            id: albumId, artistId: artistId, credit: Self.artistNames[artistIndex], title: title, year: year,
            genres: genres, styles: styles, formats: formats)
        for ((id, positions), plan) in zip(placedCopies, copyPlans) {
            copies[id] = Copy(id: id, userId: plan.owner, albumId: albumId, dateAdded: plan.date, rating: plan.rating,
                              crates: plan.crates, cratePositions: positions)
        }
        return albumId
    }

    /// Removes all of a user's copies of an album: the album leaves that user's grids.
    mutating func removeFromCollection(userId: Int64, albumId: Int64) throws {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM collection_item WHERE user_id = ? AND album_id = ?", arguments: [userId, albumId])
        }
        copies = copies.filter { !($0.value.userId == userId && $0.value.albumId == albumId) }
    }

    // MARK: The expected grid, by brute force

    /// The album ids of a user's grid, in grid order.
    func expectedGrid(userId: Int64, request: GridRequest) -> [Int64] {
        let owned = Dictionary(grouping: copies.values.filter { $0.userId == userId }, by: \.albumId)
        let members = owned.keys.filter { albumId in
            matches(albums[albumId]!, copies: owned[albumId]!, scope: request.scope, filters: request.filters)
        }
        func key(_ albumId: Int64) -> SortKey {
            let album = albums[albumId]!
            let albumCopies = owned[albumId]!
            switch request.sort {
            case .artist: return .text(DiscogsText.sortKey(album.credit))
            case .title: return .text(DiscogsText.sortKey(album.title))
            case .year: return .integer(Int64(album.year ?? 99999))
            case .dateAdded: return .text(albumCopies.map(\.dateAdded).max()!)
            case .rating: return .integer(Int64(albumCopies.compactMap(\.rating).max() ?? 0))
            case .crate:
                guard case .crate(let crate) = request.scope else { fatalError("a crate's order outside a crate's grid") }
                // The album's first copy in the crate's listing: by position, then copy id.
                return .integer(albumCopies.compactMap { copy in copy.cratePositions[crate].map { $0 << 32 + copy.id } }.min()!)
            }
        }
        // The artist sort orders one artist's albums by year, then title.
        func keys(_ albumId: Int64) -> [SortKey] {
            guard request.sort == .artist else { return [key(albumId)] }
            let album = albums[albumId]!
            return [key(albumId), .integer(Int64(album.year ?? 99999)), .text(DiscogsText.sortKey(album.title))]
        }
        let descending = request.sort == .dateAdded || request.sort == .rating
        return members.sorted { a, b in
            var order = zip(keys(a), keys(b)).lazy.map { $0.compare(to: $1) }.first { $0 != 0 } ?? 0
            if order == 0 { order = a < b ? -1 : 1 }
            return descending ? order > 0 : order < 0
        }
    }

    private func collectorsCopies(of albumId: Int64) -> [Copy] {
        copies.values.filter { $0.userId == collector && $0.albumId == albumId }
    }

    /// The jump bar the collector's grid in this order should have.
    func expectedSections(_ grid: [Int64], sort: GridSort) -> [GridSection] {
        var sections: [GridSection] = []
        for (position, albumId) in grid.enumerated() {
            let album = albums[albumId]!
            let letter: String
            switch sort {
            case .artist, .title:
                let key = DiscogsText.sortKey(sort == .artist ? album.credit : album.title)
                let first = key.unicodeScalars.first
                // Latin letters, and the Greek and Cyrillic ones (U+0370 to U+052F), have letters of their own.
                let greekOrCyrillic = first.map { (0x0370..<0x0530).contains($0.value) && $0.properties.isLowercase } ?? false
                letter = first.map { ($0.isASCII && $0.properties.isAlphabetic) || greekOrCyrillic ? String($0).uppercased() : "#" } ?? "#"
            case .year:
                letter = album.year.map { "\($0 / 10 * 10)s" } ?? "?"
            case .dateAdded:
                letter = String(collectorsCopies(of: albumId).map(\.dateAdded).max()!.prefix(4))
            case .rating:
                letter = collectorsCopies(of: albumId).compactMap(\.rating).max().map { "\($0)" } ?? "?"
            case .crate:
                return []
            }
            if !sections.contains(where: { $0.letter == letter }) { sections.append(GridSection(letter: letter, position: position)) }
        }
        return sections
    }

    private func matches(_ album: Album, copies: [Copy], scope: GridScope, filters: GridFilters) -> Bool {
        switch scope {
        case .collection: break
        case .crate(let id): guard copies.contains(where: { $0.crates.contains(id) }) else { return false }
        // The model's albums have no tracks or credits: an artist's other lists are empty in it.
        case .artist(let id, let role): guard role == .albums, album.artistId == id else { return false }
        case .genre(let name): guard album.genres.contains(name) else { return false }
        case .style(let name): guard album.styles.contains(name) else { return false }
        case .search(let text): guard matchesText(album, text) else { return false }
        }
        if let id = filters.crateId, !copies.contains(where: { $0.crates.contains(id) }) { return false }
        if let name = filters.genre, !album.genres.contains(name) { return false }
        if let name = filters.style, !album.styles.contains(name) { return false }
        if let id = filters.artistId, album.artistId != id { return false }
        if filters.yearFrom != nil || filters.yearTo != nil {
            guard let year = album.year, year >= filters.yearFrom ?? 1, year <= filters.yearTo ?? 9999 else { return false }
        }
        if let name = filters.format, !album.formats.contains(name) { return false }
        if let text = filters.text, !matchesText(album, text) { return false }
        return true
    }

    /// FTS5 with unicode61 and prefix queries: every word typed starts some word of the title or credit.
    private func matchesText(_ album: Album, _ text: String) -> Bool {
        func words(_ text: String) -> [String] {
            text.split { !($0.isLetter || $0.isNumber) }.map { DiscogsText.fold(String($0)) }
        }
        let albumWords = words(album.title) + words(album.credit)
        let queryWords = words(text)
        return !queryWords.isEmpty && queryWords.allSatisfy { query in albumWords.contains { $0.hasPrefix(query) } }
    }

    // MARK: Random requests

    /// A random scope, sort and set of filters over this library (often narrow, sometimes empty).
    func randomRequest(using random: inout SeededGenerator) -> GridRequest {
        let ownedAlbums = albums.values.filter { album in copies.values.contains { $0.albumId == album.id && $0.userId == collector } }
        let someArtist = ownedAlbums.randomElement(using: &random)?.artistId ?? artistIds[0]
        let someWord = String(Self.titleWords.randomElement(using: &random)!.prefix(Int.random(in: 1...3, using: &random)))
        let scope: GridScope = switch Int.random(in: 0..<9, using: &random) {
        case 0, 8: .crate(id: crates[0])
        case 1: .artist(id: someArtist)
        case 2: .genre(Self.genres.randomElement(using: &random)!)
        case 3: .style(Self.styles.randomElement(using: &random)!)
        case 4: .search(someWord)
        default: .collection
        }
        var filters = GridFilters()
        if random.chance(0.15) { filters.crateId = crates[1] }
        if random.chance(0.15) { filters.genre = Self.genres.randomElement(using: &random)! }
        if random.chance(0.1) { filters.style = Self.styles.randomElement(using: &random)! }
        if random.chance(0.1) { filters.artistId = someArtist }
        if random.chance(0.2) { filters.yearFrom = Int.random(in: 1965...1970, using: &random) }
        if random.chance(0.2) { filters.yearTo = Int.random(in: 1970...1975, using: &random) }
        if random.chance(0.15) { filters.format = Self.formats.randomElement(using: &random)! }
        if random.chance(0.1) { filters.text = String(Self.titleWords.randomElement(using: &random)!.prefix(2)) }
        // A crate's grid is in the crate's own order half the time, as it is by default.
        var sort = GridSort.allowed(in: .collection).randomElement(using: &random)!
        if case .crate = scope, random.chance(0.5) { sort = .crate }
        return GridRequest(scope: scope, sort: sort, filters: filters)
    }
}

extension LayoutRequest {
    /// A random valid layout: a named environment or raw signals, with or without a size and a limit.
    static func random(using random: inout SeededGenerator) -> LayoutRequest {
        var request = LayoutRequest()
        if random.chance(0.6) {
            request.layout = LayoutEnvironment.allCases.randomElement(using: &random)!
        } else {
            request.horizontalSizeClass = SizeClass.allCases.randomElement(using: &random)!
            request.verticalSizeClass = SizeClass.allCases.randomElement(using: &random)!
            request.idiom = random.chance(0.5) ? DeviceIdiom.allCases.randomElement(using: &random)! : nil
        }
        if random.chance(0.7) { request.width = Double(Int.random(in: 300...1400, using: &random)) + (random.chance(0.3) ? 0.5 : 0) }
        if random.chance(0.5) { request.height = Double(Int.random(in: 300...1400, using: &random)) }
        // Small limits, so that a few dozen albums make many pages.
        if random.chance(0.6) { request.limit = Int.random(in: 1...12, using: &random) }
        return request
    }
}
