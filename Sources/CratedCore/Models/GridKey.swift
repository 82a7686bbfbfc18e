/// The keys the album grids sort by, as `collection_album` holds them (Migrations/0005_grid.sql).
public enum GridKey {
    /// Stands for an unknown year, so that such albums come after every dated one.
    public static let unknownYear = 99999

    /// The artist sort's key: the credit's sort key, the year in five digits, then the title's sort
    /// key, joined by U+001F, which sorts before any character a sort key holds. The albums of one
    /// credit so come by year, then title, as an artist's page lists them. The grid triggers of
    /// Migrations/0028_artist_sort_by_year.sql build the same text in SQL.
    public static func artist(creditSortKey: String, year: Int?, titleSortKey: String) -> String {
        let digits = String(min(max(year ?? unknownYear, 0), unknownYear))
        return creditSortKey + "\u{1F}" + String(repeating: "0", count: 5 - digits.count) + digits + "\u{1F}" + titleSortKey
    }
}
