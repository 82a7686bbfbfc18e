import GRDB

/// Keeps `album_search` (FTS5) in step with the catalogue. Import and sync call it for the albums
/// they added or changed, inside their own transaction.
public enum SearchIndex {
    /// Rewrites the search rows of the given albums from the catalogue tables.
    public static func refresh(_ db: Database, albumIds: some Collection<Int64>) throws {
        // Sync calls this for every group it writes, most often with none synced (failures, 304s):
        // that must not throw away what was computed for the listings.
        guard !albumIds.isEmpty else { return }
        try ListingGeneration.advance(db)
        for batch in Array(albumIds).chunked(into: batchSize) {
            // Cached: sync refreshes one album per transaction, thousands of times in a pass.
            try db.cachedStatement(sql: "DELETE FROM album_search WHERE rowid IN (\(databaseQuestionMarks(count: batch.count)))")
                .execute(arguments: StatementArguments(batch))
            try insert(db, batch)
        }
    }

    /// Adds the search rows of albums that have none yet (the import's new albums).
    ///
    /// One statement for all of them, the ids passed as one JSON array: FTS5 writes its pending terms
    /// out as a segment at the end of every statement of a transaction that writes to it, so batches
    /// of a few hundred albums each left a small segment, and merging those cost more than indexing.
    public static func add(_ db: Database, newAlbumIds: some Collection<Int64>) throws {
        guard !newAlbumIds.isEmpty else { return }
        try ListingGeneration.advance(db)
        let ids = "[" + newAlbumIds.map(String.init).joined(separator: ",") + "]"
        try insert(db, count: newAlbumIds.count, sql: insertSQL(db, albumsWhere: "a.id IN (SELECT value FROM json_each(?))"), arguments: [ids])
    }

    /// Runs `sql`, an INSERT of `count` albums' search rows in one statement, as `add` does.
    static func insert(_ db: Database, count: Int, sql: String, arguments: StatementArguments = []) throws {
        try indexing(db, albums: count) { try db.execute(sql: sql, arguments: arguments) }
    }

    /// Runs `insert`, which adds the search rows of about `albums` albums, with the pending-terms
    /// buffer sized for that many. Also for `SearchIndexBuilder`, whose index must come out the same.
    package static func indexing(_ db: Database, albums: Int, _ insert: () throws -> Void) throws {
        guard albums >= bulkAlbums else {
            try insert()
            return
        }
        // FTS5 writes a segment each time its pending terms pass `hashsize` (1 MiB by default); for a
        // whole collection a larger buffer means fewer segments to merge. The setting is stored in the
        // table, so the one found is put back, in the same transaction.
        let hashSize = try String.fetchOne(db, sql: "SELECT v FROM album_search_config WHERE k = 'hashsize'")
        try db.execute(sql: "INSERT INTO album_search (album_search, rank) VALUES ('hashsize', ?)", arguments: [bulkHashSize])
        try insert()
        try db.execute(sql: "INSERT INTO album_search (album_search, rank) VALUES ('hashsize', ?)", arguments: [hashSize ?? defaultHashSize])
    }

    /// The columns of a search row, in `insertSQL`'s order.
    package static let columns = "rowid, title, artists, labels, catalog_numbers, tracks"

    /// From this many albums on, `add` indexes with a `bulkHashSize` buffer.
    static let bulkAlbums = 10_000
    private static let bulkHashSize = "8388608"
    /// FTS5's own default (`FTS5_DEFAULT_HASHSIZE`).
    private static let defaultHashSize = "1048576"

    /// Batches keep each statement under SQLite's bound-parameter limit.
    private static let batchSize = 500

    private static func insert(_ db: Database, _ albumIds: [Int64]) throws {
        guard !albumIds.isEmpty else { return }
        try db.cachedStatement(sql: insertSQL(db, albumsWhere: "a.id IN (\(databaseQuestionMarks(count: albumIds.count)))"))
            .execute(arguments: StatementArguments(albumIds))
    }

