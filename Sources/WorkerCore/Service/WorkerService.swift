import Foundation
import Kafka
import ObservationUpsert

/// The consumer-group worker: Kafka → DailyValue → FHIR Observation → version-guarded upsert → stored offsets.
///
/// At-least-once from Kafka plus an idempotent, version-guarded store gives effectively-once results. Offsets are
/// stored only after a batch's upsert is durable and its dead-letter records are acknowledged; failures of the
/// store or of the dead-letter topic pause consumption and are retried with backoff, never skipped.
///
/// The service only wires the parts and owns startup and shutdown; records flow one way through them:
/// ``KafkaConsumer`` → ``BatchAssembler`` → ``BatchPreparer`` → ``BatchWriter`` (``UpsertStage``,
/// ``DeadLetterStage``) → ``OffsetStorer``. See `docs/ARCHITECTURE.md`.
public final class WorkerService: Sendable {
    /// The worker version, in logs, dead-letter headers and the default `meta.source`.
    public static let version = "0.1.0"

    let configuration: WorkerConfiguration
    let logger: Logger
    let metrics: Metrics
    let health = WorkerHealth()
    let tracker = PartitionTracker()
    let versionCache: VersionCache
    let stop: WorkerStop

    /// A worker for `configuration`; nothing starts before ``run()``.
    public init(configuration: WorkerConfiguration, logger: Logger, metrics: Metrics = Metrics()) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.versionCache = VersionCache(capacity: configuration.versionCacheSize)
        self.stop = WorkerStop(drainTimeoutSeconds: configuration.drainTimeoutSeconds)
        stop.onStop { [health] in health.markStopping() }
    }

    // MARK: - Run

    /// Runs until stopped (``requestStop()``, e.g. on SIGTERM) or, with `--until-caught-up`, until every assigned
    /// partition reached its end. Returns a summary of what was done.
    /// - Throws: `WorkerError` for configuration and fatal errors.
    public func run() async throws -> RunSummary {
        let started = ContinuousClock.now
        metrics.set(.idKeyFileInsecure, configuration.idKeyFileExposed ? 1 : 0)
        if configuration.idKeyFileExposed {
            logger.warning(
                "the id key file is readable by other users or by a group the worker is not in: anyone who reads "
                    + "it can compute the Observation ids; make it 0400 (or 0600), owned by the worker's user")
        }
        let catalog = try loadCatalog()
        let processor = BatchProcessor(
            decoder: DailyValueDecoder(catalog: catalog),
            mapper: try makeMapper(catalog: catalog),
            deadLetter: DeadLetter(
                topic: configuration.dlqTopic, group: configuration.group, workerID: configuration.workerID,
                workerVersion: Self.version, producerMaxBytes: configuration.deadLetterMaxBytes))
        let statistics = ConsumerStatisticsReporter(tracker: tracker, health: health, metrics: metrics)
        let routes = WorkerRoutes(health: health, metrics: metrics, statistics: statistics)
        let http = try HTTPServer(address: configuration.httpAddress, port: configuration.httpPort) { path in
            routes.respond(to: path)
        }
        defer { http.shutdown() }
        logger.info("http listening", [("port", .int(Int64(http.port)))])
        if configuration.usesDevelopmentIDKey {
            logger.warning(
                "no id key configured (DVP_ID_KEY or --id-key-file): using the published development key, "
                    + "so Observation ids are guessable; never run like this in production")
        }

        guard let store = try await openStore() else {
            return RunSummary(metrics: metrics, elapsed: ContinuousClock.now - started, caughtUp: false)
        }
        // Both clients log through the forwarder from before their handles exist: no raw librdkafka line on stderr.
        let kafkaLog = KafkaLogForwarder(metrics: metrics, logger: logger)
        let deadLetterProducer = try KafkaProducer(
            configuration: deadLetterProducerConfiguration(), logHandler: { entry in kafkaLog.handle(entry) })
        let rebalance = RebalanceHandler(
            tracker: tracker, metrics: metrics, logger: logger,
            revokeWait: .seconds(min(configuration.drainTimeoutSeconds, 10)))
        let consumer = try KafkaConsumer(
            configuration: consumerConfiguration(),
            rebalanceHandler: { event in rebalance.handle(event) },
            logHandler: { entry in kafkaLog.handle(entry) })
        statistics.attach(consumer)
        stop.onStop { consumer.stopConsuming() }
        try consumer.subscribe(topics: [configuration.topic])
        health.markStarted()
        logger.info(
            "worker started",
            [("topic", .string(configuration.topic)), ("group", .string(configuration.group)),
             ("worker_version", .string(Self.version))])

        var assembler = makeAssembler(
            consumer: consumer, processor: processor, store: store, deadLetterProducer: deadLetterProducer)
        let progress = configuration.untilCaughtUp && configuration.progressIntervalSeconds > 0
            ? ProgressReporter(
                interval: .milliseconds(Int64(configuration.progressIntervalSeconds * 1000)), metrics: metrics,
                statistics: statistics, logger: logger
            ).start() : nil
        let caughtUp = await assembler.run()
        progress?.cancel()

        // Drain: the pipeline has flushed and stored what it could; commit, leave the group, flush, close — each
        // step within its share of the one drain deadline.
        let plan = stop.request()
        await ShutdownSequence(
            consumer: consumer, deadLetters: deadLetterProducer, store: store, metrics: metrics, logger: logger
        ).run(plan)
        let summary = RunSummary(metrics: metrics, elapsed: ContinuousClock.now - started, caughtUp: caughtUp)
        logger.info("worker stopped", summary.logFields)
        return summary
    }

    /// Asks the worker to stop: no more fetching; the in-flight batch finishes; offsets are committed.
    /// Retries of failing dependencies give up `drainTimeout` after this call.
    public func requestStop() {
        stop.request()
    }

    // MARK: - Wiring

    /// The pipeline, stage by stage, each given only its collaborators.
    private func makeAssembler(
        consumer: KafkaConsumer, processor: BatchProcessor, store: any ObservationStore,
        deadLetterProducer: KafkaProducer
    ) -> BatchAssembler {
        let pause = ConsumptionPause(consumer: consumer, health: health, metrics: metrics, logger: logger)
        let preparer = BatchPreparer(
            processor: processor, tracker: tracker, versionCache: versionCache,
            versionReader: store as? any ObservationVersionReader)
        let writer = BatchWriter(
            preparer: preparer,
            upserts: UpsertStage(
                store: store, deadLetter: processor.deadLetter, versionCache: versionCache, health: health,
                pause: pause, metrics: metrics, logger: logger,
                conflicts: VersionConflicts(
                    action: configuration.onVersionConflict, deadLetter: processor.deadLetter, logger: logger)),
            deadLetters: DeadLetterStage(
                producer: deadLetterProducer, health: health, pause: pause, metrics: metrics, logger: logger),
            offsets: OffsetStorer(consumer: consumer, tracker: tracker, metrics: metrics, logger: logger),
            tracker: tracker, stop: stop, metrics: metrics, logger: logger)
        return BatchAssembler(
            settings: .init(
                batchSize: configuration.batchSize, batchWindow: .milliseconds(configuration.batchMilliseconds),
                untilCaughtUp: configuration.untilCaughtUp),
            consumer: consumer, tracker: tracker, health: health, stop: stop, metrics: metrics, logger: logger,
            pipeline: BatchPipeline(preparer: preparer, writer: writer))
    }
}
