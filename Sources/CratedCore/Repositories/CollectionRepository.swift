import Foundation
import GRDB

/// An album with everything its detail page shows, as stored records.
public struct AlbumBundle: Sendable {
    public var album: Album
    public var artists: [(credit: AlbumArtist, artist: Artist)]
    public var labels: [AlbumLabel]
    public var formats: [AlbumFormat]
    public var genres: [AlbumGenre]
    public var images: [AlbumImage]
    /// The first of `images` that is a cover, with crated's copy of it.
    public var cover: AlbumCover?
    public var tracks: [Track]
    /// The artists of each track that has its own (`Track.artistCredit`), by track id, in credit order.
    public var trackArtists: [Int64: [TrackArtist]]
    /// Who else Discogs credits, on the release and on its tracks, in Discogs' order.
    public var credits: [PersonCredit]
    /// The user's copies, oldest first, each with the crates it sits in.
    public var copies: [(copy: CollectionItem, crates: [Crate])]
}

/// An artist a track is credited to, as the album page names it.
public struct TrackArtist: Sendable, Equatable {
    public var artistId: Int64
    public var name: String
    public var discogsId: Int64?
    public var joinPhrase: String
}

/// Someone credited on an album or one of its tracks beyond its artists, as the album page names them.
public struct PersonCredit: Sendable, Equatable {
    /// The track the credit is on; nil for the whole release.
    public var trackId: Int64?
    public var name: String
    /// The name variation printed on the release; nil when it is `name`.
    public var creditedName: String?
    public var role: String
    /// Which tracks a release credit covers (`A1 to A3, B2`); nil for all of them.
    public var tracks: String?
    public var discogsId: Int64?
    /// The artist row with the same Discogs id, when the catalogue has one: their page lists this album.
    public var artistId: Int64?
}

/// One album in a list: artist pages, search results, crate contents.
public struct AlbumListing: Sendable, Equatable, FetchableRecord {
    public var albumId: Int64
    public var title: String
    public var artistCredit: String
    public var year: Int?
    public var copies: Int
    public var cover: AlbumCover?

    /// A row with the listing's columns and the cover's (`AlbumCover.columns`, `joins(album:)`).
    public init(row: Row) {
        albumId = row["album_id"]
        title = row["title"]
        artistCredit = row["artist_credit"]
        year = row["year"]
        copies = row["copies"]
        cover = AlbumCover(coverColumnsOf: row)
    }
}

/// An artist's page: their albums in the user's collection, the user's albums of other artists
/// with a track of theirs, and the user's other albums that credit them (as producer, writer, ...).
public struct ArtistAlbums: Sendable {
    public var artist: Artist
    public var albums: [AlbumListing]
    public var appearsOn: [AlbumListing]
    public var creditedOn: [CreditedAlbum]
}

/// An album that credits someone beyond its artists, with what it credits them as.
public struct CreditedAlbum: Sendable, Equatable {
    public var album: AlbumListing
    /// As Discogs writes them, in credit order, each once (`Producer`, `Piano`).
    public var roles: [String]
}

public struct NameCount: Sendable, Equatable {
    public var name: String
    public var count: Int
}

/// The copies of a user, with the album a list needs: the selection the listings share.
private let albumListingColumns = """
    a.id AS album_id, a.title, a.artist_credit, a.year, COUNT(ci.id) AS copies, \(AlbumCover.columns)
    """

/// The three lists of an artist's page (`AppDatabase.artistAlbums`), which their grids page too
/// (`GridScope.artist`): each album in one list only, their own first.
public enum ArtistAlbumList: String, Sendable, Hashable, CaseIterable {
    /// The albums credited to them.
    case albums
    /// Other artists' albums with a track of theirs (a compilation, a split, a guest spot).
    case appearsOn
    /// The other albums that credit them (a producer, an engineer, a track's player).
    case credited