    /// The search rows of the albums that match `condition` (on `album a`), from the catalogue tables.
    /// Credits only where their table is: the migration tests build databases from before 0030 and
    /// import into them; the daemon and the commands always run on a migrated one.
    private static func insertSQL(_ db: Database, albumsWhere condition: String) throws -> String {
        let credits = try db.tableExists("album_credit") ? "COALESCE(' ' || (\(creditNamesSQL)), '')" : "''"
        return """
        INSERT INTO album_search (rowid, title, artists, labels, catalog_numbers, tracks)
        SELECT a.id, crated_search_text(a.title),
               crated_search_artists(a.artist_credit, \(artistNamesSQL)),
               crated_search_text(COALESCE((SELECT group_concat(name, ' ') FROM album_label WHERE album_id = a.id), '')),
               crated_search_catalog((SELECT group_concat(catalog_number, char(10)) FROM album_label WHERE album_id = a.id)),
               crated_search_text(COALESCE((SELECT group_concat(title || COALESCE(' ' || artist_credit, ''), ' ')
                                            FROM track WHERE album_id = a.id), '')
                                  || \(credits))
        FROM album a WHERE \(condition)
        """
    }
}

extension SearchIndex {
    /// The people album `a` credits beyond its artists, as shown and as printed: found by name in the
    /// `tracks` column, the one that weighs least in the ranking.
    private static let creditNamesSQL = """
        SELECT group_concat(name || COALESCE(' ' || credited_name, ''), ' ') FROM album_credit WHERE album_id = a.id
        """

    /// The names of album `a`'s artists in credit order, a line each, for `crated_search_artists`.
    private static let artistNamesSQL = """
        (SELECT group_concat(name, char(10)) FROM (SELECT ar.name FROM album_artist aa JOIN artist ar ON ar.id = aa.artist_id
                                                  WHERE aa.album_id = a.id ORDER BY aa.position))
        """
}

/// Turns what a user types into a safe FTS5 query: every word becomes a quoted prefix term, so FTS
/// syntax in the input (`"`, `*`, `NEAR(`, `AND`, `-`) is searched for as text, never interpreted.
public enum SearchText {
    /// The MATCH expression for `text`, or nil when it holds no searchable word.
    ///
    /// The work is bounded: a word given twice counts once; a one-letter word beside longer ones is
    /// left out, as it narrows little and costs the most (no prefix index serves it: see
    /// `Migrations/0002_search.sql`); at most `maximumWords` words are kept. So `a a a ...` does not
    /// intersect one huge list with itself two hundred times.
    ///
    /// Words with a digit (0 to 9) among them may be a catalogue number typed with other spacing than the
    /// label's (`spin 113` for `SPIN113`): they also match its written-together form, which the index
    /// holds beside each catalogue number (`catalogNumbers`).
    ///
    /// A name pasted from Discogs keeps its disambiguation suffix (`Kit (33)`), which crated shows
    /// and indexes names without (`DiscogsText.displayName`); titles keep theirs (`Bravo Hits (12)`).
    /// Text with such a suffix matches with it or without it, and ranks what holds it first.
    ///
    /// Japanese and Chinese are written without spaces, and the index holds each of their characters
    /// as a word of its own (`separatingIdeographs`): a run of them typed is searched as a phrase of
    /// its characters (`龍一` as `"龍 一"`), found anywhere in a run, not only at its start.
    public static func matchExpression(_ text: String) -> String? {
        let unsuffixed = DiscogsText.displayName(text)
        guard unsuffixed != text, let withoutSuffixes = wordsExpression(unsuffixed) else { return wordsExpression(text) }
        guard let asTyped = wordsExpression(text), asTyped != withoutSuffixes else { return withoutSuffixes }
        return "(\(withoutSuffixes)) OR (\(asTyped))"
    }

    /// `matchExpression` of text taken as it is.
    private static func wordsExpression(_ text: String) -> String? {
        let joined = joiningInitialisms(spelledOut(text))
        let typed = separatingIdeographs(joined).split { !$0.isWordCharacter }.map(String.init)
        var seen = Set<String>()
        var words = joined.split { !$0.isWordCharacter }.map(String.init).filter { seen.insert($0.lowercased()).inserted }
        if words.contains(where: { $0.count > 1 }) { words.removeAll { $0.count == 1 && !isIdeographic($0.unicodeScalars.first!) } }
        guard !words.isEmpty else { return nil }
        let all = words.prefix(maximumWords).map { quotedPrefix(separatingIdeographs($0)) }.joined(separator: " ")
        guard typed.count > 1, typed.count <= maximumWords, typed.contains(where: { $0.contains(where: { $0.isASCII && $0.isNumber }) }) else { return all }
        return "(\(all)) OR catalog_numbers : \(quotedPrefix(typed.joined()))"
    }

    private static func quotedPrefix(_ word: String) -> String {
        "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\"*"
    }

