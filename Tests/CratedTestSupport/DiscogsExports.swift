import CratedCore
import Foundation
import GRDB

/// The header of a default Discogs collection export, with one custom field.
public let exportHeader = "Catalog#,Artist,Title,Label,Format,Rating,Released,release_id,CollectionFolder,Date Added,Collection Media Condition,Collection Sleeve Condition,Collection Notes,Collection Purchased At"

/// One export row with sensible values; tests override what they are about.
public func exportRow(
    catalog: String = "CAT 1", artist: String = "Artist", title: String = "Title", label: String = "Label",
    format: String = "\"LP, Album\"", rating: String = "", released: String = "1999", releaseId: String = "100",
    folder: String = "Uncategorized", dateAdded: String = "2020-01-01 10:00:00", media: String = "", sleeve: String = "",
    notes: String = "", purchasedAt: String = ""
) -> String {
    [catalog, artist, title, label, format, rating, released, releaseId, folder, dateAdded, media, sleeve, notes, purchasedAt]
        .joined(separator: ",")
}

/// A Discogs-shaped export of `rows` rows, the same for the same arguments: artists from a pool with
/// Discogs suffixes and commas, several copies of one release on other days, identical rows, several
/// labels, `none` catalogue numbers, unknown years, ratings, notes over two lines, folders (some the
/// default), a custom field. Release ids start at `firstRelease`; `ratingShift` changes the rating of every
/// third release.
public func syntheticExport(rows: Int, firstRelease: Int = 1, ratingShift: Int = 0) -> String {
    var lines = [exportHeader]
    lines.reserveCapacity(rows + 1)
    var row = 0
    while row < rows {
        let n = firstRelease + row
        let release = String(n)
        let artist = n % 11 == 0 ? "\"Earth, Wind & Fire (\(n % 3 + 2))\"" : "Artist \(n % 389)\(n % 5 == 0 ? " (2)" : "")"
        let label = n % 4 == 0 ? "\"Label \(n % 53), Label \(n % 17)\"" : "Label \(n % 53)"
        let catalog = n % 9 == 0 ? "none" : (n % 4 == 0 ? "\"CAT \(n), CAT \(n + 1)\"" : "CAT \(n)")
        let folder = ["Uncategorized", "Jazz", "Dub & Reggae", "\"Sell, maybe\"", "Ambient"][n % 5]
        let day = 1 + n % 28, month = 1 + n % 12
        // A shifted rating re-rates every third release.
        let rating = (n + (n % 3 == 0 ? ratingShift : 0)) % 6
        let date = "2021-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day) 1\(n % 10):0\(n % 6):00"
        let line = exportRow(
            catalog: catalog, artist: artist, title: "Title \(n % 7 == 0 ? "Déjà Vu" : "Record") \(n)", label: label,
            format: n % 3 == 0 ? "\"2xLP, Album, RE\"" : "LP", rating: rating == 0 ? "" : String(rating),
            released: n % 13 == 0 ? "0" : String(1960 + n % 60), releaseId: release, folder: folder, dateAdded: date,
            media: n % 2 == 0 ? "Mint (M)" : "", notes: n % 10 == 0 ? "\"First line\nsecond \"\"quoted\"\"\"" : "",
            purchasedAt: n % 6 == 0 ? "Rough Trade" : "")
        lines.append(line)
        row += 1
        // Every 17th release has a second copy on another day, every 23rd an identical row.
        if n % 17 == 0 && row < rows {
            lines.append(line.replacingOccurrences(of: date, with: "2023-05-05 05:05:05"))
            row += 1
        }
        if n % 23 == 0 && row < rows {
            lines.append(line)
            row += 1
        }
    }
    return lines.joined(separator: "\n") + "\n"
}
