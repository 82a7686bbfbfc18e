import CratedJSON
import CratedCore
import CratedPlayback
import Foundation
import Hummingbird

extension MiniPlayer: ResponseEncodable {}

struct HistoryPageDTO: ResponseCodable {
    var entries: [PlayHistoryEntry]
    /// Pass as `before` for the next (older) page; absent on the last page.
    var next: String?
}

/// `POST /v1/player/play`: an album (optionally from a side or a track) or a crate as a queue.
struct PlayBody: StrictBody {
    static let fields: Set<String> = ["albumId", "crateId", "side", "trackId", "expectedRevision"]
    var albumId: Int64?
    var crateId: Int64?
    var side: String?
    var trackId: Int64?
    var expectedRevision: Int64?

    func target() throws -> PlayTarget {
        for (field, id) in [("albumId", albumId), ("crateId", crateId), ("trackId", trackId)] {
            if let id, id < 1 { throw APIError.badBody("\(field) must be 1 or more, not \(id)", field: field) }
        }
        switch (albumId, crateId) {
        case (let album?, nil):
            switch (side, trackId) {
            case (nil, nil): return .album(id: album)
            case (let side?, nil):
                // A side as Discogs names it: one letter, or a doubled one for a double-A side (`AA`).
                guard (1...2).contains(side.count), side.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    throw APIError.badBody("side must be one or two letters, such as B or AA", field: "side")
                }
                return .album(id: album, from: .side(side.uppercased()))
            case (nil, let track?): return .album(id: album, from: .track(id: track))
            case (_?, _?): throw APIError.badBody("give side or trackId, not both", field: "trackId")
            }
        case (nil, let crate?):
            guard side == nil, trackId == nil else { throw APIError.badBody("side and trackId go with albumId, not crateId", field: side == nil ? "trackId" : "side") }
            return .crate(id: crate)
        case (nil, nil): throw APIError.badBody("give albumId or crateId", field: "albumId")
        case (_?, _?): throw APIError.badBody("give albumId or crateId, not both", field: "crateId")
        }
    }
}

/// The body of the commands that take nothing but an optional revision check.
struct RevisionBody: StrictBody {
    static let fields: Set<String> = ["expectedRevision"]
    var expectedRevision: Int64?
}

struct SeekBody: StrictBody {
    static let fields: Set<String> = ["positionMs", "expectedRevision"]
    var positionMs: Int64
    var expectedRevision: Int64?
}

