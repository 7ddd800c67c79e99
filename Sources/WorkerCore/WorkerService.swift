import DailyValueContract
import HTTPServer
import Kafka
import Observability
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The consumer-group worker: Kafka → DailyValue → FHIR Observation → version-guarded upsert → stored offsets.
///
/// At-least-once from Kafka plus an idempotent, version-guarded store gives effectively-once results. Offsets are
/// stored only after a batch's upsert is durable and its dead-letter records are acknowledged; retriable failures of
/// the store or of the dead-letter topic pause consumption and are retried with backoff, never skipped; one no
/// retry cures ends the run (after the durable work is committed) with ``WorkerError/store(_:)`` or ``WorkerError/fatal(_:)``.
///
/// The service only wires the parts and owns startup and shutdown; records flow one way through them:
/// ``KafkaConsumer`` → ``BatchPipeline`` (``BatchPreparer`` → ``BatchWriter``: ``UpsertStage``,
/// ``DeadLetterStage``) → ``KafkaConsumer/complete(_:)``. See `docs/ARCHITECTURE.md`.
public final class WorkerService: Sendable {
    /// The worker version, in logs, dead-letter headers and the default `meta.source`.
    public static let version = "0.1.0"

    let configuration: WorkerConfiguration
    let logger: Logger
    let metrics: Metrics
    let health = WorkerHealth()
    let versionCache: VersionCache
    let stop: WorkerStop
    let faults: WorkerFaults

    /// A worker for `configuration`; nothing starts before ``run()``.
    /// - Parameter faults: the reliability suite's fault hooks; the shipped worker passes none.
    public init(
        configuration: WorkerConfiguration, logger: Logger, metrics: Metrics = Metrics(), faults: WorkerFaults = .none
    ) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.faults = faults
        self.versionCache = VersionCache(capacity: configuration.versionCacheSize)
        self.stop = WorkerStop(drainTimeoutSeconds: configuration.drainTimeoutSeconds)
        stop.onStop { [health] in health.markStopping() }
    }

    // MARK: - Run

    /// Runs until stopped (``requestStop()``, e.g. on SIGTERM) or, with `--until-caught-up`, until every assigned
    /// partition reached its end. Returns a summary of what was done.
    /// - Throws: `WorkerError` for configuration errors, and — after the durable work is committed and the group
    ///   left — for a dependency that failed in a way retrying cannot fix (``WorkerError/store(_:)``, ``WorkerError/fatal(_:)``).
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
        let statistics = ConsumerStatisticsReporter(health: health, metrics: metrics)
        let routes = WorkerRoutes(health: health, metrics: metrics, statistics: statistics)
        let http: HTTPServer
        do {
            http = try HTTPServer(
                address: configuration.httpAddress, port: configuration.httpPort,
                beforeBody: { head in routes.admit(head) }, handler: { request in routes.respond(to: request) })
        } catch {
            throw WorkerError.configuration("http endpoint (--http-address, --http-port): \(error)")
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
        let rebalance = RebalanceLog(metrics: metrics, logger: logger, onRevoke: faults.onRevoke)
        // Fetching pauses while the store or the dead-letter topic fails: state the consumer reads, not a call.
        let consumer = try KafkaConsumer(
            configuration: consumerConfiguration(),
            pausedWhile: { [health] in !health.dependenciesHealthy },
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

        let pipeline = makePipeline(
            consumer: consumer, processor: processor, store: store, deadLetterProducer: deadLetterProducer,
            erasureKey: try erasureKey())
        let progress = configuration.untilCaughtUp && configuration.progressIntervalSeconds > 0
            ? ProgressReporter(
                interval: .milliseconds(Int64(configuration.progressIntervalSeconds * 1000)), metrics: metrics,
                statistics: statistics, logger: logger
            ).start() : nil
        let outcome = await run(pipeline)
        progress?.cancel()

        // Drain: the pipeline has flushed and stored what it could; commit, leave the group, flush, close — each
        // step within its share of the one drain deadline.
        let plan = stop.request()
        await ShutdownSequence(
            consumer: consumer, deadLetters: deadLetterProducer, store: store, metrics: metrics, logger: logger
        ).run(plan)
        let caughtUp = if case .caughtUp = outcome { true } else { false }
        let summary = RunSummary(metrics: metrics, elapsed: ContinuousClock.now - started, caughtUp: caughtUp)
        logger.info("worker stopped", summary.logFields)
        if case .failed(let failure) = outcome {
            switch failure {
            case .store(let error): throw WorkerError.store("\(error)")
            case .deadLetters, .consumer: throw WorkerError.fatal("\(failure)")
            }
        }
        return summary
    }

    /// Runs the pipeline until it ends by itself or, once a stop was requested, until the in-flight batches'
    /// share of the drain deadline passed: then the pipeline is cancelled, which reaches every retry loop.
    private func run(_ pipeline: BatchPipeline) async -> BatchPipeline.Outcome {
        await withTaskGroup(of: BatchPipeline.Outcome?.self) { group in
            group.addTask { await pipeline.run() }
            group.addTask { [stop] in
                await stop.untilBatchDeadline()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            logger.warning("the in-flight batches' share of the drain deadline passed; abandoning them un-stored")
            let last: BatchPipeline.Outcome?? = await group.next()
            return (last ?? nil) ?? .stopped
        }
    }

    /// Asks the worker to stop: no more fetching; the in-flight batch finishes; offsets are committed.
    /// Retries of failing dependencies give up `drainTimeout` after this call.
    public func requestStop() {
        stop.request()
    }

    // MARK: - Wiring

    /// The pipeline, stage by stage, each given only its collaborators.
    private func makePipeline(
        consumer: KafkaConsumer, processor: BatchProcessor, store: any ObservationStore,
        deadLetterProducer: KafkaProducer, erasureKey: ErasureKey
    ) -> BatchPipeline {
        let erasure = ErasureCheck(ledger: store.capabilities.erasure, refusedPersons: ErasureGuard(key: erasureKey))
        let writer = BatchWriter(
            consumer: consumer,
            upserts: UpsertStage(
                store: faults.wrapStore(store), deadLetter: processor.deadLetter, versionCache: versionCache,
                health: health, metrics: metrics, logger: logger,
                conflicts: VersionConflicts(
                    action: configuration.onVersionConflict, deadLetter: processor.deadLetter, logger: logger),
                erasure: erasure),
            deadLetters: DeadLetterStage(producer: deadLetterProducer, health: health, metrics: metrics, logger: logger),
            metrics: metrics, logger: logger)
        return BatchPipeline(
            settings: .init(
                batchSize: configuration.batchSize, batchWindow: .milliseconds(configuration.batchMilliseconds),
                untilCaughtUp: configuration.untilCaughtUp),
            consumer: consumer,
            preparer: BatchPreparer(
                processor: processor, versionCache: versionCache,
                versionReader: store.capabilities.versionReader, erasure: erasure,
                documentEncoder: store.capabilities.documentEncoder),
            writer: writer, health: health, metrics: metrics, logger: logger)
    }
}
