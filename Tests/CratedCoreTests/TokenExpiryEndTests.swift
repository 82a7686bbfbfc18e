@testable import CratedCore
import Testing

/// The time a token stops is the earlier of its own date and, for an app's sign-in, the end of the
/// idle time after its last use (its making, when never used).
@Suite struct TokenExpiryEndTests {
    @Test func theEndIsTheEarlierOfTheDateAndTheIdleEnd() {
        func end(_ expiresAt: Int64?, fromSignIn: Bool, _ expiry: TokenExpiry = TokenExpiry(signInIdleLimit: 100)) -> [Int64]? {
            expiry.end(expiresAt: expiresAt, fromSignIn: fromSignIn, lastUsedOrCreated: 1000).map { [$0.seconds, $0.forIdleness ? 1 : 0] }
        }
        #expect(end(nil, fromSignIn: false) == nil)
        #expect(end(5000, fromSignIn: false) == [5000, 0])
        #expect(end(nil, fromSignIn: true) == [1100, 1])
        #expect(end(5000, fromSignIn: true) == [1100, 1])
        #expect(end(1050, fromSignIn: true) == [1050, 0])
        #expect(end(nil, fromSignIn: true, .byDateOnly) == nil)
    }
}
