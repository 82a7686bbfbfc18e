@testable import CratedCore
import CratedTestSupport
import Foundation
import Testing

@Suite struct TimestampTests {
    /// A date no clock gives (a broken header's wait added to now) is written as the nearest one
    /// written, never a crash.
    @Test func datesPastTheYearsWrittenAreClamped() {
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: 1e20)) == "9999-12-31T23:59:59Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: -1e20)) == "0000-01-01T00:00:00Z")
        #expect(Timestamp.string(from: Date(timeIntervalSince1970: .infinity)) == "1970-01-01T00:00:00Z")
    }

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
