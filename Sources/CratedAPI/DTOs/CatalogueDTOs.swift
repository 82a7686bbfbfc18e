import CratedJSON
import CratedCore
import Foundation
import Hummingbird

// Response bodies. They are shaped for the client's screens and built from stored records; the
// records themselves never leave the server.

struct AlbumListingDTO: ResponseCodable, Equatable {
    var id: Int64
    var title: String
    var artistCredit: String
    var year: Int?
    var copies: Int
    /// The cover at the size a list row draws it (60 points at the request's `scale`); null without one.
    var artwork: NullableArtwork

    init(_ listing: AlbumListing, scale: Double) {
        id = listing.albumId
        title = listing.title
        artistCredit = listing.artistCredit
        year = listing.year
        copies = listing.copies
        artwork = NullableArtwork(listing.cover?.artwork(pixels: ArtworkSize.Drawn.listItem * scale))
    }
}

/// A cover that is written as null when there is none, rather than left out: clients find `artwork`
/// in every answer that can show one.
struct NullableArtwork: Codable, Equatable {
    var value: ArtworkReference?

    init(_ value: ArtworkReference?) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        value = container.decodeNil() ? nil : try container.decode(ArtworkReference.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let value { try container.encode(value) } else { try container.encodeNil() }
    }
}

struct AlbumDetailDTO: ResponseCodable {
    struct Credit: Codable {
        var id: Int64
        var name: String
        var discogsId: Int64?
        var joinPhrase: String
    }
    /// Someone credited beyond the artists: on the release (`credits`) or on one track.
    struct PersonCredit: Codable {
        var name: String
        /// The name variation printed on the release; absent when it is `name`.
        var creditedAs: String?
        var role: String
        /// Which tracks a release credit covers (`A1 to A3, B2`); absent for all of them, and on a track's credits.
        var tracks: String?
        var discogsId: Int64?
        /// The artist's page, when crated has one for this Discogs artist.
        var artistId: Int64?
    }
    struct Label: Codable {
        var name: String
        var catalogNumber: String?
    }
    struct Format: Codable {
        var name: String
        var quantity: Int
        var descriptions: [String]
        var text: String?
    }
    struct Image: Codable {
        var uri: String
        var uri150: String
        var width: Int?
        var height: Int?
        var primary: Bool
    }
    struct TrackDTO: Codable {
        var id: Int64
        var position: String
        var title: String
        var durationMs: Int?
        var kind: String
        var parentId: Int64?
        /// The track's own artists as credited; absent when they are the album's.
        var artist: String?
        /// The artists of `artist`, for links to their pages; absent with it.
        var artists: [Credit]?
        /// Who else Discogs credits on this track (a remixer, a writer); absent when nobody.
        var credits: [PersonCredit]?
    }
    struct Side: Codable {
        /// `A`, `B`, ...; null for tracks whose position names no side (CD, file, headings before any side).
        var side: String?
        var tracks: [TrackDTO]
        var durationMs: Int?
    }

    var id: Int64
    var title: String
    var artistCredit: String
    var artists: [Credit]
    var year: Int?
    var released: String?
    var country: String?
    var discogsReleaseId: Int64?
    var discogsMasterId: Int64?
    var labels: [Label]
    var formats: [Format]
    var genres: [String]
    var styles: [String]
    var images: [Image]
    /// Who else Discogs credits on the release: producers, engineers, writers, designers.
    var credits: [PersonCredit]
    /// The cover as the album page draws it: 320 points on an iPhone, 480 on an iPad (`idiom=pad`),
    /// at the request's `scale`.
    var artwork: NullableArtwork
    var sides: [Side]
    var copies: [CopyDTO]
    /// How many times the user put this record on, and when last (play history).
    var playCount = 0
    var lastPlayedAt: String?

