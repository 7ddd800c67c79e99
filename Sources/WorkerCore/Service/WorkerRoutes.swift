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

    /// The response to a GET of `path`.
    func respond(to path: String) -> HTTPServer.Response {
        switch path {
        case "/metrics":
            let body = scrape.withLock { _ in
                statistics.refreshBrokerHealth()
                let (ready, _) = health.readiness
                metrics.set(.ready, ready ? 1 : 0)
                statistics.refreshLag()
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
