import GRDB

/// A value of a grid's sort key as SQLite holds it: text for names, titles and dates, an integer for
/// years and ratings.
enum SortKey: Hashable, Sendable, Codable {
    case integer(Int64)
    case text(String)

    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .integer(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        }
    }

    var checksumText: String {
        switch self {
        case .integer(let value): "i:\(value)"
        case .text(let value): "t:\(value)"
        }
    }
}

/// One album's place in a grid's order: its sort key and its id, which breaks ties.
struct GridAnchor: Hashable, Sendable {
    var key: SortKey
    var albumId: Int64
}

extension SortKey {
    /// SQLite's order: integers numerically; text by BINARY collation, which is UTF-8 byte order (Swift's
    /// `<` and `==` on String follow Unicode equivalence instead, so the bytes are compared).
    func compare(to other: SortKey) -> Int {
        switch (self, other) {
        case (.integer(let a), .integer(let b)):
            return a < b ? -1 : a == b ? 0 : 1
        case (.text(let a), .text(let b)):
            var left = a.utf8.makeIterator()
            var right = b.utf8.makeIterator()
            while true {
                switch (left.next(), right.next()) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case (let l?, let r?) where l != r: return l < r ? -1 : 1
                default: continue
                }
            }
        // SQLite puts every integer before every text; a grid holds only one of them.
        case (.integer, .text): return -1
        case (.text, .integer): return 1
        }
    }
}
