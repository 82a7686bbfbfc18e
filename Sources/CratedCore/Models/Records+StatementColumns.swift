import Foundation
import GRDB

// The album page's records read by column index (`StatementColumns`), each from the columns its
// `selection` names: its `CodingKeys`, in order. The page runs on every album request, and reading
// rows by index through SQLite's C API is what keeps it cheap (see StatementColumns.swift).

extension Album {
    static let selection = columnList(CodingKeys.self)

    init(_ columns: StatementColumns) throws {
        try self.init(
            id: columns.int64(0), discogsReleaseId: columns.optionalInt64(1), discogsMasterId: columns.optionalInt64(2),
            title: columns.string(3), sortTitle: columns.string(4), artistCredit: columns.string(5),
            artistSortName: columns.string(6), year: columns.optionalInt(7), released: columns.optionalString(8),
            country: columns.optionalString(9), formatSummary: columns.optionalString(10),
            createdAt: columns.string(11), updatedAt: columns.string(12))
    }
}

extension AlbumLabel {
    static let selection = columnList(CodingKeys.self)

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), position: columns.int(1), name: columns.string(2),
                      catalogNumber: columns.optionalString(3), discogsId: columns.optionalInt64(4))
    }
}

extension AlbumFormat {
    static let selection = columnList(CodingKeys.self)

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), position: columns.int(1), name: columns.string(2),
                      quantity: columns.int(3), descriptions: columns.string(4), text: columns.optionalString(5))
    }
}

extension AlbumGenre {
    static let selection = columnList(CodingKeys.self)

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), kind: columns.value(1), name: columns.string(2), position: columns.int(3))
    }
}

extension AlbumImage {
    static let selection = columnList(CodingKeys.self)

    init(_ columns: StatementColumns) throws {
        try self.init(albumId: columns.int64(0), position: columns.int(1), kind: columns.string(2), uri: columns.string(3),
                      uri150: columns.string(4), width: columns.optionalInt(5), height: columns.optionalInt(6))
    }
}

extension Track {
    static let selection = columnList(CodingKeys.self)

    init(_ columns: StatementColumns) throws {
        try self.init(
            id: columns.int64(0), albumId: columns.int64(1), parentId: columns.optionalInt64(2), position: columns.string(3),
            side: columns.optionalString(4), sortOrder: columns.int(5), title: columns.string(6),
            durationMs: columns.optionalInt(7), kind: columns.value(8), artistCredit: columns.optionalString(9))
    }
}

extension CollectionItem {
    static let selection = columnList(CodingKeys.self)

    init(_ columns: StatementColumns) throws {
        try self.init(
            id: columns.int64(0), userId: columns.int64(1), albumId: columns.int64(2), dateAdded: columns.string(3),
            copyOrdinal: columns.int(4), rating: columns.optionalInt(5), mediaCondition: columns.optionalString(6),
            sleeveCondition: columns.optionalString(7), notes: columns.optionalString(8),
            customFields: columns.string(9), discogsInstanceId: columns.optionalInt64(10), discogsFields: columns.optionalString(11))
    }
}

/// Every column of a record, in the order of its `CodingKeys`: what its column-index reader reads.
func columnList<Keys: CaseIterable & RawRepresentable<String>>(_ keys: Keys.Type) -> String {
    Keys.allCases.map(\.rawValue).joined(separator: ", ")
}