    /// The ids of the list's albums, anyone's: SQL whose every `?` is the artist's id.
    public var albumIdsSQL: String {
        let own = "SELECT album_id FROM album_artist WHERE artist_id = ?"
        let onTracks = "SELECT t.album_id FROM track_artist ta JOIN track t ON t.id = ta.track_id WHERE ta.artist_id = ?"
        switch self {
        case .albums: return own
        case .appearsOn: return "\(onTracks) EXCEPT \(own)"
        case .credited:
            return "SELECT album_id FROM album_credit WHERE discogs_id = (SELECT discogs_id FROM artist WHERE id = ?) EXCEPT \(own) EXCEPT \(onTracks)"
        }
    }

    /// How many arguments `albumIdsSQL` takes: the artist's id, each time.
    public var argumentCount: Int { albumIdsSQL.count { $0 == "?" } }
}

extension AppDatabase {
    /// The album's detail for a user, or nil when the user owns no copy of it (someone else's albums
    /// do not exist for them).
    public func albumBundle(albumId: Int64, userId: Int64) throws -> AlbumBundle? {
        try read { db in
            // Copies are sorted here: ordering in SQL makes SQLite walk the user's copies in date
            // order instead of seeking the album's few copies.
            let copies = try db.rows(AlbumPageSQL.copies, ids: [albumId, userId], CollectionItem.init)
                .sorted { ($0.dateAdded, $0.id!) < ($1.dateAdded, $1.id!) }
            guard try !copies.isEmpty || Self.hasPlayed(db, albumId: albumId, userId: userId),
                  let album = try db.firstRow(AlbumPageSQL.album, ids: [albumId], Album.init) else { return nil }
            let artists = try db.rows(AlbumPageSQL.artists, ids: [albumId]) { columns in
                let artistId = try columns.int64(2)
                return (AlbumArtist(albumId: try columns.int64(0), position: try columns.int(1), artistId: artistId, joinPhrase: try columns.string(3)),
                        Artist(id: artistId, name: try columns.string(4), discogsName: try columns.string(5),
                               discogsId: try columns.optionalInt64(6), sortName: try columns.string(7)))
            }
            var cratesByCopy: [Int64: [Crate]] = [:]
            try db.forEachRow(AlbumPageSQL.crates, ids: [albumId, userId]) { columns in
                let crate = Crate(id: try columns.int64(1), userId: try columns.int64(2), name: try columns.string(3),
                                  discogsFolderId: try columns.optionalInt64(4), isFolder: try columns.int(7) != 0,
                                  createdAt: try columns.string(5), updatedAt: try columns.string(6))
                cratesByCopy[try columns.int64(0), default: []].append(crate)
            }
            let tracks = try db.rows(AlbumPageSQL.tracks, ids: [albumId], Track.init)
            // Most albums' tracks are all the album's: no query for artists they do not have.
            var trackArtists: [Int64: [TrackArtist]] = [:]
            if tracks.contains(where: { $0.artistCredit != nil }) {
                try db.forEachRow(AlbumPageSQL.trackArtists, ids: [albumId]) { columns in
                    trackArtists[try columns.int64(0), default: []].append(
                        TrackArtist(artistId: try columns.int64(1), name: try columns.string(2),
                                    discogsId: try columns.optionalInt64(3), joinPhrase: try columns.string(4)))
                }
            }
            let credits = try db.rows(AlbumPageSQL.credits, ids: [albumId]) { columns in
                PersonCredit(trackId: try columns.optionalInt64(0), name: try columns.string(1), creditedName: try columns.optionalString(2),
                            role: try columns.string(3), tracks: try columns.optionalString(4), discogsId: try columns.optionalInt64(5),
                            artistId: try columns.optionalInt64(6))
            }
            return AlbumBundle(
                album: album, artists: artists,
                labels: try db.rows(AlbumPageSQL.labels, ids: [albumId], AlbumLabel.init),
                formats: try db.rows(AlbumPageSQL.formats, ids: [albumId], AlbumFormat.init),
                genres: try db.rows(AlbumPageSQL.genres, ids: [albumId], AlbumGenre.init),
                images: try db.rows(AlbumPageSQL.images, ids: [albumId], AlbumImage.init),
                cover: try AlbumCover.of(albumId: albumId, db),
                tracks: tracks,
                trackArtists: trackArtists,
                credits: credits,
                copies: copies.map { ($0, cratesByCopy[$0.id!]?.sortedByName() ?? []) })
        }
    }

