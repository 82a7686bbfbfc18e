import Foundation
import Synchronization

/// Slows password guessing on `POST /v1/session`: failures are counted per user name and per
/// address, and past a few free ones each further failure shuts that name (or address) out for a
/// time that doubles, up to `maximumDelay`. A sign-in while shut out is refused without checking the
/// password (429 with `Retry-After`), so guessing costs the guesser time, not the server bcrypt work.
/// Counts are forgotten `forgetAfter` the last failure and on a successful sign-in; they live in
/// memory (a restart forgives), bounded by `maximumEntries`.
public final class SignInThrottle: Sendable {
    public struct Policy: Sendable {
        /// Failures per user name before the first delay.
        public var freeFailuresPerUser = 5
        /// Failures per address before the first delay: several people may share one (NAT).
        public var freeFailuresPerAddress = 20
        public var firstDelay: TimeInterval = 1
        public var maximumDelay: TimeInterval = 300
        public var forgetAfter: TimeInterval = 3600
        public var maximumEntries = 10_000

        public init() {}
    }

    struct Entry {
        var failures: Int
        var lastFailure: Date
        var blockedUntil: Date
    }

    let policy: Policy
    let now: @Sendable () -> Date
    private let entries = Mutex<[String: Entry]>([:])

    public init(policy: Policy = Policy(), now: @escaping @Sendable () -> Date = { Date() }) {
        self.policy = policy
        self.now = now
    }

    /// Seconds to wait before this sign-in may be tried, or nil when it may be tried now.
    public func wait(user: String, address: String?) -> TimeInterval? {
        let now = now()
        return entries.withLock { entries in
            keys(user: user, address: address).compactMap { entries[$0.key]?.blockedUntil }
                .map { $0.timeIntervalSince(now) }.filter { $0 > 0 }.max()
        }
    }

    public func recordFailure(user: String, address: String?) {
        let now = now()
        entries.withLock { entries in
            if entries.count >= policy.maximumEntries {
                entries = entries.filter { now.timeIntervalSince($0.value.lastFailure) < policy.forgetAfter }
                // Still full: a flood of names or addresses; start afresh rather than grow.
                if entries.count >= policy.maximumEntries { entries.removeAll() }
            }
            for (key, free) in keys(user: user, address: address) {
                var entry = entries[key] ?? Entry(failures: 0, lastFailure: now, blockedUntil: .distantPast)
                if now.timeIntervalSince(entry.lastFailure) >= policy.forgetAfter { entry.failures = 0 }
                entry.failures += 1
                entry.lastFailure = now
                if entry.failures > free {
                    let doublings = min(entry.failures - free - 1, 30)
                    entry.blockedUntil = now.addingTimeInterval(min(policy.firstDelay * pow(2, Double(doublings)), policy.maximumDelay))
                }
                entries[key] = entry
            }
        }
    }

    public func recordSuccess(user: String, address: String?) {
        entries.withLock { entries in
            for (key, _) in keys(user: user, address: address) { entries[key] = nil }
        }
    }

    private func keys(user: String, address: String?) -> [(key: String, free: Int)] {
        // Names are case-insensitive, as the user table compares them.
        var keys = [(key: "user:" + user.trimmingCharacters(in: .whitespaces).lowercased(), free: policy.freeFailuresPerUser)]
        if let address { keys.append((key: "address:" + address, free: policy.freeFailuresPerAddress)) }
        return keys
    }
}
