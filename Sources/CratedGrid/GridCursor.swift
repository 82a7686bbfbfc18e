import CratedJSON
import CratedCore
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
    /// has moved, and the next page starts there without counting its way to the anchor. A cursor
    /// without one (handed out by an older crated) still works, counting.
    var placement: Placement?

    struct Placement: Equatable, Sendable {
        var position: Int
        var generation: Int64
    }

    static let version = 2
    /// Room for the artist sort's key, which holds a credit and a title (`GridKey.artist`): 1,000
    /// characters of each in a script of 3-byte letters make a cursor of about 8,000.
    static let maximumLength = 16_384

    /// In alphabetical order (sorted keys), the order of cursors already handed out.
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

        var expectedJSONSize: Int { 256 }

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

    /// 16 lowercase hex digits of `checksumValue`.
    private var checksum: String { StableHash.hex(checksumValue) }

    /// A hash over every field, so that a cursor altered or cut short is refused.
    private var checksumValue: UInt64 {
        var hash = StableHash()
        hash.combine("crated-grid-cursor")
        hash.combine(Self.version)
        hash.combine(userId)
        hash.combine(order)
        hash.combine(direction.rawValue)
        hash.combine(anchor.key.checksumText)
        hash.combine(anchor.albumId)
        hash.combine(placement) { hash, placement in
            hash.combine(placement.position)
            hash.combine(placement.generation)
        }
        return hash.value
    }

    var token: String {
        let payload = Payload(c: checksum, d: direction, g: placement?.generation, i: anchor.albumId, k: anchor.key, o: order,
                              p: placement?.position, u: userId, v: Self.version)
        // Encoding these plain values cannot fail. Every page has one or two cursors: they are
        // written with the streaming encoder and straight into base64url, not through Foundation's
        // base64 and `replacingOccurrences`: JSONEncoder and those cost 8% of a grid page's time.
        return Base64URL.encode(try! StreamingJSONEncoder().encode(payload))
    }

    /// Decodes and checks a cursor for this user and order; any failure is a bad `cursor` parameter.
    init(token: String, userId: Int64, order: String) throws {
        let notACursor = GridError.badParameter("cursor", "is not a cursor from this server, or it was altered; start again without a cursor")
        guard !token.isEmpty, token.utf8.count <= Self.maximumLength, let json = Base64URL.decode(token),
              let fields = FlatJSON.object(json),
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
        // Compared as numbers: the 16 lowercase hex digits `checksum` writes, and nothing else.
        guard checksum.utf8.count == 16,
              checksum.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }),
              UInt64(checksum, radix: 16) == cursor.checksumValue else { throw notACursor }
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