    /// Whether the album is on the user's turntable or in their play history: the mini-player and the
    /// history link to its page, which answers, without copies, after the last copy has gone.
    static func hasPlayed(_ db: Database, albumId: Int64, userId: Int64) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: """
            SELECT EXISTS (SELECT 1 FROM play_history WHERE user_id = ?1 AND album_id = ?2)
                OR EXISTS (SELECT 1 FROM playback_state WHERE user_id = ?1 AND album_id = ?2)
            """), arguments: [userId, albumId]) ?? false
    }

    /// The artist an id names now: itself, or, for a CSV credit's artist that sync replaced, the
    /// artist that took its place (`artist_successor`, migration 0037).
    public func currentArtistId(_ id: Int64) throws -> Int64 {
        try read { db in
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM artist WHERE id = ?"), arguments: [id]) == true { return id }
            return try Int64.fetchOne(db.cachedStatement(sql: "SELECT successor_id FROM artist_successor WHERE artist_id = ?"), arguments: [id]) ?? id
        }
    }

    /// The artist, their albums in the user's collection, the user's albums of other artists with a
    /// track of theirs (a compilation, a split, a guest spot), and the user's other albums that
    /// credit them; nil when the user owns none of these and has played no album of theirs or
    /// crediting them (the page of a played album links to its artists and credits).
    public func artistAlbums(artistId: Int64, userId: Int64) throws -> ArtistAlbums? {
        try read { db in
            guard let artist = try Artist.fetchOne(db.cachedStatement(sql: "SELECT * FROM artist WHERE id = ?"), arguments: [artistId]) else { return nil }
            func listings(_ condition: String) throws -> [AlbumListing] {
                try AlbumListing.fetchAll(db.cachedStatement(sql: """
                    SELECT \(albumListingColumns)
                    FROM album a JOIN collection_item ci ON ci.album_id = a.id AND ci.user_id = ?1
                    \(AlbumCover.joins(album: "a.id"))
                    WHERE \(condition)
                    GROUP BY a.id ORDER BY a.year IS NULL, a.year, a.sort_title
                    """), arguments: [userId, artistId])
            }
            // The artist's id is the statement's second argument.
            func inList(_ list: ArtistAlbumList) -> String { "a.id IN (\(list.albumIdsSQL.replacingOccurrences(of: "?", with: "?2")))" }
            let albums = try listings(inList(.albums))
            let appearsOn = try listings(inList(.appearsOn))
            var creditedOn: [CreditedAlbum] = []
            if let discogsId = artist.discogsId {
                let credited = try listings(inList(.credited))
                if !credited.isEmpty {
                    // Each album's roles in credit order, each once: `Producer`, then a track's `Piano`.
                    var roles: [Int64: [String]] = [:]
                    try db.forEachRow(AlbumPageSQL.creditRoles, ids: [discogsId]) { columns in
                        let (albumId, role) = (try columns.int64(0), try columns.string(1))
                        if roles[albumId]?.contains(role) != true { roles[albumId, default: []].append(role) }
                    }
                    creditedOn = credited.map { CreditedAlbum(album: $0, roles: roles[$0.albumId] ?? []) }
                }
            }
            guard try !albums.isEmpty || !appearsOn.isEmpty || !creditedOn.isEmpty
                || Artist.isOnAnAlbumPlayed(by: userId, artistId: artistId, in: db) else { return nil }
            return ArtistAlbums(artist: artist, albums: albums, appearsOn: appearsOn, creditedOn: creditedOn)
        }
    }

    /// Genres or styles of the user's albums, with how many albums carry each.
    public func genreCounts(userId: Int64, kind: AlbumGenre.Kind) throws -> [NameCount] {
        try read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT g.name, COUNT(DISTINCT g.album_id) AS count FROM album_genre g
                WHERE g.kind = ? AND g.album_id IN (SELECT album_id FROM collection_item WHERE user_id = ?)
                GROUP BY g.name ORDER BY count DESC, g.name
                """), arguments: [kind.rawValue, userId]).map { NameCount(name: $0["name"], count: $0["count"]) }
        }
    }

    /// The artists of the user's albums in a genre or style (Discover: genre -> artist -> album),
    /// with how many of those albums each has; nil when none of the user's albums carries it.
    /// Discogs' placeholder credits (`Various` on compilations, `Unknown Artist`, `No Artist`) are no
    /// one to browse: left out, their albums stay in the genre's grid.
    public func artists(userId: Int64, genre: String, kind: AlbumGenre.Kind) throws -> (name: String, artists: [(artist: Artist, albums: Int)])? {
        try read { db in
            // The name as the albums spell it, whatever its case in the request (the most albums' way).
            let stored = try String.fetchOne(db.cachedStatement(sql: """
                SELECT g.name FROM album_genre g
                WHERE g.kind = ? AND g.name = ? COLLATE NOCASE AND g.album_id IN (SELECT album_id FROM collection_item WHERE user_id = ?)
                GROUP BY g.name ORDER BY COUNT(*) DESC, g.name LIMIT 1
                """), arguments: [kind.rawValue, genre, userId])
            guard let stored else { return nil }
            return (stored, try Row.fetchAll(db.cachedStatement(sql: """
                SELECT artist.*, COUNT(DISTINCT aa.album_id) AS album_count
                FROM album_genre g
                JOIN album_artist aa ON aa.album_id = g.album_id
                JOIN artist ON artist.id = aa.artist_id
                WHERE g.kind = ? AND g.name = ? COLLATE NOCASE AND g.album_id IN (SELECT album_id FROM collection_item WHERE user_id = ?)
                  AND NOT \(Artist.isPlaceholderSQL)
                GROUP BY artist.id ORDER BY artist.sort_name
                """), arguments: [kind.rawValue, genre, userId]).map { (try Artist(row: $0), $0["album_count"]) })
        }
    }

    /// Albums of the user's collection matching `text` in titles, artists, labels, catalogue numbers or
    /// track titles, best first. Prefix-matching; diacritics folded; FTS syntax in `text` is inert.
    ///
    /// Ranking is the expensive part: bm25 scores every match, thousands for a common word. The
    /// best-ranked matches of the whole catalogue are taken first and then kept to the user's
    /// collection, so a common word does not join thousands of albums; only when that leaves fewer
    /// than `limit` results is the whole match set joined. Results are kept for the listing generation
    /// they were found at: asked again before the catalogue or the collection changes, they cost no
    /// ranking.
    ///
    /// A single letter (the first key typed) would rank a third of the catalogue: its results are the
    /// user's albums whose titles start with it, in title order, read from the title index; only when
    /// those are fewer than `limit` are other matches ranked after them.
    public func searchAlbums(userId: Int64, text: String, limit: Int) throws -> [AlbumListing] {
        guard let match = SearchText.matchExpression(text) else { return [] }
        let initial = SearchText.soleInitial(text)
        return try read { db in
            // Search results show no crate: filing records leaves them be.
            try searchResults.value(for: "\(userId) \(limit) \(match)", in: db, reach: .listingsAndArtwork) {
                guard let initial else { return try Self.search(db, match: match, userId: userId, limit: limit) }
                let titled = try Self.titles(db, startingWith: initial, userId: userId, limit: limit)
                guard titled.count < limit else { return titled }
                let shown = Set(titled.map(\.albumId))
                return titled + (try Self.search(db, match: match, userId: userId, limit: limit).filter { !shown.contains($0.albumId) })
                    .prefix(limit - titled.count)
            }
        }
    }

    /// The user's albums whose sort title starts with `initial` (`SearchText.soleInitial`), in title order.
    private static func titles(_ db: Database, startingWith initial: String, userId: Int64, limit: Int) throws -> [AlbumListing] {
        let prefixes = titleKeyPrefixes(startingWith: initial)
        guard !prefixes.isEmpty else { return [] }
        // One range of the (user, title key) index per prefix.
        let ranges = prefixes.map { _ in "(ca.title_key >= ? AND ca.title_key < ?)" }.joined(separator: " OR ")
        var arguments: StatementArguments = [userId]
        for prefix in prefixes { arguments += [prefix, successor(of: prefix)] }
        arguments += [limit]
        let listings = try AlbumListing.fetchAll(db.cachedStatement(sql: """
            SELECT listed.*, \(AlbumCover.columns) FROM (
                SELECT a.id AS album_id, a.title, a.artist_credit, a.year, ca.copies
                FROM collection_album ca JOIN album a ON a.id = ca.album_id
                WHERE ca.user_id = ? AND (\(ranges))
                ORDER BY ca.title_key, ca.album_id LIMIT ?) AS listed
            \(AlbumCover.joins(album: "listed.album_id"))
            """), arguments: arguments)
        // The key drops a number's leading zeros (`007` is keyed as `7`), which the title keeps.
        guard let digit = initial.first, initial.count == 1, digit.isNumber, digit != "0" else { return listings }
        return listings.filter { $0.title.first(where: \.isNumber) != "0" }
    }

    /// The title keys of titles that start with `initial` start with one of these. A number is
    /// written in the key behind its length (`DiscogsText.numbersByValue`: `2` is `12`, `2004` is
    /// `42004`), so a digit has one prefix per length; numbers of 9 digits or more, which no title
    /// starts with in practice, are left to the other matches. Leading zeros are dropped (`007` is
    /// keyed `17`): such titles come under `7` here, and `titles(startingWith:)` leaves them out.
    /// A letter is its own prefix, as the key spells it (`ae` for `æ`).
    private static func titleKeyPrefixes(startingWith initial: String) -> [String] {
        guard initial.count == 1, let digit = initial.first?.asciiValue, (0x30...0x39).contains(digit) else { return [initial] }
        // Zero itself (`0`, `00`) is the one number whose value starts with 0.
        if digit == 0x30 { return ["10"] }
        return (1...8).map { "\($0)\(Character(UnicodeScalar(digit)))" }
    }

    /// The least string after every string that starts with `prefix` (the prefix itself, an empty
    /// range, when its last scalar has no successor).
    private static func successor(of prefix: String) -> String {
        guard let last = prefix.unicodeScalars.last, let next = Unicode.Scalar(last.value + 1) else { return prefix }
        return String(prefix.unicodeScalars.dropLast()) + String(Character(next))
    }

    private static func search(_ db: Database, match: String, userId: Int64, limit: Int) throws -> [AlbumListing] {
        let candidates = limit * 4
        let best = try search(db, match: match, userId: userId, limit: limit, candidates: candidates)
        if best.count == limit { return best }
        let matches = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM album_search WHERE album_search MATCH ?"), arguments: [match]) ?? 0
        return matches <= candidates ? best : try search(db, match: match, userId: userId, limit: limit, candidates: nil)
    }

    private static func search(_ db: Database, match: String, userId: Int64, limit: Int, candidates: Int?) throws -> [AlbumListing] {
        try AlbumListing.fetchAll(db.cachedStatement(sql: """
            WITH hit AS MATERIALIZED (
                -- Weights: title, artists, labels, catalogue numbers, tracks. MATERIALIZED keeps
                -- bm25() inside the full-text query, where SQLite can evaluate it.
                SELECT rowid AS id, bm25(album_search, 10.0, 8.0, 2.0, 4.0, 1.0) AS rank
                FROM album_search WHERE album_search MATCH ? ORDER BY rank LIMIT ?)
            -- Covers for the results only: in the grouped query, SQLite would read one for every
            -- match it joined before the LIMIT.
            SELECT listed.*, \(AlbumCover.columns) FROM (
                SELECT a.id AS album_id, a.title, a.artist_credit, a.year, COUNT(ci.id) AS copies,
                       MIN(hit.rank) AS rank, a.sort_title
                FROM hit JOIN album a ON a.id = hit.id
                JOIN collection_item ci ON ci.album_id = a.id AND ci.user_id = ?
                GROUP BY a.id ORDER BY rank, a.sort_title LIMIT ?) AS listed
            \(AlbumCover.joins(album: "listed.album_id"))
            ORDER BY listed.rank, listed.sort_title
            """), arguments: [match, candidates ?? -1, userId, limit])
    }
}

/// The statements of an album page, each run cached on every album request.
private enum AlbumPageSQL {
    static let copies = "SELECT \(CollectionItem.selection) FROM collection_item WHERE album_id = ? AND user_id = ?"
    static let album = "SELECT \(Album.selection) FROM album WHERE id = ?"
    static let artists = """
        SELECT aa.album_id, aa.position, aa.artist_id, aa.join_phrase,
               artist.name, artist.discogs_name, artist.discogs_id, artist.sort_name
        FROM album_artist aa JOIN artist ON artist.id = aa.artist_id
        WHERE aa.album_id = ? ORDER BY aa.position
        """
    // Crates of the album's copies, by joining from the copies rather than naming their ids, so the
    // statement stays the same for any number of copies.
    static let crates = """
        SELECT crate_item.item_id, crate.id, crate.user_id, crate.name, crate.discogs_folder_id, crate.created_at, crate.updated_at,
               crate.is_folder
        FROM collection_item ci JOIN crate_item ON crate_item.item_id = ci.id JOIN crate ON crate.id = crate_item.crate_id
        WHERE ci.album_id = ? AND ci.user_id = ?
        """
    static let labels = "SELECT \(AlbumLabel.selection) FROM album_label WHERE album_id = ? ORDER BY position"
    static let formats = "SELECT \(AlbumFormat.selection) FROM album_format WHERE album_id = ? ORDER BY position"
    static let genres = "SELECT \(AlbumGenre.selection) FROM album_genre WHERE album_id = ? ORDER BY kind, position"
    static let images = "SELECT \(AlbumImage.selection) FROM album_image WHERE album_id = ? ORDER BY \(AlbumCover.hasURL) DESC, \(AlbumCover.order)"
    static let tracks = "SELECT \(Track.selection) FROM track WHERE album_id = ? ORDER BY sort_order"
    static let trackArtists = """
        SELECT ta.track_id, artist.id, artist.name, artist.discogs_id, ta.join_phrase
        FROM track t JOIN track_artist ta ON ta.track_id = t.id JOIN artist ON artist.id = ta.artist_id
        WHERE t.album_id = ? AND t.artist_credit IS NOT NULL ORDER BY ta.track_id, ta.position
        """
    static let creditRoles = "SELECT album_id, role FROM album_credit WHERE discogs_id = ? ORDER BY album_id, position"
    static let credits = """
        SELECT c.track_id, c.name, c.credited_name, c.role, c.tracks, c.discogs_id, artist.id
        FROM album_credit c LEFT JOIN artist ON artist.discogs_id = c.discogs_id
        WHERE c.album_id = ? ORDER BY c.position
        """
}

extension Artist {
    /// Whether the user has played, or is playing, an album by the artist, with a track of theirs or
    /// crediting them. A played album's page links to its artists, its tracks' artists and its
    /// credits alike, owned or not, so their pages and grids answer for it.
    public static func isOnAnAlbumPlayed(by userId: Int64, artistId: Int64, in db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: """
            WITH played(album_id) AS (
                SELECT album_id FROM play_history WHERE user_id = ?1
                UNION SELECT album_id FROM playback_state WHERE user_id = ?1)
            SELECT EXISTS (SELECT 1 FROM album_artist WHERE artist_id = ?2 AND album_id IN played)
                OR EXISTS (SELECT 1 FROM track_artist credit JOIN track ON track.id = credit.track_id
                           WHERE credit.artist_id = ?2 AND track.album_id IN played)
                OR EXISTS (SELECT 1 FROM album_credit JOIN artist ON artist.discogs_id = album_credit.discogs_id
                           WHERE artist.id = ?2 AND album_credit.album_id IN played)
            """), arguments: [userId, artistId]) == true
    }
}
