import DailyValueContract
import Dispatch
import Essentials
import HTTPServer
import Kafka
import Observability
import Producer
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The gateway's composition root: the publisher (the `Producer` library's, `acks=all` and idempotent), the HTTP
/// server with its routes and their collaborators, the readiness probe; ``run()`` serves until ``requestStop()``,
/// then stops gracefully: stop accepting, answer what is in flight, flush the producer.
public final class IngestService: Sendable {
    public let configuration: IngestConfiguration
    /// The bound HTTP port (the chosen one with `--http-port 0`).
    public var port: Int { server.port }
    /// The bound admin port: the probes and `/metrics` (the chosen one with `--admin-port 0`).
    public var adminPort: Int { adminServer.port }
    public let metrics: Metrics

    private let publisher: DailyValuePublisher
    private let server: HTTPServer
    private let adminServer: HTTPServer
    private let flow: IngestFlowControl
    private let health = IngestHealth(probeInterval: .seconds(2))
    private let authentication: IngestAuthentication
    private let erasure: IngestErasureLedger?
    private let logger: Logger
    private let stopSignal: AsyncStream<Void>
    private let stopContinuation: AsyncStream<Void>.Continuation
    /// When the stop began (its deadlines count from here).
    private let stopStarted = Mutex<ContinuousClock.Instant?>(nil)

    /// Creates the producer and starts serving on the configured address, without an erasure ledger.
    /// - Throws: ``IngestConfigurationError`` (the catalog), `KafkaError` (the producer's configuration),
    ///   `HTTPServerError` (the address).
    public convenience init(
        configuration: IngestConfiguration, authentication: IngestAuthentication, logger: Logger,
        metrics: Metrics = .ingest()
    ) throws {
        try self.init(
            configuration: configuration, authentication: authentication, logger: logger, metrics: metrics,
            erasure: nil)
    }

    /// Creates the producer and starts serving on the configured address.
    /// - Parameter erasure: the erasure ledger read once already (``IngestProcess``), re-read while serving.
    init(
        configuration: IngestConfiguration, authentication: IngestAuthentication, logger: Logger,
        metrics: Metrics, erasure: IngestErasureLedger?
    ) throws {
        self.configuration = configuration
        self.authentication = authentication
        self.erasure = erasure
        self.logger = logger
        self.metrics = metrics
        (stopSignal, stopContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let health = self.health
        publisher = try DailyValuePublisher(
            configuration: DailyValuePublisherConfiguration(
                producer: Self.producerConfiguration(configuration), topic: configuration.topic,
                decoder: DailyValueDecoder(catalog: try Self.catalog(configuration.catalogFile))),
            errorHandler: { error in
                if error.isFatal { health.markProducerFailed() }
                logger.log(error.isFatal ? .error : .warning, "Kafka producer error", [("error", .string("\(error)"))])
            },
            logHandler: { entry in
                logger.log(
                    Logger.Level(syslogSeverity: entry.level), "librdkafka",
                    [("facility", .string(entry.facility)), ("message", .string(entry.message))])
            })
        let limits = configuration.limits
        flow = IngestFlowControl(
            maxRequests: limits.maxConcurrentRequests, maxBytes: limits.maxInFlightBytes,
            maxTenantRequests: limits.tenantRequests, maxTenantBytes: limits.tenantInFlightBytes)
        let idempotency = configuration.idempotency
        let routes = IngestRoutes(
            authentication: authentication, flow: flow, maxBodyBytes: limits.maxBodyBytes,
            handler: IngestRequestHandler(
                publisher: publisher, limits: limits,
                idempotency: IdempotencyTable(
                    ttl: idempotency.ttl, maxKeys: idempotency.maxKeys, maxRecords: idempotency.maxRecords),
                metrics: metrics, log: IngestRequestLog(logger: logger),
                deadlines: DispatchQueue(label: "dvp.ingest-deadlines"), erasure: erasure),
            metrics: metrics, log: IngestRequestLog(logger: logger))
        let server = try HTTPServer(
            address: configuration.httpAddress, port: configuration.httpPort, limits: Self.httpLimits(configuration),
            admit: routes.admit, respond: routes.respond,
            onCut: { reason in metrics.increment(.ingestConnectionsCut, label: reason.rawValue) })
        self.server = server
        let admin = IngestAdminRoutes(flow: flow, health: health, metrics: metrics)
        do {
            adminServer = try HTTPServer(
                address: configuration.adminAddress, port: configuration.adminPort, limits: Self.adminLimits,
                beforeBody: admin.admit, handler: admin.respond)
        } catch {
            server.shutdown()
            throw error
        }
    }

    /// Serves until ``requestStop()``, then stops: no new connections, the requests in flight answered (until 80 % of
    /// the drain timeout; those still waiting then get 503), the producer flushed (until 97 %).
    public func run() async {
        let insecure = if case .insecureNoAuth = authentication { true } else { false }
        metrics.set(.ingestInsecureNoAuth, insecure ? 1 : 0)
        logger.info(
            "ingest gateway listening",
            [
                ("port", .int(Int64(port))), ("admin_port", .int(Int64(adminPort))),
                ("topic", .string(configuration.topic)),
                ("authentication", .string(insecure ? "none (--insecure-no-auth)" : "bearer tokens")),
            ])
        if insecure { warnInsecure() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.probeBrokers() }
            if let erasure { group.addTask { await erasure.run() } }
            if insecure {
                group.addTask {
                    while (try? await Task.sleep(for: .seconds(60))) != nil { self.warnInsecure() }
                }
            }
            for await _ in stopSignal { break }
            beginStop()
            group.cancelAll()
        }
        await drain(since: stopStarted.withLock { $0 } ?? .now)
    }

