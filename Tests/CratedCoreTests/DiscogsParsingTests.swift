@testable import CratedCore
import CratedTestSupport
import Foundation
import Testing

@Suite struct DiscogsDateTests {
    @Test(arguments: [
        ("2020-11-18 19:17:05", "2020-11-18T19:17:05Z"),
        ("2020-11-18 19:17", "2020-11-18T19:17:00Z"),
        ("2020-11-18T19:17:05Z", "2020-11-18T19:17:05Z"),
        ("2020-11-18", "2020-11-18T00:00:00Z"),
        ("23/04/2023 04:38", "2023-04-23T04:38:00Z"),
        ("4/23/2023 4:38", "2023-04-23T04:38:00Z"),
        ("03/04/2023 10:00:30", "2023-04-03T10:00:30Z"),
        ("23.04.2023 04:38", "2023-04-23T04:38:00Z"),
        ("2016-02-29 23:59:59", "2016-02-29T23:59:59Z"),
        (" 1999-12-31 23:59:59 ", "1999-12-31T23:59:59Z"),
    ])
    func acceptedForms(text: String, expected: String) {
        let seconds = DiscogsDate.epochSeconds(text)
        #expect(seconds.map(Timestamp.string(fromEpochSeconds:)) == expected)
    }

    @Test(arguments: ["", "yesterday", "2020-13-01 00:00:00", "2019-02-29 10:00:00", "2020-11-18 25:00:00",
                      "2020-11-18 10:61", "23/04/23 04:38", "2020/11/18", "12345-01-01", "2020-11-18 10:00:00:00"])
    func rejectedForms(text: String) {
        #expect(DiscogsDate.epochSeconds(text) == nil)
    }
}

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

    @Test func labelsPairWithTheirCatalogueNumbers() {
        let pairs = DiscogsText.labels(label: "Bad Boy Entertainment, Wondaland", catalogNumbers: "512256-1, none")
        #expect(pairs.map(\.name) == ["Bad Boy Entertainment", "Wondaland"])
        #expect(pairs.map(\.catalogNumber) == ["512256-1", nil])
        let shared = DiscogsText.labels(label: "17 North Parade, Earthquake", catalogNumbers: "VP4201")
        #expect(shared.map(\.catalogNumber) == ["VP4201", "VP4201"])
        let merged = DiscogsText.labels(label: "Atlantic", catalogNumbers: "SD 1361, none")
        #expect(merged.map(\.catalogNumber) == ["SD 1361"])
        #expect(DiscogsText.labels(label: "Label", catalogNumbers: "none").map(\.catalogNumber) == [nil])
    }

    @Test func formatsSplitIntoQuantityNameAndDescriptions() {
        #expect(DiscogsText.formats("2xLP, Album, RP + CD, Album, RP + RE, Gat") == [
            .init(name: "LP", quantity: 2, descriptions: ["Album", "RP"]),
            .init(name: "CD", quantity: 1, descriptions: ["Album", "RP"]),
            .init(name: "RE", quantity: 1, descriptions: ["Gat"]),
        ])
        #expect(DiscogsText.formats("12\", 33 ⅓ RPM") == [.init(name: "12\"", quantity: 1, descriptions: ["33 ⅓ RPM"])])
        #expect(DiscogsText.formats("").isEmpty)
    }

    @Test func searchTextNeutralisesFTSSyntax() {
        #expect(SearchText.matchExpression("deja vu") == "\"deja\"* \"vu\"*")
        #expect(SearchText.matchExpression("NEAR( \"x\" * '; DROP TABLE") == "\"NEAR\"* \"x\"* \"DROP\"* \"TABLE\"*")
        #expect(SearchText.matchExpression("  \"*()  ") == nil)
    }
}

@Suite struct TimestampTests {
    @Test func digitByDigitMatchesTheGeneralWayAndFoundation() {
        var generator = SystemRandomNumberGenerator()
        let edges: [Int64] = [0, -1, 86_399, 86_400, 951_782_400, 253_402_300_799, -62_167_219_200, 1_700_000_000]
        let random = (0..<2_000).map { _ in Int64.random(in: -62_167_219_200...253_402_300_799, using: &generator) }
        for seconds in edges + random {
            let fast = Timestamp.string(fromEpochSeconds: seconds)
            #expect(fast == Timestamp.paddedString(fromEpochSeconds: seconds))
            // Foundation's calendar is Julian before October 1582; crated's is proleptic Gregorian.
            if seconds >= -12_219_292_800 {
                #expect(fast == Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601), "\(seconds)")
            }
        }
        // Outside years 0 to 9999, the general way.
        #expect(Timestamp.string(fromEpochSeconds: 253_402_300_800) == "10000-01-01T00:00:00Z")
    }
}
