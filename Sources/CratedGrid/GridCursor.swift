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

    /// FNV-1a over the fields, each with a separator (`StableHash.hex(of:)` of their decimal forms),
    /// fed one by one: cursors written by earlier releases carry the same checksum.
    private var checksum: String { StableHash.hex(checksumValue) }

    private var checksumValue: UInt64 {
        var hash = StableHash()
        hash.combine("crated-grid-cursor")
        hash.combine(String(Self.version))
        hash.combine(String(userId))
        hash.combine(order)
        hash.combine(direction.rawValue)
        hash.combine(anchor.key.checksumText)
        hash.combine(String(anchor.albumId))
        if let placement { hash.combine("\(placement.position)@\(placement.generation)") }
        return hash.value
    }

    var token: String {
        let payload = Payload(c: checksum, d: direction, g: placement?.generation, i: anchor.albumId, k: anchor.key, o: order,
                              p: placement?.position, u: userId, v: Self.version)
        // Encoding these plain values cannot fail. Every page has one or two cursors: they are
        // written with the streaming encoder and straight into base64url, not through Foundation's
        // base64 and `replacingOccurrences`: with JSONEncoder, they were 8% of a grid page's time.
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

/// base64url without padding (RFC 4648, section 5), the cursor's wire form.
enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// Each byte's value in the alphabet; 0xff for a byte that is not in it.
    private static let values: [UInt8] = {
        var values = [UInt8](repeating: 0xff, count: 256)
        for (value, byte) in alphabet.enumerated() { values[Int(byte)] = UInt8(value) }
        return values
    }()

    /// The bytes of `text`; nil when it holds anything but the alphabet, padding included, or when
    /// its length or its last character could not have been written by `encode`.
    static func decode(_ text: String) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var group: UInt32 = 0
        for (index, character) in characters.enumerated() {
            let value = values[Int(character)]
            guard value != 0xff else { return nil }
            group = group << 6 | UInt32(value)
            if index % 4 == 3 {
                bytes.append(UInt8(truncatingIfNeeded: group >> 16))
                bytes.append(UInt8(truncatingIfNeeded: group >> 8))
                bytes.append(UInt8(truncatingIfNeeded: group))
                group = 0
            }
        }
        // A last group of 2 or 3 characters holds 1 or 2 bytes; the bits left over must be zero.
        switch characters.count % 4 {
        case 2:
            guard group & 0xf == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:
            guard group & 0x3 == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 10))
            bytes.append(UInt8(truncatingIfNeeded: group >> 2))
        default: break
        }
        return bytes
    }

    static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { output in
            var written = 0
            func put(_ sextet: UInt32) {
                output[written] = alphabet[Int(sextet & 0x3f)]
                written += 1
            }
            var index = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                put(group >> 18); put(group >> 12); put(group >> 6); put(group)
                index += 3
            }
            switch bytes.count - index {
            case 1:
                let group = UInt32(bytes[index]) << 16
                put(group >> 18); put(group >> 12)
            case 2:
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                put(group >> 18); put(group >> 12); put(group >> 6)
            default: break
            }
            return written
        }
    }
}
