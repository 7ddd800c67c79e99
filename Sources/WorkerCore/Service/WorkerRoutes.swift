import HTTPServer
import Observability
import Synchronization

/// The worker's HTTP routes: `/metrics` (Prometheus text), `/healthz` (liveness), `/readyz` (readiness from
/// ``WorkerHealth``). Reads the readiness model and the statistics; changes nothing else.
final class WorkerRoutes: Sendable {
    private let health: WorkerHealth
    private let metrics: Metrics
    private let statistics: ConsumerStatisticsReporter
    /// Serializes `/metrics` scrapes (the HTTP server answers on two threads; the lag gauges are rebuilt per scrape).
    private let scrape = Mutex(())

    init(health: WorkerHealth, metrics: Metrics, statistics: ConsumerStatisticsReporter) {
        self.health = health
        self.metrics = metrics
        self.statistics = statistics
    }

    /// 405 with `Allow` for any method but GET and HEAD, before a body is read (the server's `beforeBody`).
    func admit(_ head: HTTPServer.Request) -> HTTPServer.Response? {
        guard head.method != .get, head.method != .head else { return nil }
        return .init(status: 405, headers: ["Allow": "GET, HEAD"], body: "method not allowed; use GET or HEAD\n")
    }

    /// The response to a GET (or HEAD) of the request's path.
    func respond(to request: HTTPServer.Request) -> HTTPServer.Response {
        switch request.path {
        case "/metrics":
            let body = scrape.withLock { _ in
                statistics.refreshBrokerHealth()
                let (ready, _) = health.readiness
                metrics.set(.ready, ready ? 1 : 0)
                statistics.refreshConsumerGauges()
                return metrics.render()
            }
            return .init(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body)
        case "/healthz":
            return .init(status: 200, body: "ok\n")
        case "/readyz":
            statistics.refreshBrokerHealth()
            let (ready, category) = health.readiness
            return .init(status: ready ? 200 : 503, body: category.rawValue + "\n")
        default:
            return .init(status: 404, body: "not found; try /metrics, /healthz, /readyz\n")
        }
    }
}
