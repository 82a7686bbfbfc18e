/// A release's catalogue data as sync writes it: what the Discogs API says about one album, already
/// parsed (sides, durations, display names), ready for `AppDatabase.recordSyncResults`.
public struct ReleaseMetadata: Sendable, Equatable {
    public struct Artist: Sendable, Equatable {
        public var discogsId: Int64?
        /// As Discogs writes it, disambiguation suffix kept: `Casey (2)`.
        public var discogsName: String
        /// As shown: suffix removed, `Persuader, The` turned to `The Persuader`.
        public var name: String
        /// As this release credits the artist (Discogs' name variation), for the album's credit line.
        public var creditedName: String
        /// What follows this artist in the credit: ` & `, `, `, ` Feat. `, or empty for the last.
        public var joinPhrase: String

        public init(discogsId: Int64?, discogsName: String, name: String, creditedName: String, joinPhrase: String) {
            self.discogsId = discogsId
            self.discogsName = discogsName
            self.name = name
            self.creditedName = creditedName
            self.joinPhrase = joinPhrase
        }
    }

    public struct Label: Sendable, Equatable {
        public var name: String
        public var catalogNumber: String?
        public var discogsId: Int64?

        public init(name: String, catalogNumber: String?, discogsId: Int64?) {
            self.name = name
            self.catalogNumber = catalogNumber
            self.discogsId = discogsId
        }
    }

    public struct Format: Sendable, Equatable {
        public var name: String
        public var quantity: Int
        public var descriptions: [String]
        public var text: String?

        public init(name: String, quantity: Int, descriptions: [String], text: String?) {
            self.name = name
            self.quantity = quantity
            self.descriptions = descriptions
            self.text = text
        }
    }

    public struct Image: Sendable, Equatable {
        public enum Kind: String, Sendable { case primary, secondary }
        public var kind: Kind
        public var uri: String
        public var uri150: String
        public var width: Int?
        public var height: Int?

        public init(kind: Kind, uri: String, uri150: String, width: Int?, height: Int?) {
            self.kind = kind
            self.uri = uri
            self.uri150 = uri150
            self.width = width
            self.height = height
        }
    }

    /// Someone Discogs credits on the release or on one track beyond its artists (`extraartists`).
    public struct Credit: Sendable, Equatable {
        public var discogsId: Int64?
        /// As Discogs writes it, disambiguation suffix kept.
        public var discogsName: String
        /// As shown: suffix removed.
        public var name: String
        /// The name variation printed on this release; nil when it is `name`.
        public var creditedName: String?
        /// As Discogs writes it: `Producer`, `Mixed By, Mastered By`, `Music By [All Tracks By]`.
        public var role: String
        /// Which tracks a release credit covers, as Discogs writes it (`A1 to A3, B2`); nil for all.
        public var tracks: String?

        public init(discogsId: Int64?, discogsName: String, name: String, creditedName: String?, role: String, tracks: String?) {
            self.discogsId = discogsId
            self.discogsName = discogsName
            self.name = name
            self.creditedName = creditedName
            self.role = role
            self.tracks = tracks
        }
    }

    public struct Track: Sendable, Equatable {
        public var position: String
        public var side: String?
        public var title: String
        public var durationMs: Int?
        public var kind: CratedCore.Track.Kind
        /// The parts of an index track; empty for every other kind.
        public var subTracks: [Track]
        /// The artists credited on this track, as shown; nil when they are the album's.
        public var artistCredit: String?
        /// The artists of `artistCredit`, in credit order; empty when it is nil.
        public var artists: [Artist]
        /// Who else Discogs credits on this track (a remixer, a writer).
        public var credits: [Credit]

        public init(position: String, side: String?, title: String, durationMs: Int?, kind: CratedCore.Track.Kind,
                    subTracks: [Track] = [], artistCredit: String? = nil, artists: [Artist] = [], credits: [Credit] = []) {
            self.position = position
            self.side = side
            self.title = title
            self.durationMs = durationMs
            self.kind = kind
            self.subTracks = subTracks
            self.artistCredit = artistCredit
            self.artists = artists
            self.credits = credits
        }
    }

    public var title: String
    public var artists: [Artist]
    public var year: Int?
    /// `1999`, `1999-03` or `1999-03-15`; nil when unknown.
    public var released: String?
    public var country: String?
    public var masterId: Int64?
    public var genres: [String]
    public var styles: [String]
    public var labels: [Label]
    public var formats: [Format]
    public var images: [Image]
    public var tracks: [Track]
    /// Who else Discogs credits on the whole release, in its order.
    public var credits: [Credit]
    /// The release has images whose URLs Discogs left blank, as it does for a client without a
    /// token: the album keeps the images it has, and a pass with a token fetches it again for them.
    public var imagesWithheld: Bool

    public init(
        title: String, artists: [Artist], year: Int?, released: String?, country: String?, masterId: Int64?,
        genres: [String], styles: [String], labels: [Label], formats: [Format], images: [Image], tracks: [Track],
        credits: [Credit] = [], imagesWithheld: Bool = false
    ) {
        self.title = title
        self.artists = artists
        self.year = year
        self.released = released
        self.country = country
        self.masterId = masterId
        self.genres = genres
        self.styles = styles
        self.labels = labels
        self.formats = formats
        self.images = images
        self.tracks = tracks
        self.credits = credits
        self.imagesWithheld = imagesWithheld
    }

    /// The credit line as shown: each artist as credited, followed by its join phrase.
    public var artistCredit: String { Self.creditLine(artists) }

    public static func creditLine(_ artists: [Artist]) -> String {
        artists.map { $0.creditedName + $0.joinPhrase }.joined().trimmingCharacters(in: .whitespaces)
    }
}
