import CommandLineOptions
import DailyValueContract
import Essentials
import FHIRServerStore
import Kafka
import Observability
import ObservationMapping
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything the worker is told at start-up, from flags or their `DVP_*` environment twins, validated once.
public struct WorkerConfiguration: Sendable {
    public enum StartPosition: String, Sendable, CaseIterable {
        /// Resume from the group's committed offsets; a group without any starts at the earliest offset.
        case committed
        /// Like `committed`, spelled for a fresh replay / backfill group: no committed offsets → earliest.
        case earliest
        /// A group without committed offsets starts at the end (only new events).
        case latest
    }

    public var brokers: String
    public var topic = "daily-values"
    public var group = "daily-values-worker"
    public var store = "sqlite:daily-values.sqlite"
    public var dlqTopic: String
    public var batchSize = 1000
    public var batchMilliseconds = 100
    public var identifierSystem: String?
    public var idKey: [UInt8]
    /// True when no key was configured and the published development key is in use: only accepted with a local
    /// devbroker's bootstrap file or `--allow-development-key` (see `parse`).
    public var usesDevelopmentIDKey: Bool
    /// True when `--id-key-file` may be read by others or by a group the worker is not in (warned and exported as
    /// `dvp_id_key_file_insecure`; see ``SecretFile/isExposed()``).
    public var idKeyFileExposed = false
    /// The key persons are hashed with in the store's erasure ledger (`--erasure-key-file`); nil: the id key.
    public var erasureKey: [UInt8]?
    public var metaSource: String?
    /// URL of the HealthKit source extension (`--source-extension-url`); nil keeps the mapper's development default.
    public var sourceExtensionURL: String?
    /// The product CodeSystem of the blood-pressure panel's statistics codes (`--statistics-code-system`); nil keeps
    /// the mapper's development default.
    public var statisticsCodeSystem: String?
    /// `--subject-reference` / `--patient-identifier-system`: how Observation.subject names the patient.
    public var subject = ObservationMapper.SubjectReference.literal
    /// `--store-device-name`: keep the free-text `source.name` (PHI; off by default).
    public var storesDeviceName = false
    public var httpAddress = "0.0.0.0"
    public var httpPort = 9464
    public var drainTimeoutSeconds = 30.0
    /// Bound on each PostgreSQL round trip (`--store-timeout`); see ``PostgresClientOptions/roundTripTimeout``.
    public var storeTimeoutSeconds = 40.0
    /// `--store-connections`: PostgreSQL connections writing each batch's lanes at once (nil: the default,
    /// ``defaultPostgresConnections``; SQLite and FHIR servers always use one).
    public var storeConnections: Int?
    /// The PostgreSQL default of `--store-connections` (bench/REPORT.md, "Store connections").
    public static let defaultPostgresConnections = 2
    /// `--retraction-mode`: mark a retracted day `entered-in-error` (default) or delete its row.
    public var retractionMode = RetractionMode.enteredInError
    /// `--on-version-conflict`: what to do with an equal version carrying a different value (counted `conflict`).
    public var onVersionConflict = VersionConflictAction.ignore
    /// The FHIR store's settings (`--fhir-*`); its base URL comes from `--store`.
    public var fhir = FHIRStoreConfiguration(baseURL: "")
    public var start = StartPosition.committed
    /// Backfill from a point in time (ms since the epoch): partitions without a committed offset start at the first
    /// record at or after it (needs a real broker's timestamp index).
    public var startTimestampMs: Int64?
    public var untilCaughtUp = false
    /// With `untilCaughtUp`: seconds between progress log lines (0 = none).
    public var progressIntervalSeconds = 10.0
    public var catalogFile: String?
    public var workerID: String
    public var logLevel = Logger.Level.info
    public var versionCacheSize = 200_000
    /// librdkafka properties passed through as-is (`-X key=value`, `DVP_X_*`), applied last.
    public var kafkaProperties: [String: String] = [:]

    /// The dead-letter producer's `message.max.bytes`: `-X message.max.bytes` when given (set it to the
    /// dead-letter topic's `max.message.bytes` when that is lower), else librdkafka's default. Dead letters are
    /// summarised to fit under it.
    public var deadLetterMaxBytes: Int {
        kafkaProperties["message.max.bytes"].flatMap { Int($0) } ?? 1_000_000
    }

    /// The development HMAC key used when none is configured (ids are then guessable: never use it in production).
    public static let developmentIDKey = ParsedCommandLine.developmentIDKey