    init(_ bundle: AlbumBundle, artworkPixels: Double) {
        let album = bundle.album
        id = album.id!
        title = album.title
        artistCredit = album.artistCredit
        artists = bundle.artists.map { Credit(id: $0.artist.id!, name: $0.artist.name, discogsId: $0.artist.discogsId, joinPhrase: $0.credit.joinPhrase) }
        year = album.year
        released = album.released
        country = album.country
        discogsReleaseId = album.discogsReleaseId
        discogsMasterId = album.discogsMasterId
        labels = bundle.labels.map { Label(name: $0.name, catalogNumber: $0.catalogNumber) }
        formats = bundle.formats.map {
            Format(name: $0.name, quantity: $0.quantity, descriptions: $0.descriptionList, text: $0.text)
        }
        genres = bundle.genres.filter { $0.kind == .genre }.map(\.name)
        styles = bundle.genres.filter { $0.kind == .style }.map(\.name)
        // Cover first (`AlbumCover`), then the others in cover order.
        images = bundle.images.map { Image(uri: $0.uri, uri150: $0.uri150, width: $0.width, height: $0.height, primary: $0.kind == "primary") }
        credits = bundle.credits.filter { $0.trackId == nil }.map(PersonCredit.init)
        artwork = NullableArtwork(bundle.cover?.artwork(pixels: artworkPixels))
        let trackCredits = Dictionary(grouping: bundle.credits.filter { $0.trackId != nil }) { $0.trackId! }
        sides = Self.sides(bundle.tracks, artists: bundle.trackArtists, credits: trackCredits)
        copies = bundle.copies.map { CopyDTO($0.copy, crates: $0.crates) }
    }

    /// Tracks grouped by side in tracklist order. A heading has no position of its own, so it joins
    /// the side of the track that follows it, as does an index track without a side (its sub-tracks
    /// have theirs). A side's duration is known only when every piece on it has one: a track, or an
    /// index track as the sum of its sub-tracks on the side, or its own duration when they lack one.
    static func sides(_ tracks: [Track], artists: [Int64: [TrackArtist]] = [:], credits personCredits: [Int64: [CratedCore.PersonCredit]] = [:]) -> [Side] {
        var sides: [Side] = []
        var pending: [TrackDTO] = []
        for track in tracks {
            // A credit line without rows (its album due since migration 0027) gives no `artists`.
            let trackArtists = artists[track.id!].map { $0.map { Credit(id: $0.artistId, name: $0.name, discogsId: $0.discogsId, joinPhrase: $0.joinPhrase) } }
            let dto = TrackDTO(id: track.id!, position: track.position, title: track.title, durationMs: track.durationMs,
                               kind: track.kind.rawValue, parentId: track.parentId, artist: track.artistCredit,
                               artists: track.artistCredit == nil ? nil : trackArtists,
                               credits: personCredits[track.id!]?.map(PersonCredit.init))
            if track.kind == .heading || (track.kind == .index && track.side == nil) {
                pending.append(dto)
                continue
            }
            if let last = sides.last, last.side == track.side {
                sides[sides.count - 1].tracks += pending + [dto]
            } else {
                sides.append(Side(side: track.side, tracks: pending + [dto], durationMs: nil))
            }
            pending = []
        }
        if !pending.isEmpty {
            if sides.isEmpty { sides.append(Side(side: nil, tracks: [], durationMs: nil)) }
            sides[sides.count - 1].tracks += pending
        }
        for index in sides.indices { sides[index].durationMs = duration(of: sides[index].tracks) }
        return sides
    }

    /// The sum of a side's pieces' durations; nil when one lacks any, or the side has no piece.
    private static func duration(of tracks: [TrackDTO]) -> Int? {
        let indexIds = Set(tracks.filter { $0.kind == "index" }.map(\.id))
        let subTracks = Dictionary(grouping: tracks.filter { $0.kind == "subtrack" && indexIds.contains($0.parentId ?? -1) }) { $0.parentId! }
        var pieces: [Int?] = []
        for track in tracks {
            switch track.kind {
            case "track":
                pieces.append(track.durationMs)
            case "subtrack" where !indexIds.contains(track.parentId ?? -1):
                pieces.append(track.durationMs)
            case "index":
                let parts = (subTracks[track.id] ?? []).map(\.durationMs)
                pieces.append(!parts.isEmpty && !parts.contains(nil) ? parts.reduce(0) { $0 + $1! } : track.durationMs)
            default:
                continue
            }
        }
        guard !pieces.isEmpty, !pieces.contains(nil) else { return nil }
        return pieces.reduce(0) { $0 + $1! }
    }
}

