@testable import CratedCore
import CratedTestSupport
import Foundation
import Synchronization
import Testing

@Suite struct GenerationCacheTests {
    @Test func valuesAreKeptForTheirGenerationOnly() {
        let cache = GenerationCache<Int>(capacity: 4)
        cache.store(1, for: "a", generation: 7)
        #expect(cache.value(for: "a", generation: 7) == 1)
        #expect(cache.value(for: "a", generation: 8) == nil)
        // A newer generation drops what an older one computed; an older one does not replace it.
        cache.store(2, for: "b", generation: 8)
        #expect(cache.value(for: "a", generation: 7) == nil)
        cache.store(3, for: "b", generation: 7)
        #expect(cache.value(for: "b", generation: 8) == 2)
    }

    @Test func aNewerGenerationOfOneReachLeavesTheOtherReachesValues() {
        let cache = GenerationCache<Int>(capacity: 4)
        // A crate-restricted grid is numbered by listings + crates (here 5 + 3), its base by listings alone.
        cache.store(1, for: "base", generation: 5, reach: .listings)
        cache.store(2, for: "crate grid", generation: 8, reach: .listingsAndCrates)
        #expect(cache.value(for: "base", generation: 5) == 1)
        // A newer number of the same reach still drops the older values of that reach.
        cache.store(3, for: "other base", generation: 6, reach: .listings)
        #expect(cache.value(for: "base", generation: 5) == nil)
        #expect(cache.value(for: "crate grid", generation: 8) == 2)
    }

    /// A caller asking for a value another is computing waits for it and computes nothing; a failed
    /// computation leaves the next caller to compute it.
    @Test func aValueBeingComputedIsWaitedForNotComputedAgain() async throws {
        let cache = GenerationCache<Int>(capacity: 4)
        let computations = Mutex(0)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Thread.detachedResult {
            try cache.value(for: "grid", generation: 3) {
                computations.withLock { $0 += 1 }
                started.signal()
                release.wait()
                return 42
            }
        }
        started.wait()
        let second = Thread.detachedResult {
            try cache.value(for: "grid", generation: 3) {
                computations.withLock { $0 += 1 }
                return 7
            }
        }
        // The second caller is waiting: nothing of its own is computed while the first is under way.
        try await Task.sleep(for: .milliseconds(200))
        #expect(computations.withLock { $0 } == 1)
        release.signal()
        #expect(try await first.value == 42)
        #expect(try await second.value == 42)
        #expect(computations.withLock { $0 } == 1)

        // Another generation or key is not held up; a failure is computed again by the next caller.
        #expect(try cache.value(for: "grid", generation: 4) { 5 } == 5)
        struct Failed: Error {}
        #expect(throws: Failed.self) { try cache.value(for: "other", generation: 4) { throw Failed() } }
        #expect(try cache.value(for: "other", generation: 4) { 6 } == 6)
    }

    @Test func theLeastRecentlyUsedGoFirstWhenOverCapacityOrWeight() {
        let byCount = GenerationCache<Int>(capacity: 2)
        byCount.store(1, for: "a", generation: 1)
        byCount.store(2, for: "b", generation: 1)
        _ = byCount.value(for: "a", generation: 1)
        byCount.store(3, for: "c", generation: 1)
        #expect(byCount.value(for: "a", generation: 1) == 1)
        #expect(byCount.value(for: "b", generation: 1) == nil)
        #expect(byCount.value(for: "c", generation: 1) == 3)

        // Weighed by value: at most 10 in all, except that the latest value is kept however heavy.
        let byWeight = GenerationCache<Int>(capacity: 100, maxWeight: 10) { $0 }
        byWeight.store(4, for: "a", generation: 1)
        byWeight.store(5, for: "b", generation: 1)
        _ = byWeight.value(for: "a", generation: 1)
        byWeight.store(3, for: "c", generation: 1)
        #expect(byWeight.value(for: "a", generation: 1) == 4)
        #expect(byWeight.value(for: "b", generation: 1) == nil)
        #expect(byWeight.value(for: "c", generation: 1) == 3)
        byWeight.store(50, for: "d", generation: 1)
        #expect(byWeight.value(for: "d", generation: 1) == 50)
        #expect(byWeight.value(for: "a", generation: 1) == nil)
        #expect(byWeight.value(for: "c", generation: 1) == nil)
        // Nothing at all with capacity 0.
        let none = GenerationCache<Int>(capacity: 0)
        none.store(1, for: "a", generation: 1)
        #expect(none.value(for: "a", generation: 1) == nil)
    }
}

private extension Thread {
    /// Runs `body` on a thread of its own (the cache blocks the thread that waits, as a database
    /// reader's would), with its result as a task's.
    static func detachedResult<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> Task<T, any Error> {
        Task {
            try await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: Result { try body() }) }
            }.get()
        }
    }
}
