import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Liveness and readiness as the HTTP probes report them.
///
/// Ready means: started, and neither the store, the dead-letter topic nor the brokers are currently failing. Only a
/// ``ReadinessCategory`` is kept, never an error's text: `/readyz` serves it to anyone who can reach the port.
final class WorkerHealth: Sendable {
    private struct State {
        var started = false
        var stopping = false
        var storeFailure: ReadinessCategory?
        var deadLetterFailing = false
        var brokersDownSince: Date?
    }

    private let state = Mutex(State())
    /// ``dependenciesHealthy``, kept beside the state: the consumer's poll thread reads it before every poll.
    private let healthy = Atomic(true)

    /// Changes the dependency failures and refreshes ``healthy`` under the same lock.
    private func updateDependencies(_ change: (inout State) -> Void) {
        state.withLock { s in
            change(&s)
            healthy.store(s.storeFailure == nil && !s.deadLetterFailing, ordering: .relaxed)
        }
    }

    func markStarted() { state.withLock { $0.started = true } }
    func markStopping() { state.withLock { $0.stopping = true } }

    /// The store failed with `error` (its category is kept, not its text).
    func storeFailed(_ error: any Error) {
        let category = ReadinessCategory(storeFailure: error)
        updateDependencies { $0.storeFailure = category }
    }
    func storeRecovered() { updateDependencies { $0.storeFailure = nil } }
    /// The dead-letter topic failed (the caller logs why).
    func deadLetterFailed() { updateDependencies { $0.deadLetterFailing = true } }
    func deadLetterRecovered() { updateDependencies { $0.deadLetterFailing = false } }
    func brokersDown() {
        state.withLock { s in
            if s.brokersDownSince == nil { s.brokersDownSince = Date() }
        }
    }
    func brokersUp() { state.withLock { $0.brokersDownSince = nil } }

    /// True when neither the store nor the dead-letter topic is failing.
    var dependenciesHealthy: Bool { healthy.load(ordering: .relaxed) }

    /// Readiness and, when not ready, why.
    var readiness: (ready: Bool, category: ReadinessCategory) {
        state.withLock { s in
            if !s.started { return (false, .starting) }
            if s.stopping { return (false, .stopping) }
            if let failure = s.storeFailure { return (false, failure) }
            if s.deadLetterFailing { return (false, .deadLetterUnavailable) }
            if s.brokersDownSince != nil { return (false, .brokerUnavailable) }
            return (true, .ready)
        }
    }
}