    /// Parses flags and environment.
    /// - Returns: nil when `--help` was asked for.
    /// - Throws: `WorkerError.configuration` saying which flag or variable is wrong and why.
    public static func parse(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> WorkerConfiguration? {
        let args: ParsedCommandLine
        do {
            args = try WorkerOptions.parser.parse(arguments, environment: environment)
        } catch {
            throw WorkerError.configuration(error.message)
        }
        if args.wantsHelp { return nil }
        func value(_ flag: String) -> String? { args.value("--" + flag) }

        let (brokers, brokersAreLocalDevelopmentBroker) = try bootstrapServers(args)
        var idKey = WorkerConfiguration.developmentIDKey
        var usesDevelopmentKey = true
        var idKeyFileExposed = false
        if let path = value("id-key-file") {
            let file = SecretFile(option: "--id-key-file", path: path)
            idKey = try file.bytes()
            idKeyFileExposed = file.isExposed()
            usesDevelopmentKey = false
        } else if let key = environment["DVP_ID_KEY"], !key.isEmpty {
            idKey = Array(key.utf8)
            usesDevelopmentKey = false
        }
        let topic = value("topic") ?? "daily-values"
        var config = WorkerConfiguration(
            brokers: brokers, dlqTopic: value("dlq-topic") ?? topic + ".dlq", idKey: idKey,
            usesDevelopmentIDKey: usesDevelopmentKey, workerID: value("worker-id") ?? ProcessInfo.processInfo.hostName)
        config.idKeyFileExposed = idKeyFileExposed
        if let path = value("erasure-key-file") {
            config.erasureKey = try SecretFile(option: "--erasure-key-file", path: path).bytes()
        }
        config.topic = topic
        if let v = value("group") { config.group = v }
        if let v = try storeLocation(args) { config.store = v }
        config.identifierSystem = value("identifier-system")
        config.metaSource = value("meta-source")
        config.sourceExtensionURL = value("source-extension-url")
        config.statisticsCodeSystem = value("statistics-code-system")
        config.catalogFile = value("catalog")
        config.subject = try subjectReference(value("subject-reference"), system: value("patient-identifier-system"))
        config.storesDeviceName = args.isSet("--store-device-name")
        if let v = value("http-address") { config.httpAddress = v }
        // Ranges and defaults as declared in WorkerOptions.
        config.batchSize = try integer(args, "--batch-size") ?? config.batchSize
        config.batchMilliseconds = try integer(args, "--batch-ms") ?? config.batchMilliseconds
        config.httpPort = try integer(args, "--http-port") ?? config.httpPort
        config.versionCacheSize = try integer(args, "--version-cache") ?? config.versionCacheSize
        if let v = value("drain-timeout") {
            guard let seconds = Double(v), seconds > 0, seconds <= 3600 else {
                throw WorkerError.configuration("--drain-timeout: '\(v)' is not a number of seconds in (0, 3600]")
            }
            config.drainTimeoutSeconds = seconds
        }
        if let v = value("progress-interval") {
            guard let seconds = Double(v), seconds >= 0, seconds <= 86_400 else {
                throw WorkerError.configuration("--progress-interval: '\(v)' is not a number of seconds in [0, 86400]")
            }
            config.progressIntervalSeconds = seconds
        }
        if let v = value("store-timeout") {
            guard let seconds = Double(v), seconds > 0, seconds <= 3600 else {
                throw WorkerError.configuration("--store-timeout: '\(v)' is not a number of seconds in (0, 3600]")
            }
            config.storeTimeoutSeconds = seconds
        }
        config.storeConnections = try integer(args, "--store-connections")
        if let v = value("retraction-mode") {
            guard let mode = RetractionMode(rawValue: v) else {
                throw WorkerError.configuration("--retraction-mode: '\(v)' is not one of entered-in-error, delete")
            }
            config.retractionMode = mode
        }
        if let v = value("on-version-conflict") {
            guard let action = VersionConflictAction(rawValue: v) else {
                throw WorkerError.configuration("--on-version-conflict: not one of ignore, dead-letter")
            }
            config.onVersionConflict = action
        }
        config.fhir = try fhirStore(args, requestTimeoutSeconds: config.storeTimeoutSeconds)
        if let v = value("start") {
            guard let start = StartPosition(rawValue: v) else {
                throw WorkerError.configuration("--start: '\(v)' is not one of committed, earliest, latest")
            }
            config.start = start
        }
        if let v = value("start-time") {
            config.startTimestampMs = try timestamp(v, flag: "start-time")
        }
        if let v = value("log-level") {
            guard let level = Logger.Level(name: v) else {
                throw WorkerError.configuration("--log-level: '\(v)' is not one of debug, info, warning, error")
            }
            config.logLevel = level
        }
        config.untilCaughtUp = args.isSet("--until-caught-up")
        config.kafkaProperties = try kafkaPropertyFiles(args, adding: try kafkaProperties(args))
        if brokersAreLocalDevelopmentBroker {
            config.kafkaProperties = Self.embeddedBrokerGroupTimings.merging(config.kafkaProperties) { $1 }
        }
        guard config.deadLetterMaxBytes >= 16_384 else {
            throw WorkerError.configuration(
                "-X message.max.bytes: at least 16384, so a dead letter's context headers always fit")
        }
        if usesDevelopmentKey && !brokersAreLocalDevelopmentBroker && !args.isSet("--allow-development-key") {
            throw WorkerError.configuration(Self.developmentKeyRefusal)
        }
        if let problem = TimeZoneCache.shared.databaseProblem() { throw WorkerError.configuration(problem) }
        return config
    }

    /// `--subject-reference literal|logical` with `--patient-identifier-system` (required for, and only for, logical).
    static func subjectReference(_ mode: String?, system: String?) throws(WorkerError)
        -> ObservationMapper.SubjectReference
    {
        switch (mode ?? "literal", system) {
        case ("literal", nil): return .literal
        case ("literal", _?):
            throw WorkerError.configuration("--patient-identifier-system: only used with --subject-reference logical")
        case ("logical", let system?): return .logical(system: system)
        case ("logical", nil):
            throw WorkerError.configuration("--subject-reference logical needs --patient-identifier-system URI")
        case (let other, _):
            throw WorkerError.configuration("--subject-reference: '\(other)' is not one of literal, logical")
        }
    }

    /// Why the worker refuses to start without an id key, and what to do about it.
    static let developmentKeyRefusal = """
        no id key: give a secret HMAC key for the Observation ids with --id-key-file PATH (or DVP_ID_KEY_FILE, \
        or DVP_ID_KEY), e.g. from `head -c 32 /dev/urandom > id-key`, and keep it (a new key changes every id). \
        Without one the ids would come from the published development key and be guessable. The development key \
        is used only with a devbroker (--brokers-file naming the file `devbroker --bootstrap-file` wrote, every \
        address on loopback) or with --allow-development-key (DVP_ALLOW_DEVELOPMENT_KEY=true), never in production
        """

    /// The bootstrap list (the one rule of every executable: `ParsedCommandLine.bootstrapServers(parsingFile:)`).
    /// - Returns: the list, and whether it came from a local devbroker's bootstrap file.
    static func bootstrapServers(_ args: ParsedCommandLine) throws -> (servers: String, fromDevelopmentBroker: Bool) {
        do throws(UsageError) {
            switch try args.bootstrapServers(parsingFile: KafkaBootstrapFile.naming(servers:)) {
            case .list(let servers): return (servers, false)
            case .file(let file): return (file.bootstrapServers, file.isLocalDevelopmentBroker)
            }
        } catch {
            throw WorkerError.configuration(error.message)
        }
    }

    /// The flag's integer within its declared range, else its declared default (``WorkerOptions``).
    static func integer(_ args: ParsedCommandLine, _ flag: String) throws -> Int? {
        do {
            return try args.declaredInteger(flag)
        } catch {
            throw WorkerError.configuration(error.message)
        }
    }

    /// An RFC 3339 instant (`2026-10-01T00:00:00Z`, offsets allowed) or milliseconds since the epoch.
    static func timestamp(_ text: String, flag: String) throws -> Int64 {
        if let ms = Int64(text), ms >= 0 { return ms }
        if let date = RFC3339.parse(text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        throw WorkerError.configuration(
            "--\(flag): '\(text)' is not an RFC 3339 instant (2026-10-01T00:00:00Z) or milliseconds since the epoch")
    }

    /// `DVP_X_SASL_PASSWORD=…` → `sasl.password`, then `-X key=value` flags (which win).
    static func kafkaProperties(_ args: ParsedCommandLine) throws -> [String: String] {
        var properties = args.environmentProperties(prefix: "DVP_X_")
        for (position, pair) in args.all("-X").enumerated() {
            guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                // Never the text itself: `-X sasl.password:…` holds a secret.
                throw WorkerError.configuration("-X number \(position + 1): expected key=value")
            }
            properties[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
        }
        return properties
    }
}
