import Foundation
import Synchronization

/// Liveness and readiness as the HTTP probes report them.
///
/// Ready means: started, and neither the store, the dead-letter topic nor the brokers are currently failing.
final class WorkerHealth: Sendable {
    private struct State {
        var started = false
        var stopping = false
        var storeFailing = false
        var deadLetterFailing = false
        var brokersDownSince: Date?
        var lastError: String?
    }

    private let state = Mutex(State())

    func markStarted() { state.withLock { $0.started = true } }
    func markStopping() { state.withLock { $0.stopping = true } }

    func storeFailed(_ reason: String) { state.withLock { $0.storeFailing = true; $0.lastError = reason } }
    func storeRecovered() { state.withLock { $0.storeFailing = false } }
    func deadLetterFailed(_ reason: String) { state.withLock { $0.deadLetterFailing = true; $0.lastError = reason } }
    func deadLetterRecovered() { state.withLock { $0.deadLetterFailing = false } }
    func brokersDown(_ reason: String) {
        state.withLock { s in
            if s.brokersDownSince == nil { s.brokersDownSince = Date() }
            s.lastError = reason
        }
    }
    func brokersUp() { state.withLock { $0.brokersDownSince = nil } }

    /// True when neither the store nor the dead-letter topic is failing.
    var dependenciesHealthy: Bool { state.withLock { !$0.storeFailing && !$0.deadLetterFailing } }

    /// Readiness and, when not ready, why.
    var readiness: (ready: Bool, reason: String) {
        state.withLock { s in
            if !s.started { return (false, "starting") }
            if s.stopping { return (false, "stopping") }
            if s.storeFailing { return (false, "store failing: \(s.lastError ?? "")") }
            if s.deadLetterFailing { return (false, "dead-letter topic failing: \(s.lastError ?? "")") }
            if s.brokersDownSince != nil { return (false, "all brokers down: \(s.lastError ?? "")") }
            return (true, "ready")
        }
    }
}
