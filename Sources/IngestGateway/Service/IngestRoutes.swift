import HTTPServer
import IngestAuth
import Observability

/// The gateway's public HTTP surface: its one path and method, and what is decided from a request's head alone —
/// header fields, credential, media type, size, the bounds — before any body is read. The probes and the metrics
/// are the admin listener's (``IngestAdminRoutes``).
struct IngestRoutes: Sendable {
    /// The one publishing path.
    static let ingestPath = "/v1/daily-values"

    let authentication: IngestAuthentication
    let flow: IngestFlowControl
    let maxBodyBytes: Int
    let handler: IngestRequestHandler
    let metrics: Metrics
    let log: IngestRequestLog

    /// Header fields HTTP allows once per request: a second one (which of the two would be meant?) is 400.
    static let singletonFields = [
        "Content-Type", "Content-Length", "Content-Encoding", "Authorization", "Idempotency-Key",
    ]

    /// The head checks, in this order: path (404), method (405 with `Allow`), a repeated singleton header field
    /// (400), stopping (503), credential (401 with
    /// `WWW-Authenticate`), media type and encoding (415), announced size (413), the bounds (429 with
    /// `Retry-After`). A body without a `Content-Length` is charged as it arrives (``IngestAdmission/bodyHeld(_:)``).
    func admit(_ head: HTTPServer.Request) -> HTTPServer.HeadDecision<IngestTicket> {
        guard head.path == Self.ingestPath else { return .respond(IngestProblem.notFound().response) }
        guard head.method == .post else { return refuse(.methodNotAllowed(allow: "POST")) }
        if let repeated = Self.singletonFields.first(where: { head.headers.values(for: $0).count > 1 }) {
            return refuse(.malformed("the \(repeated) header field appears more than once; send it once"))
        }
        let scope: IngestScope
        do throws(AuthenticationFailure) {
            scope = try authentication.scope(authorization: head.headers["Authorization"])
        } catch {
            return refuse(.unauthorized(error.message, wwwAuthenticate: error.wwwAuthenticate))
        }
        let format: IngestBodyFormat
        do throws(IngestProblem) { format = try IngestBodyFormat(headers: head.headers) } catch {
            return refuse(error, tenant: scope.tenant)
        }
        let announced = head.headers["Content-Length"].flatMap { Int(Substring($0).trimmingSpaces) } ?? 0
        guard announced <= maxBodyBytes else {
            return refuse(
                .tooLarge("the body is larger than \(maxBodyBytes) bytes (--max-body-bytes)"), tenant: scope.tenant)
        }
        switch flow.admit(bytes: announced, tenant: scope.tenant) {
        case .stopping:
            metrics.increment(.ingestUnavailable, label: "stopping")
            return refuse(
                .unavailable("the gateway is stopping; retry (another instance will answer)", retryAfterSeconds: 1),
                tenant: scope.tenant)
        case .refused(let bound):
            metrics.increment(.ingestThrottled, label: bound.rawValue)
            return refuse(
                .tooManyRequests(
                    "the gateway is at its \(bound.rawValue) bound (\(bound.option)); retry after a second"),
                tenant: scope.tenant)
        case .admitted:
            let admission = IngestAdmission(
                scope: scope, format: format, announced: announced, flow: flow, metrics: metrics)
            return .proceed(IngestTicket(admission: admission))
        }
    }

    /// A POST with its body goes to the ``IngestRequestHandler``.
    func respond(_ request: HTTPServer.Request, _ ticket: IngestTicket, _ responder: HTTPServer.Responder) {
        handler.handle(request, admission: ticket.admission, responder: responder)
    }

    /// A POST refused from its head, counted by status.
    private func refuse(_ problem: IngestProblem, tenant: String? = nil) -> HTTPServer.HeadDecision<IngestTicket> {
        metrics.increment(.ingestRequests, label: String(problem.status))
        log.refusedFromHead(status: problem.status, tenant: tenant)
        return .respond(problem.response)
    }
}
