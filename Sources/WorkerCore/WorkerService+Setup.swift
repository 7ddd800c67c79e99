import DailyValueContract
import Essentials
import FHIRServerStore
import Kafka
import Observability
import ObservationMapping
import ObservationStores
import PostgresClient
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension WorkerService {
    /// The built-in metric catalog, with the deployment's overrides file merged in when configured.
    func loadCatalog() throws -> MetricCatalog {
        guard let file = configuration.catalogFile else { return .builtin }
        do {
            return try MetricCatalog.load(overridesFrom: URL(fileURLWithPath: file))
        } catch {
            throw WorkerError.configuration("--catalog: \(error)")
        }
    }

    /// The FHIR mapper for this deployment's identifier system, id key and catalog.
    func makeMapper(catalog: MetricCatalog) throws -> ObservationMapper {
        var mapper = ObservationMapper.Configuration(idKey: configuration.idKey)
        if let system = configuration.identifierSystem { mapper.identifierSystem = system }
        if let url = configuration.sourceExtensionURL { mapper.sourceExtensionURL = url }
        if let system = configuration.statisticsCodeSystem { mapper.statisticsCodeSystem = system }
        mapper.subject = configuration.subject
        mapper.storesDeviceName = configuration.storesDeviceName
        mapper.metaSource = configuration.metaSource ?? "urn:daily-values-pipeline:worker:\(Self.version)"
        do {
            return try ObservationMapper(configuration: mapper, catalog: catalog)
        } catch {
            throw WorkerError.configuration("\(error)")
        }
    }

    /// The PostgreSQL store's client bounds: `--store-timeout` per round trip; backends named `dvp-worker` in
    /// `pg_stat_activity` unless the URI sets `application_name`.
    var postgresOptions: PostgresClientOptions {
        PostgresClientOptions(
            applicationName: "dvp-worker",
            roundTripTimeout: .milliseconds(Int64((configuration.storeTimeoutSeconds * 1000).rounded())))
    }

    /// The FHIR store's settings: the `--fhir-*` flags, the mapper's identifier system, the product's User-Agent.
    var fhirConfiguration: FHIRStoreConfiguration {
        var fhir = configuration.fhir
        if let system = configuration.identifierSystem { fhir.identifierSystem = system }
        fhir.userAgent = "daily-values-pipeline/\(Self.version)"
        return fhir
    }

    /// Opens the store, retrying while it is unreachable (a worker started before its database must not
    /// crash-loop); a malformed location fails at once.
    /// - Returns: nil when a stop was requested while waiting for the store (nothing was consumed).
    func openStore() async throws -> (any ObservationStore)? {
        let location: StoreLocation
        do {
            location = try StoreLocation(parsing: configuration.store)
        } catch {
            throw WorkerError.configuration("--store: \(error)")
        }
        let erasureKey = try erasureKey()
        var backoff = Backoff(initial: .milliseconds(200), maximum: .seconds(10))
        while !stop.isRequested {
            do {
                let store = try await makeObservationStore(
                    location, postgres: postgresOptions, fhir: fhirConfiguration,
                    retractions: configuration.retractionMode, erasureKey: erasureKey,
                    connections: storeConnections(location))
                if backoff.attempt > 0 { health.storeRecovered() }
                if let server = store.capabilities.server {
                    logger.info("FHIR server", [("server", .string(server.serverSummary))])
                    if !server.missingFeatures.isEmpty {
                        logger.warning(
                            "the FHIR server does not declare features the store uses; writes may fail",
                            [("missing", .string(server.missingFeatures.joined(separator: ", ")))])
                    }
                }
                return store
            } catch let error as StoreError where error.isRetriable {
                health.storeFailed(error)
                metrics.increment(.storeErrors)
                let delay = backoff.next()
                logger.error(
                    "store unreachable at start; retrying",
                    [("error", .string("\(error)")), ("retry_in_ms", .int(Int64(delay.seconds * 1000)))])
                await stop.sleep(for: delay)
            } catch {
                throw WorkerError.configuration("--store: cannot open \(location): \(error)")
            }
        }
        logger.info("stopped while waiting for the store; nothing was consumed")
        return nil
    }

    /// The key of the store's erasure ledger: `--erasure-key-file`, else the id key.
    func erasureKey() throws -> ErasureKey {
        do {
            return try ErasureKey(key: configuration.erasureKey ?? configuration.idKey)
        } catch {
            throw WorkerError.configuration("--erasure-key-file: \(error)")
        }
    }

    /// `--store-connections`, or its default for the kind of store (an explicit N > 1 on SQLite or a FHIR server is
    /// refused by ``makeObservationStore(_:postgres:fhir:retractions:connections:)``).
    func storeConnections(_ location: StoreLocation) -> Int {
        if let explicit = configuration.storeConnections { return explicit }
        if case .postgres = location { return WorkerConfiguration.defaultPostgresConnections }
        return 1
    }

    /// librdkafka's pre-fetch queue (`queued.max.messages.kbytes`; `-X` overrides it; its own default is 64 MiB).
    /// librdkafka 2.0.2 skips a partition's fetch while the queue is full and looks again only at its broker
    /// thread's next wake-up (up to a second), so a queue of less than a second of records caps a replay.
    /// PostgreSQL, which keeps up with such a replay, gets 32 MiB; SQLite and a FHIR server, where the store is the
    /// bound and a fuller queue only costs memory, keep 16 MiB (the measurements: bench/NOTES.md).
    func prefetchKilobytes() -> Int {
        if case .postgres? = try? StoreLocation(parsing: configuration.store) { return 32_768 }
        return 16_384
    }

    func consumerConfiguration() -> KafkaConsumerConfiguration {
        var consumer = KafkaConsumerConfiguration(bootstrapServers: configuration.brokers, groupId: configuration.group)
        consumer.clientId = "dvp-worker-\(configuration.workerID)"
        consumer.autoOffsetReset = configuration.start == .latest ? .latest : .earliest
        consumer.enablePartitionEOF = true
        consumer.startTimestampMs = configuration.startTimestampMs
        consumer.statisticsIntervalMs = 5_000
        consumer.autoCommitIntervalMs = 1_000
        consumer.maxBufferedMessages = max(2 * configuration.batchSize, 2_000)
        // A revoke waits this long for the batches in flight to store their offsets before the commit.
        consumer.revokeWait = .seconds(min(configuration.drainTimeoutSeconds, 10))
        // Records up to the broker's usual 1 MB limit (and the 64 KiB contract limit far below it) never wedge.
        consumer.receiveMessageMaxBytes = 100_000_000
        consumer.extra = ["queued.max.messages.kbytes": String(prefetchKilobytes())].merging(
            configuration.kafkaProperties) { $1 }
        return consumer
    }

    func deadLetterProducerConfiguration() -> KafkaProducerConfiguration {
        var producer = KafkaProducerConfiguration(bootstrapServers: configuration.brokers)
        producer.clientId = "dvp-worker-dlq-\(configuration.workerID)"
        producer.lingerMs = 5
        producer.messageTimeoutMs = 30_000
        producer.messageMaxBytes = configuration.deadLetterMaxBytes
        producer.extra = configuration.kafkaProperties.filter { Self.isSharedClientProperty($0.key) }
        return producer
    }

    /// Pass-through properties that apply to the dead-letter producer too (security, addresses, client tuning),
    /// as opposed to consumer-only ones such as `session.timeout.ms`.
    static func isSharedClientProperty(_ key: String) -> Bool {
        let shared = [
            "security.", "sasl.", "ssl.", "ssl_", "client.", "socket.", "broker.", "bootstrap.", "metadata.",
            "debug", "log_level", "reconnect.", "api.version", "enable.ssl", "topic.metadata",
        ]
        return shared.contains { key.hasPrefix($0) }
    }
}
