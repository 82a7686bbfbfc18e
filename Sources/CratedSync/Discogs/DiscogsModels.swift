import Foundation

// The parts of Discogs API responses that crated reads. Everything but a release's title is
// optional: Discogs omits empty fields, and unauthenticated responses carry less.

/// `GET /releases/{id}`.
struct DiscogsRelease: Decodable {
    var id: Int64?
    var title: String
    var artists: [DiscogsArtistCredit]?
    var year: Int?
    var released: String?
    var country: String?
    var masterId: Int64?
    var genres: [String]?
    var styles: [String]?
    var labels: [DiscogsLabel]?
    var formats: [DiscogsFormat]?
    var images: [DiscogsImage]?
    var tracklist: [DiscogsTrack]?
    var extraartists: [DiscogsExtraArtist]?

    enum CodingKeys: String, CodingKey {
        case id, title, artists, year, released, country, genres, styles, labels, formats, images, tracklist, extraartists
        case masterId = "master_id"
    }
}

struct DiscogsArtistCredit: Decodable {
    var id: Int64?
    var name: String
    /// The name variation printed on this release, or empty.
    var anv: String?
    /// What joins this artist to the next: `&`, `,`, `Feat.`, `/`, or empty.
    var join: String?
}

/// Someone credited beyond the artists: `{"name": "Stu Allotropia", "anv": "", "role": "Design",
/// "tracks": "", "id": 4894261}`.
struct DiscogsExtraArtist: Decodable {
    var id: Int64?
    var name: String?
    var anv: String?
    var role: String?
    /// The tracks a release credit covers (`A1 to A3, B2`), or empty for all of them.
    var tracks: String?
}

struct DiscogsLabel: Decodable {
    var id: Int64?
    var name: String
    var catno: String?
}

struct DiscogsFormat: Decodable {
    var name: String
    var qty: LenientInt?
    var descriptions: [String]?
    var text: String?
}

struct DiscogsImage: Decodable {
    var type: String?
    var uri: String?
    var uri150: String?
    var width: Int?
    var height: Int?
}

struct DiscogsTrack: Decodable {
    var position: String?
    var type: String?
    var title: String?
    var duration: String?
    var subTracks: [DiscogsTrack]?
    /// Set only when the track's artists differ from the release's (compilations, splits).
    var artists: [DiscogsArtistCredit]?
    var extraartists: [DiscogsExtraArtist]?

    enum CodingKeys: String, CodingKey {
        case position, title, duration, artists, extraartists
        case type = "type_"
        case subTracks = "sub_tracks"
    }
}

/// `GET /users/{name}/collection/folders`.
struct DiscogsFolderList: Decodable {
    struct Folder: Decodable {
        var id: Int64
        var name: String
        var count: Int?
    }
    var folders: [Folder]
}

/// `GET /users/{name}/collection/fields`: the names of the notes fields of collection instances.
struct DiscogsFieldList: Decodable {
    struct Field: Decodable {
        var id: Int64
        var name: String
    }
    var fields: [Field]
}

/// `GET /users/{name}/collection/folders/{id}/releases`, one page.
struct DiscogsCollectionPage: Decodable {
    struct Pagination: Decodable {
        var page: Int
        var pages: Int
        var items: Int?
    }

    struct Item: Decodable {
        var id: Int64
        var instanceId: Int64
        var folderId: Int64?
        var dateAdded: String?
        var rating: Int?
        var basicInformation: BasicInformation?
        var notes: [Note]?

        enum CodingKeys: String, CodingKey {
            case id, rating, notes
            case instanceId = "instance_id"
            case folderId = "folder_id"
            case dateAdded = "date_added"
            case basicInformation = "basic_information"
        }
    }

    struct BasicInformation: Decodable {
        var title: String?
        var year: Int?
        var masterId: Int64?
        var artists: [DiscogsArtistCredit]?
        var labels: [DiscogsLabel]?
        var formats: [DiscogsFormat]?
        var genres: [String]?
        var styles: [String]?

        enum CodingKeys: String, CodingKey {
            case title, year, artists, labels, formats, genres, styles
            case masterId = "master_id"
        }
    }

    struct Note: Decodable {
        var fieldId: Int64
        var value: String?

        enum CodingKeys: String, CodingKey {
            case value
            case fieldId = "field_id"
        }
    }

    var pagination: Pagination
    var releases: [Item]
}

/// An integer that Discogs writes as a number or as a string (`"qty": "2"`).
struct LenientInt: Decodable {
    var value: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // A string first, as releases write it: a failed attempt throws, which is not free.
        if let text = try? container.decode(String.self) {
            value = Int(text.trimmed())
        } else if let number = try? container.decode(Int.self) {
            value = number
        } else {
            value = nil
        }
    }
}
