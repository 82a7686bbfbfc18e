import CratedCore
import Foundation
import GRDB

/// A keyset cursor: an anchor album and a direction, bound to one user and one order (scope, filters,
/// sort), never to a layout or a page number, so it stays valid when the client changes its columns and
/// while albums are added or removed.
///
/// On the wire it is base64url (no padding) of a small JSON object: version, user, order fingerprint,
/// direction, anchor key and id, the anchor's position at a listing generation (a hint, see
/// `placement`), and a checksum over them, so that a cursor that was altered, cut short, or made for
/// another user or order is refused as a bad `cursor`. The checksum is not a signature: a
/// forged cursor could only address a position in the caller's own grid, because the user and the
/// order always come from the request, never from the cursor.
struct GridCursor: Equatable, Sendable {
    enum Direction: String, Codable, Sendable {
        /// The page of items after the anchor (`next`).
        case after = "a"
        /// The page of items before the anchor (`previous`).
        case before = "b"
    }

    var userId: Int64
    var order: String
    var direction: Direction
    var anchor: GridAnchor
    /// Where the anchor stood, at which listing generation: while the generation is the same nothing
    /// has moved, and the next page starts there without counting its way to the anchor. Cursors
    /// without them (the first ones written) still work, counting.
    var placement: Placement?

    struct Placement: Equatable, Sendable {
        var position: Int
        var generation: Int64
    }

    static let version = 1
    static let maximumLength = 4096

    /// In alphabetical order, as the first cursors were written (JSONEncoder with sorted keys).
    struct Payload: Encodable, JSONWritable {
        var c: String
        var d: Direction
        var g: Int64?
        var i: Int64
        var k: SortKey
        var o: String
        var p: Int?
        var u: Int64
        var v: Int

        func writeJSON(to json: inout JSONWriter) {
            json.object {
                $0.field("c", c)
                $0.field("d", d.rawValue)
                $0.field("g", g)
                $0.field("i", i)
                switch k {
                case .integer(let value): $0.field("k", value)
                case .text(let value): $0.field("k", value)
                }
                $0.field("o", o)
                $0.field("p", p)
                $0.field("u", u)
                $0.field("v", v)
            }
        }
    }

    private var checksum: String {
        let base = ["crated-grid-cursor", "\(Self.version)", "\(userId)", order, direction.rawValue, anchor.key.checksumText, "\(anchor.albumId)"]
        guard let placement else { return StableHash.hex(of: base) }
        return StableHash.hex(of: base + ["\(placement.position)@\(placement.generation)"])
    }

    var token: String {
        let payload = Payload(c: checksum, d: direction, g: placement?.generation, i: anchor.albumId, k: anchor.key, o: order,
                              p: placement?.position, u: userId, v: Self.version)
        // Encoding these plain values cannot fail. Every page has one or two cursors: they are
        // written with the streaming encoder and mapped to base64url byte by byte, not with
        // Foundation's `replacingOccurrences`: with JSONEncoder, they were 8% of a grid page's time.
        let json = try! StreamingJSONEncoder().encode(payload)
        let base64 = Data(json).base64EncodedData()
        // Into an array first: decoding a lazy filter and map into a String took its slow path.
        var url: [UInt8] = []
        url.reserveCapacity(base64.count)
        for byte in base64 where byte != UInt8(ascii: "=") {
            switch byte {
            case UInt8(ascii: "+"): url.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): url.append(UInt8(ascii: "_"))
            default: url.append(byte)
            }
        }
        return String(decoding: url, as: UTF8.self)
    }

    /// Decodes and checks a cursor for this user and order; any failure is a bad `cursor` parameter.
    init(token: String, userId: Int64, order: String) throws {
        let notACursor = GridError.badParameter("cursor", "is not a cursor from this server, or it was altered; start again without a cursor")
        guard !token.isEmpty, token.utf8.count <= Self.maximumLength,
              token.utf8.allSatisfy({ $0.isBase64URLCharacter }) else { throw notACursor }
        var base64 = Data(token.utf8.map { byte in
            switch byte {
            case UInt8(ascii: "-"): UInt8(ascii: "+")
            case UInt8(ascii: "_"): UInt8(ascii: "/")
            default: byte
            }
        })
        base64.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4))
        guard let json = Data(base64Encoded: base64), let fields = FlatJSON.object(Array(json)),
              case .integer(Int64(Self.version))? = fields["v"],
              case .integer(let cursorUser)? = fields["u"], case .string(let cursorOrder)? = fields["o"],
              case .string(let direction)? = fields["d"], let direction = Direction(rawValue: direction),
              let key = fields["k"], case .integer(let albumId)? = fields["i"], case .string(let checksum)? = fields["c"]
        else { throw notACursor }
        let sortKey: SortKey = switch key {
        case .integer(let value): .integer(value)
        case .string(let value): .text(value)
        }
        var cursor = GridCursor(userId: cursorUser, order: cursorOrder, direction: direction, anchor: GridAnchor(key: sortKey, albumId: albumId))
        switch (fields["p"], fields["g"]) {
        case (nil, nil): break
        case (.integer(let position)?, .integer(let generation)?) where position >= 0 && position <= Int64(Int32.max):
            cursor.placement = Placement(position: Int(position), generation: generation)
        default: throw notACursor
        }
        guard cursor.checksum == checksum else { throw notACursor }
        guard cursor.userId == userId else {
            throw GridError.badParameter("cursor", "belongs to another user")
        }
        guard cursor.order == order else {
            throw GridError.badParameter("cursor", "belongs to another grid, sort or filter; start again without a cursor")
        }
        self = cursor
    }

    init(userId: Int64, order: String, direction: Direction, anchor: GridAnchor, placement: Placement? = nil) {
        self.userId = userId
        self.order = order
        self.direction = direction
        self.anchor = anchor
        self.placement = placement
    }
}

extension UInt8 {
    fileprivate var isBase64URLCharacter: Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || self == UInt8(ascii: "-") || self == UInt8(ascii: "_")
    }
}
