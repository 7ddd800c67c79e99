import HTTPServer
import IngestAuth
import Observability

/// The gateway's HTTP surface: which paths and methods exist, what is decided from a request's head alone —
/// method, credential, media type, size, the bounds — before any body is read, and the probes.
struct IngestRoutes: Sendable {
    /// The one publishing path.
    static let ingestPath = "/v1/daily-values"

    let authentication: IngestAuthentication
    let flow: IngestFlowControl
    let maxBodyBytes: Int
    let handler: IngestRequestHandler
    let health: IngestHealth
    let metrics: Metrics

    /// The head checks, in this order: path (404), method (405 with `Allow`), stopping (503), credential (401 with
    /// `WWW-Authenticate`), media type and encoding (415), announced size (413), the bounds (429 with
    /// `Retry-After`). A body without a `Content-Length` is charged as it arrives (``IngestAdmission/bodyHeld(_:)``).
    func admit(_ head: HTTPServer.Request) -> HTTPServer.HeadDecision<IngestTicket> {
        switch head.path {
        case Self.ingestPath:
            guard head.method == .post else { return refuse(.methodNotAllowed(allow: "POST")) }
        case "/healthz", "/readyz", "/metrics":
            guard head.method == .get || head.method == .head else {
                return .respond(IngestProblem.methodNotAllowed(allow: "GET, HEAD").response)
            }
            return .proceed(.probe)
        default:
            return .respond(IngestProblem.notFound().response)
        }
        let scope: IngestScope
        do throws(AuthenticationFailure) {
            scope = try authentication.scope(authorization: head.headers["Authorization"])
        } catch {
            return refuse(.unauthorized(error.message, wwwAuthenticate: error.wwwAuthenticate))
        }
        let format: IngestBodyFormat
        do throws(IngestProblem) { format = try IngestBodyFormat(headers: head.headers) } catch {
            return refuse(error)
        }
        let announced = head.headers["Content-Length"].flatMap { Int(Substring($0).trimmingSpaces) } ?? 0
        guard announced <= maxBodyBytes else {
            return refuse(.tooLarge("the body is larger than \(maxBodyBytes) bytes (--max-body-bytes)"))
        }
        switch flow.admit(bytes: announced) {
        case .stopping:
            metrics.increment(.ingestUnavailable, label: "stopping")
            return refuse(
                .unavailable("the gateway is stopping; retry (another instance will answer)", retryAfterSeconds: 1))
        case .refused(let bound):
            metrics.increment(.ingestThrottled, label: bound.rawValue)
            return refuse(.tooManyRequests("the gateway is at its \(bound.rawValue) bound; retry after a second"))
        case .admitted:
            let admission = IngestAdmission(
                scope: scope, format: format, announced: announced, flow: flow, metrics: metrics)
            return .proceed(.publish(admission))
        }
    }

    /// A request with its body: the probes answer at once, a POST goes to the ``IngestRequestHandler``.
    func respond(_ request: HTTPServer.Request, _ ticket: IngestTicket, _ responder: HTTPServer.Responder) {
        switch ticket {
        case .publish(let admission): handler.handle(request, admission: admission, responder: responder)
        case .probe: responder.send(probe(request.path))
        }
    }

    private func probe(_ path: String) -> HTTPServer.Response {
        switch path {
        case "/readyz":
            let readiness = health.readiness
            return .init(status: readiness == .ready ? 200 : 503, body: readiness.rawValue + "\n")
        case "/metrics":
            let (requests, bytes) = flow.inFlight
            metrics.set(.ingestInFlightRequests, Double(requests))
            metrics.set(.ingestInFlightBytes, Double(bytes))
            metrics.set(.ingestReady, health.readiness == .ready ? 1 : 0)
            return .init(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics.render())
        default:
            return .init(status: 200, body: "ok\n")
        }
    }

    /// A POST refused from its head, counted by status.
    private func refuse(_ problem: IngestProblem) -> HTTPServer.HeadDecision<IngestTicket> {
        metrics.increment(.ingestRequests, label: String(problem.status))
        return .respond(problem.response)
    }
}
