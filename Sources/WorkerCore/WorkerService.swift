import Essentials
import Foundation
import Kafka
import ObservationUpsert
import Synchronization

/// The consumer-group worker: Kafka → DailyValue → FHIR Observation → version-guarded upsert → stored offsets.
///
/// At-least-once from Kafka plus an idempotent, version-guarded store gives effectively-once results. Offsets are
/// stored only after a batch's upsert is durable and its dead-letter records are acknowledged; failures of the
/// store or of the dead-letter topic pause consumption and are retried with backoff, never skipped.
public final class WorkerService: Sendable {
    public static let version = "0.1.0"

    let configuration: WorkerConfiguration
    let logger: Logger
    let metrics: Metrics
    let health = WorkerHealth()
    let tracker = PartitionTracker()
    let versionCache: VersionCache
    private let control = Mutex(Control())
    /// Serializes `/metrics` scrapes (the HTTP server answers on two threads; the lag gauges are rebuilt per scrape).
    private let scrape = Mutex(())

    struct Control {
        /// Set when the stop began (``requestStop()``): every stop step's deadline.
        var shutdown: ShutdownPlan?
        var consumer: KafkaConsumer?
        var pausedByWorker = false
    }

    public init(configuration: WorkerConfiguration, logger: Logger, metrics: Metrics = Metrics()) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.versionCache = VersionCache(capacity: configuration.versionCacheSize)
    }

    // MARK: - Run

    /// Runs until stopped (``requestStop()``, e.g. on SIGTERM) or, with `--until-caught-up`, until every assigned
    /// partition reached its end. Returns a summary of what was done.
    /// - Throws: `WorkerError` for configuration and fatal errors.
    public func run() async throws -> RunSummary {
        let started = ContinuousClock.now
        let catalog = try loadCatalog()
        let processor = BatchProcessor(
            decoder: DailyValueDecoder(catalog: catalog),
            mapper: try makeMapper(catalog: catalog),
            deadLetter: DeadLetter(
                topic: configuration.dlqTopic, group: configuration.group, workerID: configuration.workerID,
                workerVersion: Self.version))
        let http = try HTTPServer(address: configuration.httpAddress, port: configuration.httpPort) { [self] path in
            respond(to: path)
        }
        defer { http.shutdown() }
        logger.info("http listening", [("port", .int(Int64(http.port)))])
        if configuration.usesDevelopmentIDKey {
            logger.warning(
                "no id key configured (DVP_ID_KEY or --id-key-file): using the published development key, "
                    + "so Observation ids are guessable; never run like this in production")
        }

        let store = try await openStore()
        let deadLetters = try KafkaProducer(configuration: deadLetterProducerConfiguration())
        let consumer = try KafkaConsumer(
            configuration: consumerConfiguration(),
            rebalanceHandler: { [self] event in handleRebalance(event) },
            logHandler: { [self] entry in handleKafkaLog(entry) })
        let stopNow = control.withLock { c -> Bool in
            c.consumer = consumer
            return c.shutdown != nil
        }
        if stopNow { consumer.stopConsuming() }
        try consumer.subscribe(topics: [configuration.topic])
        health.markStarted()
        logger.info(
            "worker started",
            [("topic", .string(configuration.topic)), ("group", .string(configuration.group)),
             ("worker_version", .string(Self.version))])

        let loop = BatchLoop(service: self, processor: processor, store: store, deadLetters: deadLetters,
                             consumer: consumer)
        let caughtUp = await loop.run()

        // Drain: the loop has flushed and stored what it could; commit, leave the group, flush, close — each step
        // within its share of the one drain deadline.
        let plan = beginShutdown()
        health.markStopping()
        consumer.stopConsuming()
        await commitBeforeClose(consumer, until: plan.deadline(.commit))
        let closeBudget = plan.remaining(.closeConsumer)
        switch await consumer.close(timeout: closeBudget) {
        case .closed: logger.info("consumer closed; group left")
        case .failed(let error): logger.warning("consumer closed with an error", [("error", .string("\(error)"))])
        case .timedOut:
            logger.error("consumer close timed out (librdkafka 2.0.2 close hang); exiting anyway",
                         [("timeout_s", .double(closeBudget.seconds))])
        }
        let dependencies = plan.remaining(.closeDependencies)
        do { try await deadLetters.flush(timeout: dependencies * 0.5) } catch {
            logger.warning("dead-letter producer flush failed", [("error", .string("\(error)"))])
        }
        _ = await deadLetters.close(timeout: max(.milliseconds(100), plan.remaining(.closeDependencies)))
        await store.close()
        let summary = RunSummary(metrics: metrics, elapsed: ContinuousClock.now - started, caughtUp: caughtUp)
        logger.info("worker stopped", summary.logFields)
        return summary
    }

    /// Commits the stored offsets before leaving the group, retrying while the group is rebalancing (other members
    /// joining or leaving at the same moment): a commit lost here costs duplicates on the next run.
    private func commitBeforeClose(_ consumer: KafkaConsumer, until deadline: ContinuousClock.Instant) async {
        var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(1))
        while true {
            do {
                try await consumer.commit()
                return
            } catch {
                metrics.increment("dvp_offset_commit_errors_total")
                let retriable = error.isRetriable
                    || ["ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID", "_WAIT_COORD"].contains(error.code.name)
                guard retriable, ContinuousClock.now < deadline else {
                    logger.warning("final commit failed; the next owner re-reads the uncommitted tail",
                                   [("error", .string("\(error)"))])
                    return
                }
                logger.info("final commit refused for now; retrying", [("error", .string("\(error)"))])
                try? await Task.sleep(for: min(backoff.next(), max(.zero, deadline - .now)))
            }
        }
    }

    /// Asks the worker to stop: no more fetching; the in-flight batch finishes; offsets are committed.
    /// Retries of failing dependencies give up `drainTimeout` after this call.
    public func requestStop() {
        _ = beginShutdown()
        let consumer = control.withLock { $0.consumer }
        health.markStopping()
        consumer?.stopConsuming()
    }

    /// The stop's plan, started now unless a stop already began.
    private func beginShutdown() -> ShutdownPlan {
        control.withLock { c in
            if let plan = c.shutdown { return plan }
            let plan = ShutdownPlan(drainTimeoutSeconds: configuration.drainTimeoutSeconds)
            c.shutdown = plan
            return plan
        }
    }

    var isStopRequested: Bool { control.withLock { $0.shutdown != nil } }

    /// True once the in-flight batch's share of the drain deadline passed: retries give up (the batch is abandoned
    /// un-stored; it will be redelivered).
    var abandonDeadlinePassed: Bool {
        control.withLock { c in c.shutdown.map { ContinuousClock.now >= $0.deadline(.finishBatch) } ?? false }
    }

    // MARK: - Pause / resume on dependency failures

    func pauseForFailure() {
        let consumer = control.withLock { c -> KafkaConsumer? in
            guard !c.pausedByWorker else { return nil }
            c.pausedByWorker = true
            return c.consumer
        }
        guard let consumer else { return }
        consumer.pauseAll()
        metrics.set("dvp_paused", 1)
        logger.warning("consumption paused until the failing dependency recovers")
    }

    /// Resumes consumption once neither the store nor the dead-letter topic is failing.
    func resumeAfterRecovery() {
        guard health.dependenciesHealthy else { return }
        let consumer = control.withLock { c -> KafkaConsumer? in
            guard c.pausedByWorker else { return nil }
            c.pausedByWorker = false
            return c.consumer
        }
        guard let consumer else { return }
        consumer.resumeAll()
        metrics.set("dvp_paused", 0)
        logger.info("consumption resumed")
    }

    // MARK: - Rebalance (runs on the consumer's poll thread)

    private func handleRebalance(_ event: KafkaRebalanceEvent) {
        switch event {
        case .assigned(let partitions, let generation):
            tracker.assign(partitions, generation: generation)
            metrics.increment("dvp_rebalances_total", labels: "kind=\"assigned\"", by: Double(partitions.count))
            logger.info("partitions assigned", [("partitions", .string(Self.describe(partitions)))])
        case .revoked(let partitions, let lost):
            if !lost { CrashPoint.reach(.insideRevoke) }
            // Wait for the in-flight batch so its offsets are stored before the consumer commits on revoke.
            let budget = Duration.seconds(min(configuration.drainTimeoutSeconds, 10))
            let finished = tracker.revoke(partitions, lost: lost, waitingAtMost: budget)
            metrics.increment(
                "dvp_rebalances_total", labels: lost ? "kind=\"lost\"" : "kind=\"revoked\"", by: Double(partitions.count))
            logger.info(
                lost ? "partitions lost" : "partitions revoked",
                [("partitions", .string(Self.describe(partitions))), ("in_flight_finished", .bool(finished))])
        }
        metrics.set("dvp_assigned_partitions", Double(tracker.assignedPartitions.count))
    }

    static func describe(_ partitions: [KafkaTopicPartition]) -> String {
        partitions.sorted().map { "\($0.topic)[\($0.partition)]" }.joined(separator: ",")
    }

    // MARK: - HTTP

    /// Broker reachability from the consumer's statistics: an `_ALL_BROKERS_DOWN` event marks the worker not ready
    /// at once; statistics showing a connected broker clear it, and statistics showing none set it.
    private func refreshBrokerHealth() {
        guard let availability = control.withLock({ $0.consumer })?.brokerAvailability(), availability.known > 0
        else { return }
        if availability.up > 0 {
            health.brokersUp()
        } else {
            health.brokersDown("no connection to any of \(availability.known) brokers")
        }
    }

    /// Per-partition lag of the current assignment, from the consumer's latest statistics.
    private func refreshLag() {
        guard let consumer = control.withLock({ $0.consumer }) else { return }
        let assigned = Set(tracker.assignedPartitions)
        metrics.clearGauge("dvp_consumer_lag")
        for stats in consumer.partitionStatistics() where stats.consumerLag >= 0 {
            let tp = KafkaTopicPartition(topic: stats.topic, partition: stats.partition)
            guard assigned.contains(tp) else { continue }
            metrics.set("dvp_consumer_lag", labels: "topic=\"\(stats.topic)\",partition=\"\(stats.partition)\"",
                        Double(stats.consumerLag))
        }
    }

    private func respond(to path: String) -> HTTPServer.Response {
        switch path {
        case "/metrics":
            let body = scrape.withLock { _ in
                refreshBrokerHealth()
                let (ready, _) = health.readiness
                metrics.set("dvp_ready", ready ? 1 : 0)
                refreshLag()
                return metrics.render()
            }
            return .init(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: body)
        case "/healthz":
            return .init(status: 200, body: "ok\n")
        case "/readyz":
            refreshBrokerHealth()
            let (ready, reason) = health.readiness
            return .init(status: ready ? 200 : 503, body: reason + "\n")
        default:
            return .init(status: 404, body: "not found; try /metrics, /healthz, /readyz\n")
        }
    }
}
