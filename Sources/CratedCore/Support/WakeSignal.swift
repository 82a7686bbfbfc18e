import Synchronization

/// Wakes one waiting task early: a sync trigger or a shutdown ending the wait between passes, a
/// player command that changes when something next happens. A signal sent while nobody waits is
/// kept for the next wait, so none is lost between two waits.
package final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    package init() {}

    package func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            if state.waiter == nil { state.pending = true }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns at the next signal (at once if one is pending) or when the task is cancelled. One
    /// waiter at a time.
    package func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let returnNow = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    // The cancellation handler may have run before this registration.
                    if Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if returnNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
