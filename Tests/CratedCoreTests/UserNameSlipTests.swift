@testable import CratedCore
import Testing

@Suite struct UserNameSlipTests {
    @Test func aNameMistypedIsASlipAndAnotherNameIsNot() {
        for (typed, existing) in [("colector", "collector"), ("Collcetor", "collector"), ("collectors", "collector"),
                                  ("Jöhnny", "johnny"), ("shelf22", "shlef22"), ("marky", "mark")] {
            #expect(AppDatabase.isSlip(typed, of: existing), "\(typed) for \(existing)")
        }
        for (typed, existing) in [("collector1", "collector0"), ("shelf2", "shelf"), ("ann", "anna"),
                                  ("mary", "mark1"), ("alice", "bob"), ("marie", "mark")] {
            #expect(!AppDatabase.isSlip(typed, of: existing), "\(typed) for \(existing)")
        }
    }
}
