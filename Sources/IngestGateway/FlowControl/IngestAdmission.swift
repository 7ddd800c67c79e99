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
        flow.release(bytes: heldBytes.withLock { $0 })
    }

    /// Makes the request hold `bytes` instead of what it held.
    /// - Returns: false when that would pass the in-flight bytes bound (the hold is unchanged).
    func hold(bytes: Int) -> Bool {
        heldBytes.withLock { held in
            guard flow.adjust(by: bytes - held) else { return false }
            held = bytes
            return true
        }
    }

    /// The bound on in-flight body bytes (`--max-in-flight-bytes`): the most one request could hold on an idle
    /// gateway.
    var bound: Int { flow.maxBytes }

    /// The most this request may hold now without passing the bound: what it holds and what nobody holds.
    var room: Int {
        heldBytes.withLock { $0 } + flow.freeBytes
    }

    /// The HTTP server holds `bytes` of the body (``HTTPServer/BodyMeter``): held while it grows past the announced
    /// length; 429 when that would pass the bound (the server then drops the body, reported as 0: nothing is held).
    func bodyHeld(_ bytes: Int) -> HTTPServer.Response? {
        if bytes == 0 {
            _ = hold(bytes: 0)
            return nil
        }
        guard bytes > announced, !hold(bytes: bytes) else { return nil }
        metrics.increment(.ingestThrottled, label: IngestFlowControl.Bound.inFlightBytes.rawValue)
        let problem = IngestProblem.tooManyRequests(
            "the gateway holds as many body bytes as it may (--max-in-flight-bytes); retry after a second")
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

/// What the HTTP server carries from a request's head to its handler.
enum IngestTicket: HTTPServer.BodyMeter {
    /// `/healthz`, `/readyz`, `/metrics`.
    case probe
    /// `POST /v1/daily-values`, admitted.
    case publish(IngestAdmission)

    /// A POST's body is charged to its admission as it arrives; a probe has none worth counting.
    func bodyHeld(_ bytes: Int) -> HTTPServer.Response? {
        guard case .publish(let admission) = self else { return nil }
        return admission.bodyHeld(bytes)
    }

    /// A chunked POST body past `--max-body-bytes`: the same problem document as an announced one.
    func bodyOverLimit(_ limit: Int) -> HTTPServer.Response? {
        guard case .publish(let admission) = self else { return nil }
        return admission.bodyOverLimit(limit)
    }
}
