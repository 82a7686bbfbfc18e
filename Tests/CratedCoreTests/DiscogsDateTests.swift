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

    @Test func precisionIsWhatTheTextGives() {
        #expect(DiscogsDate.parse("2020-11-18 19:17:05")?.precision == .second)
        #expect(DiscogsDate.parse("2020-11-18T19:17:05Z")?.precision == .second)
        #expect(DiscogsDate.parse("18/11/2020 19:17")?.precision == .minute)
        #expect(DiscogsDate.parse("2020-11-18")?.precision == .day)
        #expect(DiscogsDate.parse("18.11.2020")?.precision == .day)
    }

    @Test func slashedDatesSayWhichOrdersTheyAllow() {
        #expect(DiscogsDate.slashedForm("25/03/2021 10:00") == .dayFirstOnly)
        #expect(DiscogsDate.slashedForm("03/25/2021") == .monthFirstOnly)
        #expect(DiscogsDate.slashedForm("03/04/2021 10:00:30") == .either)
        #expect(DiscogsDate.slashedForm("2021-03-04 10:00:00") == nil)
        #expect(DiscogsDate.slashedForm("04.03.2021") == nil)
        #expect(DiscogsDate.slashedForm("25/25/2021") == nil)
        // Month first, as a file decides: only the dates that allow both orders change.
        #expect(DiscogsDate.epochSeconds("03/04/2021", monthFirst: true).map(Timestamp.string(fromEpochSeconds:)) == "2021-03-04T00:00:00Z")
        #expect(DiscogsDate.epochSeconds("25/03/2021", monthFirst: true).map(Timestamp.string(fromEpochSeconds:)) == "2021-03-25T00:00:00Z")
        #expect(DiscogsDate.epochSeconds("04.03.2021", monthFirst: true).map(Timestamp.string(fromEpochSeconds:)) == "2021-03-04T00:00:00Z")
    }

    @Test(arguments: ["", "yesterday", "2020-13-01 00:00:00", "2019-02-29 10:00:00", "2020-11-18 25:00:00",
                      "2020-11-18 10:61", "23/04/23 04:38", "2020/11/18", "12345-01-01", "2020-11-18 10:00:00:00"])
    func rejectedForms(text: String) {
        #expect(DiscogsDate.epochSeconds(text) == nil)
    }
}
