import HTTPServer
import IngestAuth
import Observability
import Synchronization

/// One admitted POST: who sent it (its scope), how its body is written, when it started, and its hold on the
/// ``IngestFlowControl`` bounds. The HTTP server keeps it as the request's ticket until the request has ended, the
/// publish until it answered; the last of them to let go releases the hold.
///
/// What it holds of the in-flight bytes is what the gateway holds for it: the announced `Content-Length` from the
/// head (so a body that cannot fit is refused before it is read), the body bytes as they arrive when more (a chunked
/// body announces nothing), then the body as it is handled (compressed and inflated while both exist), and the
/// records once they are handed to the producer.
final class IngestAdmission: Sendable {
    let scope: IngestScope
    let format: IngestBodyFormat
    /// The head's arrival: the request deadline counts from here.
    let started: ContinuousClock.Instant
    private let flow: IngestFlowControl
    private let metrics: Metrics
    /// The head's `Content-Length` (0 when not announced): held at least while the body arrives.
    private let announced: Int
    private let heldBytes: Mutex<Int>

    /// A request already counted by `flow` with `announced` bytes.
    init(
        scope: IngestScope, format: IngestBodyFormat, announced: Int, flow: IngestFlowControl, metrics: Metrics
    ) {
        self.scope = scope
        self.format = format
        self.started = .now
        self.flow = flow
        self.metrics = metrics
        self.announced = announced
        self.heldBytes = Mutex(announced)
    }

    deinit {
        flow.release(bytes: heldBytes.withLock { $0 }, tenant: scope.tenant)
    }

    /// Makes the request hold `bytes` instead of what it held.
    /// - Returns: nil when done; the in-flight bytes bound that growing would pass (the hold is unchanged).
    @discardableResult
    func hold(bytes: Int) -> IngestFlowControl.Bound? {
        heldBytes.withLock { held in
            let passed = flow.adjust(by: bytes - held, tenant: scope.tenant)
            if passed == nil { held = bytes }
            return passed
        }
    }

    /// The most one request could hold on an idle gateway: `--max-in-flight-bytes`, or the tenant's share of it.
    var bound: Int { min(flow.maxBytes, flow.maxTenantBytes) }

    /// The most this request may hold now without passing a bound: what it holds and what nobody holds (within its
    /// tenant's share).
    var room: Int {
        heldBytes.withLock { $0 } + flow.freeBytes(tenant: scope.tenant)
    }

    /// The HTTP server holds `bytes` of the body (``HTTPServer/BodyMeter``): held while it grows past the announced
    /// length; 429 when that would pass the bound (the server then drops the body, reported as 0: nothing is held).
    func bodyHeld(_ bytes: Int) -> HTTPServer.Response? {
        if bytes == 0 {
            hold(bytes: 0)
            return nil
        }
        guard bytes > announced, let bound = hold(bytes: bytes) else { return nil }
        metrics.increment(.ingestThrottled, label: bound.rawValue)
        let problem = IngestProblem.tooManyRequests(
            "the gateway holds as many body bytes as it may (\(bound.option)); retry after a second")
        metrics.increment(.ingestRequests, label: String(problem.status))
        return problem.response
    }

    /// The body arrived past `limit` bytes (`--max-body-bytes`) without announcing it: 413, counted.
    func bodyOverLimit(_ limit: Int) -> HTTPServer.Response {
        let problem = IngestProblem.tooLarge("the body is larger than \(limit) bytes (--max-body-bytes)")
        metrics.increment(.ingestRequests, label: String(problem.status))
        return problem.response
    }
}

/// What the HTTP server carries from an admitted POST's head to its handler.
struct IngestTicket: HTTPServer.BodyMeter {
    let admission: IngestAdmission

    /// The body is charged to the admission as it arrives.
    func bodyHeld(_ bytes: Int) -> HTTPServer.Response? {
        admission.bodyHeld(bytes)
    }

    /// A chunked body past `--max-body-bytes`: the same problem document as an announced one.
    func bodyOverLimit(_ limit: Int) -> HTTPServer.Response? {
        admission.bodyOverLimit(limit)
    }
}
