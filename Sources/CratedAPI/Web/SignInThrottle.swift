import Foundation
import Synchronization

/// Slows password guessing on `POST /v1/session`: attempts are counted per user name and per
/// address, and past a few free ones each further attempt shuts that name (or address) out for a
/// time that doubles, up to `maximumDelay`. A sign-in while shut out is refused without checking the
/// password (429 with `Retry-After`), so guessing costs the guesser time, not the server bcrypt work.
/// An attempt counts when it is let in, before its password is checked: counted only once it
/// fails, guesses sent all at once would all be let in while the first are still being checked.
/// Counts are forgotten `forgetAfter` the last attempt and on a successful sign-in; they live in
/// memory (a restart forgives), bounded by `maximumEntries`.
public final class SignInThrottle: Sendable {
    public struct Policy: Sendable {
        /// Attempts per user name before the first delay.
        public var freeFailuresPerUser = 5
        /// Attempts per address before the first delay: several people may share one (NAT).
        public var freeFailuresPerAddress = 20
        public var firstDelay: TimeInterval = 1
        public var maximumDelay: TimeInterval = 300
        public var forgetAfter: TimeInterval = 3600
        public var maximumEntries = 10_000

        public init() {}
    }

    struct Entry {
        /// Attempts let in since the last success (each a failure until it succeeds).
        var attempts: Int
        var lastAttempt: Date
        var blockedUntil: Date
    }

    let policy: Policy
    let now: @Sendable () -> Date
    private let entries = Mutex<[String: Entry]>([:])

    public init(policy: Policy = Policy(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.policy = policy
        self.now = now
    }

    /// Lets a sign-in be tried now and counts it as a failure until `recordSuccess` says otherwise;
    /// or, while the name or the address is shut out, returns the seconds to wait and counts nothing.
    public func admit(user: String, address: String?) -> TimeInterval? {
        let now = now()
        return entries.withLock { entries in
            let wait = remainingWait(user: user, address: address, at: now, in: entries)
            if wait == nil { count(user: user, address: address, at: now, in: &entries) }
            return wait
        }
    }

    /// The seconds the name or the address is still shut out for, if it is; counts nothing.
    public func shutOut(user: String, address: String?) -> TimeInterval? {
        let now = now()
        return entries.withLock { entries in remainingWait(user: user, address: address, at: now, in: entries) }
    }

    private func remainingWait(user: String, address: String?, at now: Date, in entries: [String: Entry]) -> TimeInterval? {
        keys(user: user, address: address).compactMap { entries[$0.key]?.blockedUntil }.map { $0.timeIntervalSince(now) }.filter { $0 > 0 }.max()
    }

    /// Counts an attempt against the name and the address; past the free ones, it shuts them out.
    private func count(user: String, address: String?, at now: Date, in entries: inout [String: Entry]) {
        if entries.count >= policy.maximumEntries {
            entries = entries.filter { now.timeIntervalSince($0.value.lastAttempt) < policy.forgetAfter }
            // Still full: a flood of names or addresses. The counts of those not shut out go (they
            // were below their free attempts); the blocks stay, or a flood would lift them. Blocks
            // past half the room keep their newest half.
            if entries.count >= policy.maximumEntries {
                let blocked = entries.filter { $0.value.blockedUntil > now }
                entries = blocked.count < policy.maximumEntries / 2 ? blocked
                    : Dictionary(uniqueKeysWithValues: blocked.sorted { $0.value.lastAttempt > $1.value.lastAttempt }
                                                             .prefix(policy.maximumEntries / 2).map { ($0.key, $0.value) })
            }
        }
        for (key, free) in keys(user: user, address: address) {
            var entry = entries[key] ?? Entry(attempts: 0, lastAttempt: now, blockedUntil: .distantPast)
            if now.timeIntervalSince(entry.lastAttempt) >= policy.forgetAfter { entry.attempts = 0 }
            entry.attempts += 1
            entry.lastAttempt = now
            if entry.attempts > free {
                let doublings = min(entry.attempts - free - 1, 30)
                entry.blockedUntil = now.addingTimeInterval(min(policy.firstDelay * pow(2, Double(doublings)), policy.maximumDelay))
            }
            entries[key] = entry
        }
    }

    /// Forgets the user's failures; the address's stay, or signing in to one's own account would
    /// reset the count of guesses at others'.
    public func recordSuccess(user: String, address: String?) {
        entries.withLock { entries in
            for (key, _) in keys(user: user, address: nil) { entries[key] = nil }
        }
    }

    private func keys(user: String, address: String?) -> [(key: String, free: Int)] {
        // One key for every spelling that signs in as one user (`User.fetch`), so that `JÜRGEN`,
        // `jürgen` and a decomposed `ü` share one count.
        var keys = [(key: "user:" + user.trimmingCharacters(in: .whitespaces).nameFolded, free: policy.freeFailuresPerUser)]
        if let address { keys.append((key: "address:" + address, free: policy.freeFailuresPerAddress)) }
        return keys
    }
}
