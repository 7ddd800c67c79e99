import Synchronization

/// One batch's turn to be written: the next batch's task waits for it (``wait()``) before writing, so batches
/// prepared at the same time are still written one after the other, in the order they were read.
final class WriteTurn: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// Returns once ``open()`` was called (at once if it was).
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Lets the waiters go on; idempotent.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
