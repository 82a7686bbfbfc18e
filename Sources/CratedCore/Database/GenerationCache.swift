import Foundation
import GRDB
import Synchronization

/// The listing generation: a number that changes in every transaction that changes what a grid or a
/// search can list, or in what order (Migrations/0007_listing_generation.sql), with crate contents
/// counted apart (Migrations/0010_crate_generation.sql). Read inside a read transaction, it names the
/// state of everything listings are computed from.
public enum ListingGeneration {
    /// What a cached value is computed from.
    public enum Reach: Sendable {
        /// Everything listings show but what crates hold: a crate edit leaves these values be.
        case listings
        /// Crate contents too.
        case listingsAndCrates
        /// What covers show once fetched (colour, size): values that carry artwork (grid cells, search
        /// results), which a crate edit leaves be.
        case listingsAndArtwork
    }

    /// With two reaches, the sum of both numbers: each only grows, so the sum changes with either and
    /// never comes back to an earlier value.
    public static func current(_ db: Database, _ reach: Reach = .listingsAndCrates) throws -> Int64 {
        // Read on every grid page and search: through the C API, not GRDB's fetchOne.
        switch reach {
        case .listings:
            try db.firstRow("SELECT value FROM listing_generation WHERE id = 1", ids: []) { try $0.int64(0) } ?? 0
        case .listingsAndCrates:
            try db.firstRow("""
                SELECT (SELECT value FROM listing_generation WHERE id = 1) + (SELECT value FROM crate_generation WHERE id = 1)
                """, ids: []) { try $0.int64(0) } ?? 0
        case .listingsAndArtwork:
            try db.firstRow("""
                SELECT (SELECT value FROM listing_generation WHERE id = 1) + (SELECT value FROM artwork_generation WHERE id = 1)
                """, ids: []) { try $0.int64(0) } ?? 0
        }
    }

    /// For writers that no trigger sees: the search index, a virtual table, takes no triggers.
    package static func advance(_ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE listing_generation SET value = value + 1 WHERE id = 1").execute()
    }
}

/// Values computed from the database (a grid's positions, search results), each kept for the
/// listing generation it was computed at. A reader looks up the generation its own transaction sees,
/// so a value found is exactly what the transaction would compute; a value of an older generation is
/// never returned, whichever process wrote since.
public final class GenerationCache<Value: Sendable>: Sendable {
    private let capacity: Int
    private let maxWeight: Int
    private let weight: @Sendable (Value) -> Int
    private let state = Mutex(State())
    private let flights = Flights()

    private struct State {
        var entries: [String: Entry] = [:]
        var clock: UInt64 = 0
    }

    private struct Entry {
        var generation: Int64
        var reach: ListingGeneration.Reach
        var value: Value
        var weight: Int
        var lastUse: UInt64
    }

    /// At most `capacity` values (0 keeps nothing) and, when values are weighed, at most `maxWeight` in
    /// all, but always the latest one stored.
    public init(capacity: Int, maxWeight: Int = .max, weight: @escaping @Sendable (Value) -> Int = { _ in 0 }) {
        self.capacity = capacity
        self.maxWeight = maxWeight
        self.weight = weight
    }

    public func value(for key: String, generation: Int64) -> Value? {
        guard capacity > 0 else { return nil }
        return state.withLock { state in
            guard let entry = state.entries[key], entry.generation == generation else { return nil }
            state.clock += 1
            state.entries[key]?.lastUse = state.clock
            return entry.value
        }
    }

    /// Keeps `value` for `key` at `generation`, a number of `reach` (a key is always stored with the same).
    public func store(_ value: Value, for key: String, generation: Int64, reach: ListingGeneration.Reach = .listingsAndCrates) {
        guard capacity > 0 else { return }
        state.withLock { state in
            // A request that began before a write may store after one that began after it: the newer
            // generation wins.
            if let existing = state.entries[key], existing.generation > generation { return }
            state.clock += 1
            state.entries[key] = Entry(generation: generation, reach: reach, value: value, weight: weight(value), lastUse: state.clock)
            // Drop what an older generation of the same reach computed, then the least recently used.
            // Numbers of different reaches are not comparable: a crate-restricted grid's number is the
            // sum of two, and must not drop the unrestricted grids it was derived from.
            state.entries = state.entries.filter { $0.value.reach != reach || $0.value.generation >= generation }
            var totalWeight = state.entries.values.reduce(0) { $0 + $1.weight }
            while state.entries.count > capacity || (totalWeight > maxWeight && state.entries.count > 1),
                  let oldest = state.entries.filter({ $0.key != key }).min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                totalWeight -= oldest.value.weight
            }
        }
    }

    /// The value for `key` at the generation `db` sees, computed and kept when there is none.
    /// `reach` says what the value is computed from; a key must always be asked for with the same.
    public func value(for key: String, in db: Database, reach: ListingGeneration.Reach = .listingsAndCrates,
                      compute: () throws -> Value) throws -> Value {
        try valueAndGeneration(for: key, in: db, reach: reach, compute: compute).value
    }

    /// `value(for:in:reach:compute:)` and the generation it belongs to.
    public func valueAndGeneration(for key: String, in db: Database, reach: ListingGeneration.Reach = .listingsAndCrates,
                                   compute: () throws -> Value) throws -> (value: Value, generation: Int64) {
        let generation = try ListingGeneration.current(db, reach)
        return (try value(for: key, generation: generation, reach: reach, compute: compute), generation)
    }

    /// The value for `key` at `generation`, computed and kept when there is none. A caller that asks
    /// for a value another caller is computing waits for it rather than computing it again beside it:
    /// clients that come back after a sync all ask for the same new grids, each a walk of the
    /// collection.
    func value(for key: String, generation: Int64, reach: ListingGeneration.Reach = .listingsAndCrates,
               compute: () throws -> Value) throws -> Value {
        if let value = value(for: key, generation: generation) { return value }
        guard capacity > 0 else { return try compute() }
        let flight = Flights.Flight(key: key, generation: generation)
        if let value = flights.claim(flight, unlessFound: { value(for: key, generation: generation) }) { return value }
        defer { flights.release(flight) }
        let computed = try compute()
        store(computed, for: key, generation: generation, reach: reach)
        return computed
    }
}

/// The values being computed. Waiting here blocks the thread, as the database read around it does:
/// a computation is one read of tens of milliseconds at most, and ends in a value or an error.
private final class Flights: Sendable {
    struct Flight: Hashable {
        var key: String
        var generation: Int64
    }

    /// Guards `underway`, and wakes the waiters when a flight ends.
    private let condition = NSCondition()
    nonisolated(unsafe) private var underway: Set<Flight> = []

    /// Waits while another caller computes `flight`, then returns the value `find` gives; nil when
    /// there is none, and then the caller has claimed the flight and must `release` it.
    func claim<Value>(_ flight: Flight, unlessFound find: () -> Value?) -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while underway.contains(flight) { condition.wait() }
        if let value = find() { return value }
        underway.insert(flight)
        return nil
    }

    /// Ends a claimed flight, with or without a value stored: a waiter that finds none computes it.
    func release(_ flight: Flight) {
        condition.lock()
        underway.remove(flight)
        condition.broadcast()
        condition.unlock()
    }
}
