@testable import CratedCore
import CratedTestSupport
import Foundation
import Testing

@Suite struct DiscogsTextTests {
    @Test func suffixesAreRemovedForDisplayOnly() {
        #expect(DiscogsText.displayName("Casey (2)") == "Casey")
        #expect(DiscogsText.displayName("Casey (2) & Bob (14)") == "Casey & Bob")
        #expect(DiscogsText.displayName("Witness (1 Hope)") == "Witness (1 Hope)")
        #expect(DiscogsText.displayName("Sonic Boom (2), The Others") == "Sonic Boom, The Others")
        #expect(DiscogsText.displayName("Earth, Wind & Fire") == "Earth, Wind & Fire")
    }

    @Test func sortKeysFoldDiacriticsCaseAndLeadingArticles() {
        #expect(DiscogsText.sortKey("The Beatles") == "beatles")
        #expect(DiscogsText.sortKey("Björk") == "bjork")
        #expect(DiscogsText.sortKey("A Tribe Called Quest") == "tribe called quest")
        #expect(DiscogsText.sortKey("The") == "the")
        #expect(DiscogsText.sortKey("Déjà Vu ") == "deja vu")
    }

    /// Real titles from the fixtures' exports: leading punctuation does not decide a place, and
    /// letters without a decomposition sort as search spells them.
    @Test func sortKeysSkipLeadingPunctuationAndSpellLettersOut() {
        #expect(DiscogsText.sortKey("'Allelujah! Don't Bend Ascend") == "allelujah! don't bend ascend")
        #expect(DiscogsText.sortKey("»Eroica«") == "eroica«")
        #expect(DiscogsText.sortKey("...And Justice For All") == "and justice for all")
        #expect(DiscogsText.sortKey("\"The Beatles\"") == "beatles\"")
        #expect(DiscogsText.sortKey("Chœur Des Moines") == "choeur des moines")
        #expect(DiscogsText.sortKey("Røyksopp") == "royksopp")
        #expect(DiscogsText.sortKey("¡Tchkung!") == "tchkung!")
        #expect(DiscogsText.sortKey("(What's The Story) Morning Glory?") == "what's the story) morning glory?")
        #expect(DiscogsText.sortKey("10_Traktion 02") == "210_traktion 12")
        #expect(DiscogsText.sortKey("!!!") == "!!!")
        #expect(DiscogsText.sortKey("«»") == "«»")
    }

