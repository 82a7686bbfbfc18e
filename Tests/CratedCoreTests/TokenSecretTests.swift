@testable import CratedCore
import CratedTestSupport
import Foundation
import Testing

@Suite struct TokenSecretTests {
    @Test func thePrefixIsTheTwelveCharactersBetweenTheFirstTwoSeparators() {
        #expect(TokenSecret.prefix(of: "crt_0123456789ab_secret") == "0123456789ab")
        // The secret is base64url: it may hold separators of its own.
        #expect(TokenSecret.prefix(of: "crt_0123456789ab_se_cr_et") == "0123456789ab")
        for notAToken in ["", "crt_", "crt_0123456789ab_", "crt_0123456789ab", "crt_0123456789a_secret", "crt_0123456789abc_secret",
                          "CRT_0123456789ab_secret", "xrt_0123456789ab_secret", "crt_0123_456789a_secret", "crt_0123456789é_secret",
                          "crt_012345678éa_secret", " crt_0123456789ab_secret"] {
            #expect(TokenSecret.prefix(of: notAToken) == nil, "\(notAToken)")
        }
    }

    @Test func aTokenMatchesItsHashOnly() {
        let token = "crt_0123456789ab_\(TokenSecret.random(bytes: 32))"
        let hash = TokenSecret.hash(token)
        #expect(hash.count == 32)
        #expect(TokenSecret.token(token, hasHash: hash))
        #expect(!TokenSecret.token(token + "x", hasHash: hash))
        #expect(!TokenSecret.token(token, hasHash: hash.dropLast()))
        #expect(!TokenSecret.token(token, hasHash: Data()))
        var altered = hash
        altered[altered.startIndex + 31] ^= 1
        #expect(!TokenSecret.token(token, hasHash: altered))
    }
}
