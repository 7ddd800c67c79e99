import HTTPServer
import Observability

/// The admin listener's routes (`--admin-address`/`--admin-port`): the probes and the metrics, apart from the public
/// port so that anyone who can reach `POST /v1/daily-values` can neither read the gateway's metrics nor crowd out the
/// kubelet's probes.
struct IngestAdminRoutes: Sendable {
    let flow: IngestFlowControl
    let health: IngestHealth
    let metrics: Metrics

    /// From the head alone, before any body is read: 404 for another path, 405 for a method other than `GET` or
    /// `HEAD`; nil lets the request on to ``respond(_:)``.
    func admit(_ head: HTTPServer.Request) -> HTTPServer.Response? {
        guard ["/healthz", "/readyz", "/metrics"].contains(head.path) else {
            return IngestProblem.notFound("try /healthz, /readyz or /metrics").response
        }
        guard head.method == .get || head.method == .head else {
            return IngestProblem.methodNotAllowed(allow: "GET, HEAD").response
        }
        return nil
    }

    /// `GET`/`HEAD` `/healthz`, `/readyz` and `/metrics` (after ``admit(_:)``).
    func respond(_ request: HTTPServer.Request) -> HTTPServer.Response {
        switch request.path {
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
}
