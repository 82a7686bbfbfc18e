@testable import CratedCore
import Testing

/// `joiningInitialisms` reads ASCII text byte by byte and other text Character by Character: both
/// ways join the same initialisms.
@Suite struct InitialismTests {
    @Test func asciiAndOtherTextJoinAlike() {
        let cases = [
            ("L.A. Woman", "LA Woman"), ("K.U.R.O.", "KURO"), ("Let H.I.M Arise", "Let HIM Arise"), ("J.S.Bach", "JS Bach"),
            ("Vol. 2", "Vol. 2"), ("A.B", "AB"), ("a.b.c.d.e", "abcde"), ("U.S.A.\r\nTour", "USA\r\nTour"), ("No.1", "No.1"),
            ("1.2.3", "1.2.3"), ("Mr. T.", "Mr. T."), ("...", "..."), ("X.Y.-Z", "XY-Z"),
        ]
        for (text, joined) in cases {
            #expect(SearchText.joiningInitialisms(text) == joined, "\(text)")
            #expect(SearchText.joiningInitialisms(text + " é") == joined + " é", "\(text), not ASCII")
        }
        #expect(SearchText.joiningInitialisms("É.T. Ñ.O.") == "ÉT ÑO")
    }
}