    /// Starts the graceful stop (``run()`` returns when it is done). Safe to call more than once.
    public func requestStop() {
        stopContinuation.yield()
    }

    // MARK: - Stopping

    /// At once on the stop: not ready, no new connection, no new request.
    private func beginStop() {
        stopStarted.withLock { $0 = .now }
        health.markStopping()
        flow.stop()
        server.stopAccepting()
        logger.info(
            "stopping: no new connections; answering the requests in flight, then flushing the producer",
            [
                ("in_flight", .int(Int64(flow.inFlight.requests))),
                ("drain_timeout_s", .double(configuration.drainTimeout.seconds)),
            ])
    }

    /// The requests in flight answered (or 503 at 80 % of the drain timeout), the server stopped, the producer
    /// flushed and closed (until 97 %).
    private func drain(since started: ContinuousClock.Instant) async {
        let timeout = configuration.drainTimeout
        while flow.inFlight.requests > 0, ContinuousClock.now < started + timeout * 0.8 {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let unanswered = flow.inFlight.requests
        if unanswered > 0 {
            logger.warning("drain: requests still waiting are answered 503", [("requests", .int(Int64(unanswered)))])
        }
        let server = self.server
        let stopped = IngestProblem.unavailable(
            "the gateway stopped before the broker acknowledged every record; retry the same request",
            retryAfterSeconds: 1
        ).response
        // Shutting the server down blocks (it joins its threads): on a queue, never the cooperative pool.
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "dvp.ingest-stop").async {
                server.shutdown(answeringWaitingWith: stopped)
                continuation.resume()
            }
        }
        let flushed = await publisher.close(timeout: max(started + timeout * 0.97 - .now, .milliseconds(100)))
        // The probes answer ("stopping", 503) until the very end.
        let adminServer = self.adminServer
        await withCheckedContinuation { continuation in
            DispatchQueue(label: "dvp.ingest-stop").async {
                adminServer.shutdown()
                continuation.resume()
            }
        }
        await erasure?.close()
        logger.info("stopped", [("producer_close", .string("\(flushed)"))])
    }

    // MARK: - Readiness

    /// Asks the brokers for the topic's metadata every probe interval, until cancelled.
    private func probeBrokers() async {
        var wasReady: Bool?
        while !Task.isCancelled {
            do throws(KafkaError) {
                _ = try await publisher.topicPartitionCount(timeout: health.probeInterval)
                health.recordProbe(succeeded: true)
            } catch {
                health.recordProbe(succeeded: false)
                if wasReady != false { logger.warning("the brokers do not answer", [("error", .string("\(error)"))]) }
            }
            if publisher.fatalError != nil { health.markProducerFailed() }
            let ready = health.readiness == .ready
            if ready, wasReady != true { logger.info("ready: the brokers answer") }
            wasReady = ready
            try? await Task.sleep(for: health.probeInterval)
        }
    }

    private func warnInsecure() {
        logger.error(
            "INSECURE: --insecure-no-auth is set: every request is accepted without a credential, for every patient. "
                + "Never run this outside a local demo.")
    }

    // MARK: - Set-up

    static func producerConfiguration(_ configuration: IngestConfiguration) -> KafkaProducerConfiguration {
        var producer = KafkaProducerConfiguration(bootstrapServers: configuration.brokers)
        producer.clientId = "daily-values-ingest"
        // A client waits for the acknowledgement, so the linger is short, yet long enough for the records of
        // concurrent requests to share a partition's produce request (docs/INGEST.md, "Producer batching").
        producer.lingerMs = 2
        // A record not acknowledged by the request deadline has been answered 503 already: let it fail then
        // rather than arrive minutes later (a retry sends it again; `-X message.timeout.ms` overrides).
        producer.messageTimeoutMs = max(1000, Int(configuration.limits.requestTimeout.milliseconds))
        (producer.queueMaxKilobytes, producer.queueMaxMessages) = producerQueueBound(configuration.limits)
        producer.extra = configuration.kafkaProperties
        return producer
    }

    /// librdkafka's local queue, bounded by what the gateway admits rather than by librdkafka's 1 GiB default.
    ///
    /// Every queued record belongs to a request charged with its decoded body (``IngestAdmission``), and a record's
    /// value is a piece of that body and its key (the patient id) a piece of the value: the records of every
    /// admitted request take at most twice `--max-in-flight-bytes` (librdkafka counts key and value), and there are
    /// at most `--max-concurrent-requests` × `--max-records` of them. A request answered 503 at its deadline gives
    /// its share back while librdkafka may still hold its records (until `message.timeout.ms`); with this bound they
    /// make a new request's records fail at once (503, queue full) instead of growing the process. `-X
    /// queue.buffering.max.kbytes=…` / `max.messages` still override it.
    static func producerQueueBound(_ limits: IngestConfiguration.Limits) -> (kilobytes: Int, messages: Int) {
        let kilobytes = (2 * limits.maxInFlightBytes + 1023) / 1024
        let messages = limits.maxConcurrentRequests.multipliedReportingOverflow(by: limits.maxRecords)
        return (min(kilobytes, Int(Int32.max)), messages.overflow ? 10_000_000 : min(messages.partialValue, 10_000_000))
    }

    static func catalog(_ file: String?) throws(IngestConfigurationError) -> MetricCatalog {
        guard let file else { return .builtin }
        do {
            return try MetricCatalog.load(overridesFrom: URL(fileURLWithPath: file))
        } catch {
            throw IngestConfigurationError("--catalog: \(error)")
        }
    }

    static func httpLimits(_ configuration: IngestConfiguration) -> HTTPServer.Limits {
        let requestTimeout = configuration.limits.requestTimeout
        return HTTPServer.Limits(
            maxConnections: configuration.maxConnections,
            maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            idleTimeout: .seconds(5),
            // Each request's deadline counts from its connection's start, or from the previous answer on a
            // kept-alive connection: the head timeout bounds the wait for its head, then the request deadline and
            // the time to send the answer. A slow client cannot hold a connection past it; an idle kept-alive one is
            // closed at the idle timeout.
            connectionDeadline: requestTimeout + .seconds(5), headTimeout: configuration.limits.headTimeout,
            minimumBodyRate: configuration.limits.minimumBodyRate,
            memoryPerConnection: 16 * 1024, threads: configuration.threads,
            maxRequestBodyBytes: configuration.limits.maxBodyBytes,
            maxRequestsPerConnection: configuration.maxRequestsPerConnection)
    }

    /// The admin listener's limits: the HTTP server's defaults for probes and scrapes (no body, short deadlines),
    /// on one thread of its own.
    static let adminLimits = HTTPServer.Limits(threads: 1)
}