    /// An album's catalogue numbers as the index holds them: as written (`indexed`), then each one
    /// written with separators between its letters and digits, written together again: `SPIN 150`
    /// also as `SPIN150`, `836 062-1` as `8360621`. Collectors type a number off the spine spaced
    /// as they like, and the tokenizer splits `SPIN 150` into words that `spin150` is not.
    public static func catalogNumbers(_ numbers: [String]) -> String {
        // Normalized, not indexed: these forms join more than apostrophes and hyphens. Each number
        // is normalized once: normalizing the numbers joined by spaces is normalizing each.
        let normalizedNumbers = numbers.map(normalized)
        var text = normalizedNumbers.joined(separator: " ")
        for number in normalizedNumbers {
            let parts = number.split { !$0.isWordCharacter }
            if parts.count > 1 { text += " " + parts.joined() }
        }
        return text
    }

    /// `catalogNumbers` as `crated_search_catalog(numbers)`, the numbers a line each (NULL for none).
    static let catalogSQLFunction = DatabaseFunction("crated_search_catalog", argumentCount: 1, pure: true) { values in
        guard let numbers = String.fromDatabaseValue(values[0]) else { return "" }
        return catalogNumbers(numbers.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// The most words a search takes; later ones are ignored.
    public static let maximumWords = 8

    /// Text as the search index holds it: `normalized`, then each word written with apostrophes or
    /// hyphens also written without them (`withWordsJoined`).
    public static func indexed(_ text: String) -> String {
        withWordsJoined(normalized(text))
    }

    /// Text as a search's words are matched against it: letters spelled out (`spelledOut`),
    /// initialisms joined (`joiningInitialisms`) and ideographs apart (`separatingIdeographs`).
    static func normalized(_ text: String) -> String {
        separatingIdeographs(joiningInitialisms(spelledOut(text)))
    }

    /// Adds each word that apostrophes or hyphens join, written without them: `Sgt. Pepper's` also
    /// as `Peppers`, `Mungo's Hi-Fi` as `Mungos HiFi`, `E-Z Rollers` as `EZ`, `L'Entourloop` as
    /// `LEntourloop`. The tokenizer splits at them, so `sgt peppers`, `hifi` and `dont worry` found
    /// nothing. A form the text holds already is not added again, so indexing is idempotent (the
    /// migrations compare stored text with the function's output).
    public static func withWordsJoined(_ text: String) -> String {
        // `’`, `‐` and `‑` all start with the byte 0xE2 in UTF-8.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "'") || $0 == UInt8(ascii: "-") || $0 == 0xE2 }) else { return text }
        var compounds: [String] = []
        var current = ""
        var parts = 0
        var inWord = false
        var afterJoiner = false
        func finish() {
            if parts > 1 { compounds.append(current) }
            current = ""
            parts = 0
            afterJoiner = false
        }
        for character in text {
            if character.isWordCharacter {
                if !inWord {
                    if afterJoiner { afterJoiner = false } else { finish() }
                    parts += 1
                }
                current.append(character)
                inWord = true
            } else if joiners.contains(character), inWord || afterJoiner {
                afterJoiner = true
                inWord = false
            } else {
                finish()
                inWord = false
            }
        }
        finish()
        guard !compounds.isEmpty else { return text }
        var present = Set(text.split { !$0.isWordCharacter }.map { $0.lowercased() })
        let added = compounds.filter { present.insert($0.lowercased()).inserted }
        return added.isEmpty ? text : text + " " + added.joined(separator: " ")
    }

    private static let joiners: Set<Character> = ["'", "’", "-", "‐", "‑"]

    /// Writes each Han, hiragana and katakana character as a word of its own: `坂本龍一` as
    /// `坂 本 龍 一`. The tokenizer takes a run of them, written without spaces, as one word, which
    /// a search finds only from its start (`坂本`, never `龍一`).
    public static func separatingIdeographs(_ text: String) -> String {
        if text.utf8.isASCII || !text.unicodeScalars.contains(where: isIdeographic) { return text }
        var result = String.UnicodeScalarView()
        var afterIdeograph = false
        for scalar in text.unicodeScalars {
            let ideographic = isIdeographic(scalar)
            if (ideographic || afterIdeograph), let last = result.last, !last.properties.isWhitespace, !scalar.properties.isWhitespace {
                result.append(" ")
            }
            result.append(scalar)
            afterIdeograph = ideographic
        }
        return String(result)
    }

    static func isIdeographic(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0xFF66...0xFF9F, 0x20000...0x2FA1F: true
        default: false
        }
    }

    /// Writes each initialism as one word: `L.A. Woman` as `LA Woman`, `K.U.R.O.` as `KURO`,
    /// `Let H.I.M Arise` as `Let HIM Arise`. The tokenizer would split them into single letters,
    /// which no search reaches (a one-letter word beside longer ones is left out of a search), so
    /// `la woman` found nothing. An initialism is two or more single letters, each but the last
    /// followed by a dot; a dot after the last goes with it (`J.S.Bach` becomes `JS Bach`).
    public static func joiningInitialisms(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: ".")) else { return text }
        if text.utf8.isASCII {
            // Bytes are Characters here: no grapheme breaking, no Unicode property lookups.
            let isLetter = { (byte: UInt8) in (0x61...0x7A).contains(byte | 0x20) }
            let joined = joiningInitialisms(Array(text.utf8), isLetter: isLetter,
                                            isWordCharacter: { isLetter($0) || (0x30...0x39).contains($0) }, dot: 0x2E, space: 0x20)
            return String(decoding: joined, as: UTF8.self)
        }
        return String(joiningInitialisms(Array(text), isLetter: \.isSearchLetter, isWordCharacter: \.isWordCharacter, dot: ".", space: " "))
    }

    private static func joiningInitialisms<Element: Equatable>(
        _ characters: [Element], isLetter: (Element) -> Bool, isWordCharacter: (Element) -> Bool, dot: Element, space: Element
    ) -> [Element] {
        func isWordCharacterAt(_ index: Int) -> Bool {
            index >= 0 && index < characters.count && isWordCharacter(characters[index])
        }
        func isSingleLetter(_ index: Int) -> Bool {
            index < characters.count && isLetter(characters[index]) && !isWordCharacterAt(index - 1) && !isWordCharacterAt(index + 1)
        }
        func isDot(_ index: Int) -> Bool { index < characters.count && characters[index] == dot }
        var result: [Element] = []
        result.reserveCapacity(characters.count)
        var index = 0
        while index < characters.count {
            guard isSingleLetter(index), isDot(index + 1), isSingleLetter(index + 2) else {
                result.append(characters[index])
                index += 1
                continue
            }
            result.append(characters[index])
            index += 1
            while isDot(index), isSingleLetter(index + 1) {
                result.append(characters[index + 1])
                index += 2
            }
            if isDot(index) {
                index += 1
                if isWordCharacterAt(index) { result.append(space) }
            }
        }
        return result
    }

    /// Spells out the letters that FTS5's unicode61 tokenizer keeps apart from the ones a collector
    /// types for them, as they have no decomposition to fold (`remove_diacritics` folds `é` and `ö`,
    /// not these), or whose accents it folds in Latin letters only: `Røyksopp` is found by
    /// `royksopp`, `Guðnadóttir` by `gudnadottir`, `Chœur` by `choeur`, `Straße` by `strasse`,
    /// `Ωμέγα` by `ωμεγα`. The indexed text and a search's words both pass through it.
    public static func spelledOut(_ text: String) -> String {
        if text.utf8.isASCII || !text.unicodeScalars.contains(where: { spelling(of: $0) != nil }) { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let spelled = spelling(of: scalar) { result.append(contentsOf: spelled.unicodeScalars) } else { result.append(scalar) }
        }
        return String(result)
    }

    /// A switch, not a dictionary: every scalar of every name imported passes through it, and most
    /// are below `Æ`.
    private static func spelling(of scalar: Unicode.Scalar) -> String? {
        guard scalar.value >= 0xC6 else { return nil }
        switch scalar {
        case "æ": return "ae"
        case "Æ": return "AE"
        case "œ": return "oe"
        case "Œ": return "OE"
        case "ø": return "o"
        case "Ø": return "O"
        case "ß": return "ss"
        case "ẞ": return "SS"
        case "ð": return "d"
        case "Ð": return "D"
        case "þ": return "th"
        case "Þ": return "Th"
        case "đ": return "d"
        case "Đ": return "D"
        case "ł": return "l"
        case "Ł": return "L"
        case "ħ": return "h"
        case "Ħ": return "H"
        case "ŧ": return "t"
        case "Ŧ": return "T"
        case "ı": return "i"
        case "ĳ": return "ij"
        case "Ĳ": return "IJ"
        case "ﬀ": return "ff"
        case "ﬁ": return "fi"
        case "ﬂ": return "fl"
        case "ﬃ": return "ffi"
        case "ﬄ": return "ffl"
        case "ﬅ", "ﬆ": return "st"
        // Greek with tonos or dialytika, and the final sigma: as Greek is typed without them.
        case "ά": return "α"
        case "Ά": return "Α"
        case "έ": return "ε"
        case "Έ": return "Ε"
        case "ή": return "η"
        case "Ή": return "Η"
        case "ί", "ϊ", "ΐ": return "ι"
        case "Ί", "Ϊ": return "Ι"
        case "ό": return "ο"
        case "Ό": return "Ο"
        case "ύ", "ϋ", "ΰ": return "υ"
        case "Ύ", "Ϋ": return "Υ"
        case "ώ": return "ω"
        case "Ώ": return "Ω"
        case "ς": return "σ"
        default: return nil
        }
    }

    /// `indexed` as the SQL function `crated_search_text(text)` (see `DatabaseFunction.crated`).
    static let sqlFunction = DatabaseFunction("crated_search_text", argumentCount: 1, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return values[0] }
        return indexed(text)
    }

    /// An album's searchable artists: its credit, as shown, and the names (a line each) of those of
    /// its artists the credit does not name. A release may credit an artist under a name variation
    /// (`St. Petersburg Ska-Jazz Review` as `SPB Ska-Jazz Review`), and a search for the artist's
    /// name must find it. A name whose words the credit has already (`The Persuader` in
    /// `Persuader, The`, a CSV credit's one artist) adds nothing.
    public static func searchableArtists(credit: String, names: String?) -> String {
        guard let names, !names.isEmpty else { return indexed(credit) }
        var text = normalized(credit)
        let credited = Set(words(text))
        for name in names.split(separator: "\n") {
            let spelled = normalized(String(name))
            if !words(spelled).allSatisfy(credited.contains) { text += " " + spelled }
        }
        return withWordsJoined(text)
    }

    /// Folded words, as the index's tokenizer splits and folds them closely enough to compare.
    private static func words(_ text: String) -> [String] {
        DiscogsText.fold(text).split { !$0.isWordCharacter }.map(String.init)
    }

    /// `searchableArtists` as `crated_search_artists(credit, names)`.
    static let artistsSQLFunction = DatabaseFunction("crated_search_artists", argumentCount: 2, pure: true) { values in
        guard let credit = String.fromDatabaseValue(values[0]) else { return values[0] }
        return searchableArtists(credit: credit, names: String.fromDatabaseValue(values[1]))
    }

    /// When `text` is one word of one character (a search as its first key is typed), which
    /// `searchAlbums` answers from the title index: the character as title keys begin with it,
    /// folded and spelled out as they are (`Ä` is `a`, `æ` is `ae`, `Ø` is `o`).
    public static func soleInitial(_ text: String) -> String? {
        let words = text.split { !$0.isWordCharacter }
        guard words.count == 1, words[0].count == 1 else { return nil }
        let key = DiscogsText.fold(spelledOut(String(words[0])))
        return key.isEmpty ? nil : key
    }
}

extension Array {
    func chunked(into size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

extension DatabaseFunction {
    /// crated's own SQL functions, which the statements that index from the catalogue tables
    /// (`SearchIndex`) and the migrations that rewrite derived text (0015, 0016, 0018, 0019, 0020, 0021, 0025)
    /// call: registered on every connection crated opens and by the migrator.
    public static let crated = [SearchText.sqlFunction, SearchText.artistsSQLFunction, SearchText.catalogSQLFunction, DiscogsText.sortKeySQLFunction,
                                DiscogsText.formatNameSQLFunction, DiscogsText.formatDescriptionsSQLFunction,
                                DiscogsText.displayNameSQLFunction]
}

extension Character {
    /// A letter or a number, where search splits words: ASCII is decided from its value, since
    /// every name imported passes through here and Unicode's properties cost a table lookup.
    var isWordCharacter: Bool {
        if let ascii = asciiValue { return (0x30...0x39).contains(ascii) || (0x61...0x7A).contains(ascii | 0x20) }
        return isLetter || isNumber
    }

    /// `isLetter`, ASCII decided from its value.
    var isSearchLetter: Bool {
        if let ascii = asciiValue { return (0x61...0x7A).contains(ascii | 0x20) }
        return isLetter
    }
}
