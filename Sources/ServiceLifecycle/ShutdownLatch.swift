import Synchronization

/// A one-way latch: triggered once, it runs the handlers registered before and resumes the tasks waiting on it; a
/// handler registered after runs at once. The ``ServiceGroup`` keeps one per service (its graceful-shutdown request,
/// handed to the service's task as ``current``) and one per service for "it has ended".
final class ShutdownLatch: Sendable {
    /// The graceful-shutdown request of the service the current task runs, if a ``ServiceGroup`` runs it.
    @TaskLocal static var current: ShutdownLatch?

    private struct State {
        var triggered = false
        var nextID = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters cancelled before their continuation was stored.
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    /// Whether ``trigger()`` was called.
    var isTriggered: Bool { state.withLock { $0.triggered } }

    /// Triggers the latch (only the first call counts): runs the handlers and resumes the waiters, outside the lock.
    func trigger() {
        let (handlers, waiters) = state.withLock { s -> ([@Sendable () -> Void], [CheckedContinuation<Void, Never>]) in
            guard !s.triggered else { return ([], []) }
            s.triggered = true
            defer {
                s.handlers = [:]
                s.waiters = [:]
            }
            return (Array(s.handlers.values), Array(s.waiters.values))
        }
        for handler in handlers { handler() }
        for waiter in waiters { waiter.resume() }
    }

    /// Registers `handler` for the trigger; runs it at once (and returns nil) when the latch was already triggered.
    func onTrigger(_ handler: @escaping @Sendable () -> Void) -> Int? {
        let id = state.withLock { s -> Int? in
            guard !s.triggered else { return nil }
            s.nextID += 1
            s.handlers[s.nextID] = handler
            return s.nextID
        }
        if id == nil { handler() }
        return id
    }

    /// Removes a handler ``onTrigger(_:)`` registered.
    func remove(_ id: Int) {
        _ = state.withLock { $0.handlers.removeValue(forKey: id) }
    }

    /// Returns once the latch is triggered, or when the calling task is cancelled.
    func wait() async {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            return s.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s -> Bool in
                    if s.triggered || s.cancelled.remove(id) != nil { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
                guard let waiter = s.waiters.removeValue(forKey: id) else {
                    if !s.triggered { s.cancelled.insert(id) }
                    return nil
                }
                return waiter
            }
            waiter?.resume()
        }
    }
}
