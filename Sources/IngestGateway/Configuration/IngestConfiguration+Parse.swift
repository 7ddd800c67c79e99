import CommandLineOptions
import DailyValueContract
import Kafka
import Observability

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension IngestConfiguration {
    /// Parses flags and environment.
    /// - Returns: nil when `--help` was asked for.
    /// - Throws: ``IngestConfigurationError`` saying which flag or variable is wrong and why (never a secret).
    public static func parse(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(IngestConfigurationError) -> IngestConfiguration? {
        do {
            let args = try IngestOptions.parser.parse(arguments, environment: environment)
            if args.wantsHelp { return nil }
            return try parse(args)
        } catch let error as IngestConfigurationError {
            throw error
        } catch let error as UsageError {
            throw IngestConfigurationError(error.message)
        } catch {
            throw IngestConfigurationError("\(error)")
        }
    }

    private static func parse(_ args: ParsedCommandLine) throws -> IngestConfiguration {
        let (brokers, fromDevelopmentBroker) = try bootstrapServers(args)
        var config = IngestConfiguration(brokers: brokers)
        // Integer ranges and defaults as declared in IngestOptions (the tenant shares' ranges depend on other values).
        config.brokersAreLocalDevelopmentBroker = fromDevelopmentBroker
        if let v = args.value("--http-address") { config.httpAddress = v }
        config.httpPort = try args.declaredInteger("--http-port") ?? config.httpPort
        if let v = args.value("--admin-address") { config.adminAddress = v }
        config.adminPort = try args.declaredInteger("--admin-port") ?? config.adminPort
        guard config.adminPort != config.httpPort || config.adminPort == 0 else {
            throw IngestConfigurationError("--admin-port: must differ from --http-port (the probes have their own)")
        }
        config.threads = try args.declaredInteger("--threads") ?? config.threads
        config.maxConnections = try args.declaredInteger("--max-connections") ?? config.maxConnections
        config.maxRequestsPerConnection =
            try args.declaredInteger("--max-requests-per-connection") ?? config.maxRequestsPerConnection
        config.maxConnectionsPerAddress =
            try args.declaredInteger("--max-connections-per-address") ?? config.maxConnectionsPerAddress
        if let topic = args.value("--topic") {
            guard !topic.isEmpty else { throw IngestConfigurationError("--topic: must not be empty") }
            config.topic = topic
        }
        config.kafkaProperties = try args.kafkaPropertyFiles(
            adding: try kafkaProperties(args), option: "--kafka-property-file")
        // Checked on the merged set: a property file must not turn the delivery guarantee off either.
        try refuseWeakerDelivery(config.kafkaProperties)
        config.catalogFile = args.value("--catalog")

        var limits = config.limits
        limits.maxRecords = try args.declaredInteger("--max-records") ?? limits.maxRecords
        limits.maxBodyBytes = try args.declaredInteger("--max-body-bytes") ?? limits.maxBodyBytes
        limits.maxConcurrentRequests =
            try args.declaredInteger("--max-concurrent-requests") ?? limits.maxConcurrentRequests
        limits.maxInFlightBytes =
            try args.declaredInteger("--max-in-flight-bytes") ?? limits.maxInFlightBytes
        limits.requestTimeout = try seconds(args, "--request-timeout") ?? limits.requestTimeout
        guard limits.maxInFlightBytes >= limits.maxBodyBytes else {
            throw IngestConfigurationError(
                "--max-in-flight-bytes: must be at least --max-body-bytes (one request of the largest size must fit)")
        }
        limits.maxTenantRequests = try args.integer("--max-tenant-requests", in: 1...limits.maxConcurrentRequests)
        limits.maxTenantInFlightBytes = try args.integer(
            "--max-tenant-in-flight-bytes", in: limits.maxBodyBytes...limits.maxInFlightBytes)
        limits.headTimeout = try seconds(args, "--head-timeout") ?? limits.headTimeout
        limits.minimumBodyRate = try args.declaredInteger("--min-body-rate") ?? limits.minimumBodyRate
        config.limits = limits

        config.idempotency.ttl = try seconds(args, "--idempotency-ttl") ?? config.idempotency.ttl
        config.idempotency.maxKeys =
            try args.declaredInteger("--idempotency-max-keys") ?? config.idempotency.maxKeys
        config.idempotency.maxRecords =
            try args.declaredInteger("--idempotency-max-records") ?? config.idempotency.maxRecords

        config.authentication = try authentication(args)
        config.erasure = try erasure(args)
        config.drainTimeout = try seconds(args, "--drain-timeout") ?? config.drainTimeout
        if let v = args.value("--log-level") {
            guard let level = Logger.Level(name: v) else {
                throw IngestConfigurationError("--log-level: not one of debug, info, warning, error")
            }
            config.logLevel = level
        }
        if let problem = TimeZoneCache.shared.databaseProblem() { throw IngestConfigurationError(problem) }
        return config
    }

    /// The credential flags: at least one way in, `--insecure-no-auth` alone, JWTs with their audience and issuer.
    static func authentication(_ args: ParsedCommandLine) throws(IngestConfigurationError) -> Authentication {
        var auth = Authentication()
        auth.apiKeysFile = args.value("--api-keys")
        auth.jwksFile = args.value("--jwks")
        auth.jwtAudience = args.value("--jwt-audience")
        auth.jwtIssuer = args.value("--jwt-issuer")
        let maxLifetime = try seconds(args, "--jwt-max-lifetime")
        auth.jwtMaxLifetime = maxLifetime ?? auth.jwtMaxLifetime
        auth.insecureNoAuth = args.isSet("--insecure-no-auth")
        let verified = auth.apiKeysFile != nil || auth.jwksFile != nil
        guard verified || auth.insecureNoAuth else {
            throw IngestConfigurationError(
                "authentication is required: give --api-keys FILE and/or --jwks FILE with --jwt-audience and "
                    + "--jwt-issuer (--insecure-no-auth only for a local demo)")
        }
        guard !(verified && auth.insecureNoAuth) else {
            throw IngestConfigurationError("--insecure-no-auth: cannot be combined with --api-keys or --jwks")
        }
        if auth.jwksFile != nil {
            guard auth.jwtAudience?.isEmpty == false, auth.jwtIssuer?.isEmpty == false else {
                throw IngestConfigurationError("--jwks: needs --jwt-audience and --jwt-issuer (both are checked)")
            }
        } else if auth.jwtAudience != nil || auth.jwtIssuer != nil || maxLifetime != nil {
            throw IngestConfigurationError("--jwt-audience, --jwt-issuer and --jwt-max-lifetime: only used with --jwks")
        }
        for (option, path) in [("--api-keys", auth.apiKeysFile), ("--jwks", auth.jwksFile)] {
            guard let path else { continue }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw IngestConfigurationError("\(option): cannot read '\(path)' (missing or not readable)")
            }
        }
        return auth
    }

    /// The largest `--jwt-max-lifetime`: 30 days.
    static let maximumJWTLifetimeSeconds = 30 * 86_400

    /// The bootstrap list (the one rule of every executable: `ParsedCommandLine.bootstrapServers(parsingFile:)`).
    /// - Returns: the list, and whether it came from a local devbroker's bootstrap file.
    static func bootstrapServers(_ args: ParsedCommandLine) throws(IngestConfigurationError) -> (String, Bool) {
        do throws(UsageError) {
            switch try args.bootstrapServers(parsingFile: KafkaBootstrapFile.naming(servers:)) {
            case .list(let servers): return (servers, false)
            case .file(let file): return (file.bootstrapServers, file.isLocalDevelopmentBroker)
            }
        } catch {
            throw IngestConfigurationError(error.message)
        }
    }

    /// `DVP_X_SASL_PASSWORD=…` → `sasl.password`, then `-X key=value` flags (which win).
    static func kafkaProperties(_ args: ParsedCommandLine) throws(IngestConfigurationError) -> [String: String] {
        var properties = args.environmentProperties(prefix: "DVP_X_")
        do throws(KafkaError) {
            for (key, value) in try KafkaProperties.parse(args.all("-X")) { properties[key] = value }
        } catch {
            throw IngestConfigurationError("-X: \(error.message)")
        }
        return properties
    }

    /// Refuses the librdkafka properties that would weaken "202 only once the broker acknowledged".
    static func refuseWeakerDelivery(_ properties: [String: String]) throws(IngestConfigurationError) {
        for key in ["enable.idempotence", "acks", "request.required.acks"] where properties[key] != nil {
            throw IngestConfigurationError("\(key): the gateway always publishes idempotently with acks=all")
        }
    }

    /// A number of seconds within the option's declared range (``IngestOptions``), nil when the option is absent.
    static func seconds(_ args: ParsedCommandLine, _ option: String) throws(IngestConfigurationError) -> Duration? {
        guard case .number(let range, _)? = args.declaration(option)?.valueType else {
            preconditionFailure("\(option) is not declared as a number")
        }
        guard let text = args.value(option) else { return nil }
        guard let seconds = Double(text), range.contains(seconds) else {
            throw IngestConfigurationError(
                "\(option): must be a number of seconds in \(range.lowerBound)...\(range.upperBound)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
