import Synchronization

/// The one-shot "the process ended" event of a ``ChildProcess``: set from Foundation's termination handler, awaited
/// by any number of tasks. Continuations are resumed after the lock is released.
final class ExitSignal: Sendable {
    private struct State {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Mutex(State())

    /// Records the exit (shell-style: 128 + signal when a signal ended it) and wakes every waiter.
    func signal(_ bySignal: Bool, _ code: Int32) {
        let status = bySignal ? 128 + code : code
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

    /// The exit status, once the process ended.
    func wait() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state in
                if state.status == nil { state.waiters.append(continuation) }
                return state.status
            }
            if let status { continuation.resume(returning: status) }
        }
    }
}
