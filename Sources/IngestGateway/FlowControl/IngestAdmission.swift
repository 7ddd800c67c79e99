import IngestAuth
import Synchronization

/// One admitted POST: who sent it (its scope), how its body is written, when it started, and its hold on the
/// ``IngestFlowControl`` bounds. The HTTP server keeps it as the request's ticket until the request has ended, the
/// publish until it answered; the last of them to let go releases the hold.
final class IngestAdmission: Sendable {
    let scope: IngestScope
    let format: IngestBodyFormat
    /// The head's arrival: the request deadline counts from here.
    let started: ContinuousClock.Instant
    private let flow: IngestFlowControl
    private let heldBytes: Mutex<Int>

    /// A request already counted by `flow` with `bytes`.
    init(scope: IngestScope, format: IngestBodyFormat, heldBytes: Int, flow: IngestFlowControl) {
        self.scope = scope
        self.format = format
        self.started = .now
        self.flow = flow
        self.heldBytes = Mutex(heldBytes)
    }

    deinit {
        flow.release(bytes: heldBytes.withLock { $0 })
    }

    /// Makes the request hold `bytes` (its body once inflated) instead of what it announced.
    /// - Returns: false when that would pass the in-flight bytes bound (the hold is unchanged).
    func hold(bytes: Int) -> Bool {
        heldBytes.withLock { held in
            guard flow.adjust(by: bytes - held) else { return false }
            held = bytes
            return true
        }
    }
}

/// What the HTTP server carries from a request's head to its handler.
enum IngestTicket: Sendable {
    /// `/healthz`, `/readyz`, `/metrics`.
    case probe
    /// `POST /v1/daily-values`, admitted.
    case publish(IngestAdmission)
}
