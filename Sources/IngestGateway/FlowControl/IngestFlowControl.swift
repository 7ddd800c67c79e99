import Synchronization

/// The gateway's bounds on the POST requests in flight: how many at once and their body bytes together, in all and
/// per tenant (so that one tenant — slow bodies, a burst — cannot take every slot or byte from the others). A
/// request is counted from its admission (its head) until it has ended (its ``IngestAdmission`` is released); its
/// bytes are what the gateway holds for it at each moment (``IngestAdmission``: announced, received, inflated).
final class IngestFlowControl: Sendable {
    /// Which bound a refused request would have passed.
    enum Bound: String, Sendable, CaseIterable {
        case concurrentRequests = "concurrent-requests"
        case inFlightBytes = "in-flight-bytes"
        case tenantRequests = "tenant-requests"
        case tenantInFlightBytes = "tenant-in-flight-bytes"

        /// The flag that sets it.
        var option: String { "--max-" + rawValue }
    }

    private struct Usage {
        var requests = 0
        var bytes = 0
    }

    private struct State {
        var total = Usage()
        var tenants: [String: Usage] = [:]
        /// Set by a stop: new requests are refused (503) while those in flight finish.
        var stopping = false
    }

    let maxRequests: Int
    let maxBytes: Int
    let maxTenantRequests: Int
    let maxTenantBytes: Int
    private let state = Mutex(State())

    init(maxRequests: Int, maxBytes: Int, maxTenantRequests: Int? = nil, maxTenantBytes: Int? = nil) {
        self.maxRequests = maxRequests
        self.maxBytes = maxBytes
        self.maxTenantRequests = min(maxTenantRequests ?? maxRequests, maxRequests)
        self.maxTenantBytes = min(maxTenantBytes ?? maxBytes, maxBytes)
    }

    /// What ``admit(bytes:tenant:)`` decided.
    enum Decision: Sendable {
        case admitted
        /// The request would pass this bound: 429.
        case refused(Bound)
        /// The gateway is stopping: 503.
        case stopping
    }

    /// Counts a request of `tenant` announcing `bytes` (its `Content-Length`, 0 when not announced), or says why
    /// not.
    func admit(bytes: Int, tenant: String) -> Decision {
        state.withLock { state in
            guard !state.stopping else { return .stopping }
            let usage = state.tenants[tenant] ?? Usage()
            guard state.total.requests < maxRequests else { return .refused(.concurrentRequests) }
            guard usage.requests < maxTenantRequests else { return .refused(.tenantRequests) }
            guard state.total.bytes + bytes <= maxBytes else { return .refused(.inFlightBytes) }
            guard usage.bytes + bytes <= maxTenantBytes else { return .refused(.tenantInFlightBytes) }
            state.total.requests += 1
            state.total.bytes += bytes
            state.tenants[tenant, default: Usage()].requests += 1
            state.tenants[tenant, default: Usage()].bytes += bytes
            return .admitted
        }
    }

    /// Changes a request's share of the bytes by `delta`; the bound it would pass (nothing changed) when growing
    /// would pass one, nil when done.
    func adjust(by delta: Int, tenant: String) -> Bound? {
        state.withLock { state in
            if delta > 0 {
                guard state.total.bytes + delta <= maxBytes else { return .inFlightBytes }
                guard (state.tenants[tenant]?.bytes ?? 0) + delta <= maxTenantBytes else { return .tenantInFlightBytes }
            }
            state.total.bytes += delta
            state.tenants[tenant, default: Usage()].bytes += delta
            return nil
        }
    }

    /// Ends a request of `tenant` that held `bytes`.
    func release(bytes: Int, tenant: String) {
        state.withLock { state in
            state.total.requests -= 1
            state.total.bytes -= bytes
            var usage = state.tenants[tenant] ?? Usage()
            usage.requests -= 1
            usage.bytes -= bytes
            state.tenants[tenant] = usage.requests == 0 && usage.bytes == 0 ? nil : usage
        }
    }

    /// Refuses every request from now on (the stop); those in flight go on.
    func stop() {
        state.withLock { $0.stopping = true }
    }

    /// The bytes a request of `tenant` may still add now: what nobody holds, within the tenant's share.
    func freeBytes(tenant: String) -> Int {
        state.withLock { state in
            max(0, min(maxBytes - state.total.bytes, maxTenantBytes - (state.tenants[tenant]?.bytes ?? 0)))
        }
    }

    /// Requests and body bytes in flight.
    var inFlight: (requests: Int, bytes: Int) {
        state.withLock { ($0.total.requests, $0.total.bytes) }
    }

    /// Tenants with requests in flight (for the tests: an ended request leaves nothing behind).
    var tenantsInFlight: Int {
        state.withLock { $0.tenants.count }
    }
}