    /// Numbers sort by value, whatever their leading zeros; other text is left alone.
    @Test func sortKeysOrderNumbersByValue() {
        let titles = ["Vol. 10", "Vol. 2", "Vol. 1", "100 Years of Theremin", "10 Years Of Global Aura", "19/2000", "2 Unlimited", "Kaotik 05"]
        #expect(titles.sorted { DiscogsText.sortKey($0) < DiscogsText.sortKey($1) }
                == ["2 Unlimited", "10 Years Of Global Aura", "19/2000", "100 Years of Theremin", "Kaotik 05", "Vol. 1", "Vol. 2", "Vol. 10"])
        #expect(DiscogsText.sortKey("Hypnotech 02") == DiscogsText.sortKey("Hypnotech 2"))
        #expect(DiscogsText.sortKey("Track 0") == "track 10")
        #expect(DiscogsText.sortKey("Abbey Road") == "abbey road")
        // Nine digits or more: 9 and the length in two digits, still after eight digits.
        #expect(DiscogsText.sortKey("1234567890") == "9101234567890")
        let long = ["1000000000", "999999999", "12345678", "123456789x"]
        #expect(long.sorted { DiscogsText.sortKey($0) < DiscogsText.sortKey($1) } == ["12345678", "123456789x", "999999999", "1000000000"])
        // Control characters are spaces: U+001F joins the grid's keys.
        #expect(DiscogsText.sortKey("Tab\tTitle\u{1F}") == "tab title")
    }

    /// The artist sort's key orders by artist, then year (unknown last), then title.
    @Test func theArtistGridKeyOrdersAnArtistsAlbumsByYearThenTitle() {
        func key(_ artist: String, _ year: Int?, _ title: String) -> String {
            GridKey.artist(creditSortKey: DiscogsText.sortKey(artist), year: year, titleSortKey: DiscogsText.sortKey(title))
        }
        let keys = [key("Pink Floyd", nil, "Bootleg"), key("Pink Floyd", 1979, "The Wall"), key("Pink Floyd The Tribute", 1970, "A"),
                    key("Pink Floyd", 1967, "Piper"), key("Pink", 2000, "Z"), key("Pink Floyd", 1979, "Animals"),
                    key("Pink Floyd & Co", 1950, "A")]
        #expect(keys.sorted() == [keys[4], keys[3], keys[5], keys[1], keys[0], keys[6], keys[2]])
        #expect(key("X", 1979, "T") == "x\u{1F}01979\u{1F}t")
        #expect(key("X", -5, "T") == "x\u{1F}00000\u{1F}t")
    }

    @Test func labelsPairWithTheirCatalogueNumbers() {
        let pairs = DiscogsText.labels(label: "Bad Boy Entertainment, Wondaland", catalogNumbers: "512256-1, none")
        #expect(pairs.map(\.name) == ["Bad Boy Entertainment", "Wondaland"])
        #expect(pairs.map(\.catalogNumber) == ["512256-1", nil])
        let shared = DiscogsText.labels(label: "17 North Parade, Earthquake", catalogNumbers: "VP4201")
        #expect(shared.map(\.catalogNumber) == ["VP4201", "VP4201"])
        let merged = DiscogsText.labels(label: "Atlantic", catalogNumbers: "SD 1361, none")
        #expect(merged.map(\.catalogNumber) == ["SD 1361"])
        #expect(DiscogsText.labels(label: "Label", catalogNumbers: "none").map(\.catalogNumber) == [nil])
        // Shown without Discogs' suffix, one label or several; a parenthesis that is no suffix stays.
        #expect(DiscogsText.labels(label: " Saga (5) ", catalogNumbers: "SAGA XID 5128").map(\.name) == ["Saga"])
        let suffixed = DiscogsText.labels(label: "Glassnote (2), Goodbye Records (2), Jinx (In Dub)", catalogNumbers: "A, B, C")
        #expect(suffixed.map(\.name) == ["Glassnote", "Goodbye Records", "Jinx (In Dub)"])
        #expect(suffixed.map(\.catalogNumber) == ["A", "B", "C"])
    }

    /// Named as the API names them (the fixtures' exports' cells): the export leaves out `Vinyl`,
    /// writes All Media as its descriptions alone, and shortens Cassette and Box Set.
    @Test func formatsSplitIntoQuantityNameAndDescriptions() {
        #expect(DiscogsText.formats("2xLP, Album, RP + CD, Album, RP + RE, Gat") == [
            .init(name: "Vinyl", quantity: 2, descriptions: ["LP", "Album", "RP"]),
            .init(name: "CD", quantity: 1, descriptions: ["Album", "RP"]),
            .init(name: "All Media", quantity: 1, descriptions: ["RE", "Gat"]),
        ])
        #expect(DiscogsText.formats("12\", 33 ⅓ RPM") == [.init(name: "Vinyl", quantity: 1, descriptions: ["12\"", "33 ⅓ RPM"])])
        #expect(DiscogsText.formats("LP, Album, Whi + 12\", S/Sided, Etch, Whi + Box, Dl") == [
            .init(name: "Vinyl", quantity: 1, descriptions: ["LP", "Album", "Whi"]),
            .init(name: "Vinyl", quantity: 1, descriptions: ["12\"", "S/Sided", "Etch", "Whi"]),
            .init(name: "Box Set", quantity: 1, descriptions: []),
        ])
        #expect(DiscogsText.formats("LP + 7\" + Album") == [
            .init(name: "Vinyl", quantity: 1, descriptions: ["LP"]), .init(name: "Vinyl", quantity: 1, descriptions: ["7\""]),
            .init(name: "All Media", quantity: 1, descriptions: ["Album"]),
        ])
        #expect(DiscogsText.formats("Cass, Album, RE") == [.init(name: "Cassette", quantity: 1, descriptions: ["Album", "RE"])])
        // Names the API uses as they are, and one the rules do not know kept as written.
        #expect(DiscogsText.formats("2xLP, Album + DVD-V") == [
            .init(name: "Vinyl", quantity: 2, descriptions: ["LP", "Album"]), .init(name: "DVD-V", quantity: 1, descriptions: []),
        ])
        #expect(DiscogsText.formats("File, MP3, Album") == [.init(name: "File", quantity: 1, descriptions: ["MP3", "Album"])])
        #expect(DiscogsText.formats("Flexi, 7\"") == [.init(name: "Flexi", quantity: 1, descriptions: ["7\""])])
        #expect(DiscogsText.formats("\"") == [.init(name: "\"", quantity: 1, descriptions: [])])
    }

    /// The export cuts the cell at 50 characters and a format's quoted free text short: what may
    /// have been cut is left out, what is known whole at the cut is kept.
    @Test func formatsLeaveOutWhatTheExportCut() {
        // The fixtures' own cells: `"Ye` is the text `Yellow`, `Dl` the description `Dlx`.
        #expect(DiscogsText.formats("7\", EP, Ltd, \"Ye") == [.init(name: "Vinyl", quantity: 1, descriptions: ["7\"", "EP", "Ltd"])])
        #expect(DiscogsText.formats("LP, Album, Ltd, \"Yellow\"") == [
            .init(name: "Vinyl", quantity: 1, descriptions: ["LP", "Album", "Ltd", "\"Yellow\""]),
        ])
        // Under 50 characters nothing is cut: `Dl` stays.
        #expect(DiscogsText.formats("LP + Box, Dl") == [
            .init(name: "Vinyl", quantity: 1, descriptions: ["LP"]), .init(name: "Box Set", quantity: 1, descriptions: ["Dl"]),
        ])
        // At 50, a known last piece stays, and a cut format name goes with its format.
        let known = "2xLP, Album, RP + CD, Album, RP + 2xLP, Album, Gat"
        #expect(known.count == 50)
        #expect(DiscogsText.formats(known).last == .init(name: "Vinyl", quantity: 2, descriptions: ["LP", "Album", "Gat"]))
        let cutName = "2xLP, Album, RP + CD, Album, RP + 2xLP, Album + Ca"
        #expect(cutName.count == 50)
        #expect(DiscogsText.formats(cutName).map(\.name) == ["Vinyl", "CD", "Vinyl"])
        #expect(DiscogsText.formats("2xLP, Album, RP + CD, Album, RP + LP, Album + Cass").last == .init(name: "Cassette", quantity: 1, descriptions: []))
        #expect(DiscogsText.formats("2xLP, Album, RP + CD, Album, RP + LP, Album + 2xLP").last == .init(name: "Vinyl", quantity: 2, descriptions: ["LP"]))
        #expect(DiscogsText.formats("").isEmpty)
    }

    @Test func searchTextNeutralisesFTSSyntax() {
        #expect(SearchText.matchExpression("deja vu") == "\"deja\"* \"vu\"*")
        #expect(SearchText.matchExpression("NEAR( \"xy\" * '; DROP TABLE") == "\"NEAR\"* \"xy\"* \"DROP\"* \"TABLE\"*")
        #expect(SearchText.matchExpression("  \"*()  ") == nil)
        // Bounded work: repeats once, single letters only alone, eight words at most.
        #expect(SearchText.matchExpression(String(repeating: "a ", count: 200)) == "\"a\"*")
        #expect(SearchText.matchExpression("Blue blue BLUE b") == "\"Blue\"*")
        #expect(SearchText.matchExpression("miles d") == "\"miles\"*")
        #expect(SearchText.matchExpression((1...20).map { "w\($0)" }.joined(separator: " "))?.split(separator: " ").count == SearchText.maximumWords)
    }
}
