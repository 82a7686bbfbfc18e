/// Password checks one at a time. bcrypt takes a quarter of a second of CPU on purpose; sign-ins
/// flooding in from many addresses (each with its free attempts) would otherwise hold every thread
/// of the pool that also resizes covers, and covers took 15 s. Past `maximumWaiting` checks waiting,
/// a sign-in is refused at once (429), so the wait stays a few seconds.
actor PasswordCheckQueue {
    let maximumWaiting: Int
    private var checking = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(maximumWaiting: Int = 16) {
        self.maximumWaiting = maximumWaiting
    }

    /// Returns once this check may run, or false at once when too many wait already.
    func enter() async -> Bool {
        guard checking else {
            checking = true
            return true
        }
        guard waiting.count < maximumWaiting else { return false }
        await withCheckedContinuation { waiting.append($0) }
        return true
    }

    /// Hands the turn to the next check waiting, if any.
    func leave() {
        if waiting.isEmpty {
            checking = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    var waitingCount: Int { waiting.count }
}
