import Synchronization

/// The worker's one stop request (SIGTERM, a fatal consumer error, the end of an `--until-caught-up` run): its
/// deadline plan (``ShutdownPlan``) and the actions that run once when it begins (readiness false, stop fetching).
///
/// The pipeline never sees it: the service cancels the pipeline when the in-flight batches' share of the deadline
/// passed (``untilBatchDeadline()``), and the pipeline returns its outcome instead of requesting a stop.
final class WorkerStop: Sendable {
    private struct State {
        var plan: ShutdownPlan?
        var actions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())
    private let drainTimeoutSeconds: Double

    /// - Parameter drainTimeoutSeconds: `--drain-timeout`, the bound on every stop step together.
    init(drainTimeoutSeconds: Double) {
        self.drainTimeoutSeconds = drainTimeoutSeconds
    }

    /// Begins the stop now unless it already began, and runs the registered actions (outside the lock).
    /// - Returns: the stop's plan.
    @discardableResult
    func request() -> ShutdownPlan {
        let (plan, actions) = state.withLock { s -> (ShutdownPlan, [@Sendable () -> Void]) in
            if let plan = s.plan { return (plan, []) }
            let plan = ShutdownPlan(drainTimeoutSeconds: drainTimeoutSeconds)
            s.plan = plan
            return (plan, s.actions)
        }
        for action in actions { action() }
        return plan
    }

    /// Registers `action` to run when the stop begins; runs it at once when it already began.
    func onStop(_ action: @escaping @Sendable () -> Void) {
        let stopped = state.withLock { s -> Bool in
            if s.plan != nil { return true }
            s.actions.append(action)
            return false
        }
        if stopped { action() }
    }

    /// Sleeps for `duration`, or less: returns within 50 ms of a stop request (or of task cancellation).
    func sleep(for duration: Duration) async {
        let deadline = ContinuousClock.now + duration
        while !isRequested, !Task.isCancelled, ContinuousClock.now < deadline {
            try? await Task.sleep(for: min(.milliseconds(50), deadline - ContinuousClock.now))
        }
    }

    /// True once a stop was requested.
    var isRequested: Bool { state.withLock { $0.plan != nil } }

    /// Returns once a stop was requested and the in-flight batches' share of its deadline passed (their retries
    /// must then give up: the caller cancels the pipeline), or when the calling task is cancelled.
    func untilBatchDeadline() async {
        while !Task.isCancelled {
            if let plan = state.withLock({ $0.plan }) {
                try? await Task.sleep(until: plan.deadline(.finishBatch))
                return
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