struct ArtistDetailDTO: ResponseCodable {
    var id: Int64
    var name: String
    var discogsName: String
    var discogsId: Int64?
    var albums: [AlbumListingDTO]
    /// Albums of other artists with a track of theirs.
    var appearsOn: [AlbumListingDTO]
    /// The user's other albums that credit them (as producer, writer, engineer...), in the same order.
    var creditedOn: [CreditedAlbumDTO]
}

struct CreditedAlbumDTO: Codable, Equatable {
    var album: AlbumListingDTO
    /// What the album credits them as, each once: `Producer`, `Piano`.
    var roles: [String]
}

struct NameCountDTO: Codable, Equatable {
    var name: String
    var count: Int
}

struct GenresDTO: ResponseCodable {
    var genres: [NameCountDTO]
    var styles: [NameCountDTO]
}

struct GenreArtistsDTO: ResponseCodable {
    struct ArtistCount: Codable {
        var id: Int64
        var name: String
        var albums: Int
    }
    var name: String
    var kind: String
    var artists: [ArtistCount]
}

struct SearchResultsDTO: ResponseCodable {
    var query: String
    var albums: [AlbumListingDTO]
}

struct MeDTO: ResponseCodable {
    struct UserDTO: Codable {
        var id: Int64
        var name: String
    }
    var user: UserDTO
    var scope: String
    /// The Discogs account linked to the user, the only collection they may ask a sync pass for.
    var discogsUser: String?
}

struct HealthDTO: ResponseCodable {
    var status: String
    var version: String
}

// Album pages are the busiest route after the grid; see `JSONWritable`.

extension AlbumDetailDTO: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("title", title)
            $0.field("artistCredit", artistCredit)
            $0.field("artists", artists)
            $0.field("year", year)
            $0.field("released", released)
            $0.field("country", country)
            $0.field("discogsReleaseId", discogsReleaseId)
            $0.field("discogsMasterId", discogsMasterId)
            $0.field("labels", labels)
            $0.field("formats", formats)
            $0.field("genres", genres)
            $0.field("styles", styles)
            $0.field("images", images)
            $0.field("credits", credits)
            $0.nullableField("artwork", artwork.value)
            $0.field("sides", sides)
            $0.field("copies", copies)
            $0.field("playCount", playCount)
            $0.field("lastPlayedAt", lastPlayedAt)
        }
    }
}

extension AlbumDetailDTO.Credit: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("name", name)
            $0.field("discogsId", discogsId)
            $0.field("joinPhrase", joinPhrase)
        }
    }
}

extension AlbumDetailDTO.PersonCredit {
    init(_ credit: CratedCore.PersonCredit) {
        self.init(name: credit.name, creditedAs: credit.creditedName, role: credit.role, tracks: credit.tracks,
                  discogsId: credit.discogsId, artistId: credit.artistId)
    }
}

extension AlbumDetailDTO.PersonCredit: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("name", name)
            $0.field("creditedAs", creditedAs)
            $0.field("role", role)
            $0.field("tracks", tracks)
            $0.field("discogsId", discogsId)
            $0.field("artistId", artistId)
        }
    }
}

extension AlbumDetailDTO.Label: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("name", name)
            $0.field("catalogNumber", catalogNumber)
        }
    }
}

extension AlbumDetailDTO.Format: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("name", name)
            $0.field("quantity", quantity)
            $0.field("descriptions", descriptions)
            $0.field("text", text)
        }
    }
}

extension AlbumDetailDTO.Image: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("uri", uri)
            $0.field("uri150", uri150)
            $0.field("width", width)
            $0.field("height", height)
            $0.field("primary", primary)
        }
    }
}

extension AlbumDetailDTO.TrackDTO: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("id", id)
            $0.field("position", position)
            $0.field("title", title)
            $0.field("durationMs", durationMs)
            $0.field("kind", kind)
            $0.field("parentId", parentId)
            $0.field("artist", artist)
            $0.field("artists", artists)
            $0.field("credits", credits)
        }
    }
}

extension AlbumDetailDTO.Side: JSONWritable {
    func writeJSON(to json: inout JSONWriter) {
        json.object {
            $0.field("side", side)
            $0.field("tracks", tracks)
            $0.field("durationMs", durationMs)
        }
    }
}
