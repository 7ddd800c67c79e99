import Synchronization

/// The gateway's bounds on the POST requests in flight: how many at once, and their body bytes together. A request
/// is counted from its admission (its head) until it has ended (its ``IngestAdmission`` is released); its bytes are
/// what the gateway holds for it at each moment (``IngestAdmission``: announced, received, inflated).
final class IngestFlowControl: Sendable {
    /// Which bound a refused request would have passed.
    enum Bound: String, Sendable {
        case concurrentRequests = "concurrent-requests"
        case inFlightBytes = "in-flight-bytes"
    }

    private struct State {
        var requests = 0
        var bytes = 0
        /// Set by a stop: new requests are refused (503) while those in flight finish.
        var stopping = false
    }

    let maxRequests: Int
    let maxBytes: Int
    private let state = Mutex(State())

    init(maxRequests: Int, maxBytes: Int) {
        self.maxRequests = maxRequests
        self.maxBytes = maxBytes
    }

    /// What ``admit(bytes:)`` decided.
    enum Decision: Sendable {
        case admitted
        /// The request would pass this bound: 429.
        case refused(Bound)
        /// The gateway is stopping: 503.
        case stopping
    }

    /// Counts a request announcing `bytes` (its `Content-Length`, 0 when not announced), or says why not.
    func admit(bytes: Int) -> Decision {
        state.withLock { state in
            guard !state.stopping else { return .stopping }
            guard state.requests < maxRequests else { return .refused(.concurrentRequests) }
            guard state.bytes + bytes <= maxBytes else { return .refused(.inFlightBytes) }
            state.requests += 1
            state.bytes += bytes
            return .admitted
        }
    }

    /// Changes a request's share of the bytes by `delta`; false (nothing changed) when growing would pass the bound.
    func adjust(by delta: Int) -> Bool {
        state.withLock { state in
            guard delta <= 0 || state.bytes + delta <= maxBytes else { return false }
            state.bytes += delta
            return true
        }
    }

    /// Ends a request that held `bytes`.
    func release(bytes: Int) {
        state.withLock { state in
            state.requests -= 1
            state.bytes -= bytes
        }
    }

    /// Refuses every request from now on (the stop); those in flight go on.
    func stop() {
        state.withLock { $0.stopping = true }
    }

    /// The bytes nobody holds: how much more a request may hold now.
    var freeBytes: Int {
        state.withLock { max(0, maxBytes - $0.bytes) }
    }

    /// Requests and body bytes in flight.
    var inFlight: (requests: Int, bytes: Int) {
        state.withLock { ($0.requests, $0.bytes) }
    }
}
