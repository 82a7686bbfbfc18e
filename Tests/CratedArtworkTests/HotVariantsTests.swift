@testable import CratedArtwork
import CratedCore
import CratedTestSupport
import NIOCore
import Testing

/// The in-memory cache of small variants: what it keeps, what it drops first, and that it stays in budget.
/// Reading an entry marks it used, so the tests read only where that is meant to count.
@Suite struct HotVariantsTests {
    @Test("an entry read since it came in survives when one must go, and the oldest unread goes instead")
    func readEntrySurvives() {
        let cache = HotVariants(maxBytes: 300, maxFileBytes: 100)
        for name in ["a", "b", "c"] { cache.keep(name, size: 100) }
        #expect(cache.read("a") == 100)

        cache.keep("d", size: 100)

        #expect(cache.count == 3)
        #expect(cache.read("b") == nil)
        #expect(cache.read("a") == 100)
        #expect(cache.read("c") == 100)
        #expect(cache.read("d") == 100)
    }

    @Test("unread entries go oldest first, and a read one goes in its turn once its second chance is spent")
    func unreadGoInOrder() {
        let cache = HotVariants(maxBytes: 400, maxFileBytes: 100)
        for name in ["a", "b", "c", "d"] { cache.keep(name, size: 100) }
        #expect(cache.read("b") == 100)

        // Only the expected victim is looked up: a lookup that finds nothing marks nothing.
        for (name, victim) in zip(["e", "f", "g", "h", "i", "j"], ["a", "c", "d", "e", "f", "b"]) {
            cache.keep(name, size: 100)
            #expect(cache.count == 4)
            #expect(cache.read(victim) == nil, "keeping \(name) should drop \(victim)")
        }
        #expect(["g", "h", "i", "j"].map { cache.read($0) } == [100, 100, 100, 100])
    }

    @Test("after 1,000 keeps of random sizes it holds no more than maxBytes, the newest of each name, and count says how many")
    func staysWithinBudget() {
        let maxBytes = 10_000
        let cache = HotVariants(maxBytes: maxBytes, maxFileBytes: maxBytes)
        var random = SeededGenerator(seed: 0x5EED)
        var latest: [String: Int] = [:]

        for round in 1...1_000 {
            let name = "cover-\(Int.random(in: 0..<200, using: &random))"
            let size = Int.random(in: 0...1_500, using: &random)
            cache.keep(name, size: size)
            latest[name] = size
            if Int.random(in: 0..<3, using: &random) == 0 {
                _ = cache.read("cover-\(Int.random(in: 0..<200, using: &random))")
            }

            guard round.isMultiple(of: 100) else { continue }
            var held: [String: Int] = [:]
            for name in latest.keys { if let size = cache.read(name) { held[name] = size } }
            #expect(held.allSatisfy { latest[$0.key] == $0.value })
            #expect(cache.count == held.count)
            let bytes = held.values.reduce(0, +)
            #expect(bytes <= maxBytes)

            // The accounting matches what is held: filling the room left exactly drops nothing.
            let room = maxBytes - bytes
            guard room > 0 else { continue }
            let probe = "probe-\(round)"
            cache.keep(probe, size: room)
            latest[probe] = room
            #expect(cache.count == held.count + 1)
        }
        // It had to drop some on the way.
        #expect(cache.count < latest.count)
    }

    @Test("keeping a name again replaces its file, counts its bytes once, and drops it once")
    func keepAgainReplaces() {
        let small = HotVariants(maxBytes: 400, maxFileBytes: 200)
        small.keep("a", size: 100, fill: 1)
        small.keep("a", size: 150, fill: 2)
        #expect(small.count == 1)
        #expect(small.entry("a")?.contents.readableBytes == 150)
        #expect(small.entry("a")?.contents.getInteger(at: 0, as: UInt8.self) == 2)

        let cache = HotVariants(maxBytes: 400, maxFileBytes: 200)
        cache.keep("a", size: 100)
        cache.keep("b", size: 100)
        cache.keep("a", size: 150)
        cache.keep("c", size: 150)
        // 150 + 100 + 150 is exactly the budget: nothing goes if "a" counts once.
        #expect(cache.count == 3)

        cache.keep("d", size: 100)
        #expect(cache.count == 3)
        #expect(cache.read("a") == nil)

        cache.keep("e", size: 100)
        #expect(cache.read("b") == nil)
        // c 150 + d 100 + e 100 + f 50 is the budget again, and one byte more drops c: had any bytes of
        // "a" been counted or taken off twice, these counts would be off.
        cache.keep("f", size: 50)
        #expect(cache.count == 4)
        cache.keep("g", size: 1)
        #expect(cache.count == 4)
        #expect(cache.read("c") == nil)
        #expect(["d", "e", "f", "g"].map { cache.read($0) } == [100, 100, 50, 1])
    }

    @Test("a file larger than maxFileBytes is never kept, and a cache of maxBytes 0 keeps nothing")
    func refusesWhatDoesNotFit() {
        let cache = HotVariants(maxBytes: 1_000, maxFileBytes: 100)
        cache.keep("big", size: 101)
        #expect(cache.count == 0)
        #expect(cache.read("big") == nil)
        cache.keep("small", size: 100)
        #expect(cache.read("small") == 100)

        let none = HotVariants(maxBytes: 0, maxFileBytes: 100)
        none.keep("a", size: 10)
        none.keep("empty", size: 0)
        #expect(none.count == 0)
        #expect(none.read("a") == nil)
        #expect(none.read("empty") == nil)
    }

    @Test("a file larger than the whole budget is not kept and does not empty the cache")
    func largerThanBudgetLeavesTheRest() {
        let cache = HotVariants(maxBytes: 300, maxFileBytes: 1_000)
        for name in ["a", "b", "c"] { cache.keep(name, size: 100) }
        cache.keep("huge", size: 400)
        #expect(cache.count == 3)
        #expect(cache.read("huge") == nil)
        #expect(["a", "b", "c"].map { cache.read($0) } == [100, 100, 100])
    }

    @Test("clear() forgets every entry and its bytes")
    func clearEmpties() {
        let cache = HotVariants(maxBytes: 300, maxFileBytes: 100)
        for name in ["a", "b", "c"] { cache.keep(name, size: 100) }
        _ = cache.read("a")

        cache.clear()

        #expect(cache.count == 0)
        #expect(["a", "b", "c"].allSatisfy { cache.read($0) == nil })
        for name in ["d", "e", "f"] { cache.keep(name, size: 100) }
        #expect(cache.count == 3)
    }

    @Test("when every entry has been read, keeping one more still drops some and stays within budget",
          .timeLimit(.minutes(1)))
    func allReadStillEvicts() {
        let maxBytes = 1_000
        let cache = HotVariants(maxBytes: maxBytes, maxFileBytes: 500)
        let first = (0..<10).map { "cover-\($0)" }
        for name in first { cache.keep(name, size: 100) }
        #expect(first.allSatisfy { cache.read($0) == 100 })

        cache.keep("big", size: 500)

        // One pass clears every flag; then the oldest five go, and never the one just kept.
        #expect(cache.count == 6)
        #expect(first.prefix(5).allSatisfy { cache.read($0) == nil })
        #expect(first.suffix(5).allSatisfy { cache.read($0) == 100 })
        #expect(cache.read("big") == 500)

        var random = SeededGenerator(seed: 7)
        var names = Set(first.suffix(5) + ["big"])
        for round in 0..<300 {
            let name = "more-\(round)"
            cache.keep(name, size: Int.random(in: 1...500, using: &random))
            names.insert(name)
            var held = 0
            var bytes = 0
            for other in names {
                if let size = cache.read(other) { held += 1; bytes += size } else { names.remove(other) }
            }
            #expect(cache.read(name) != nil)
            #expect(cache.count == held)
            #expect(bytes <= maxBytes)
        }
    }
}

extension HotVariants {
    /// Keeps a file of `size` bytes, each `fill`, under `name`.
    fileprivate func keep(_ name: String, size: Int, fill: UInt8 = 0) {
        let contents = ByteBuffer(repeating: fill, count: size)
        let variant = ArtworkVariantKey(sha256: name, width: 200, format: "webp")
        let served = ServedArtwork(path: "/artwork/\(name).webp", bytes: size, contentType: "image/webp",
                                   etag: "\"\(name)\"", contents: contents)
        keep(Entry(served: served, variant: variant, contents: contents), as: name)
    }

    /// The size of the file kept under `name`, if any; like a request, this marks it read.
    fileprivate func read(_ name: String) -> Int? { entry(name)?.contents.readableBytes }
}
