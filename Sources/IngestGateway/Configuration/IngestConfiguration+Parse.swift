import CommandLineOptions
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
        let (brokers, fromDevBroker) = try bootstrapServers(args)
        var config = IngestConfiguration(brokers: brokers)
        config.brokersFromDevBroker = fromDevBroker
        if let v = args.value("--http-address") { config.httpAddress = v }
        config.httpPort = try args.integer("--http-port", in: 0...65_535) ?? config.httpPort
        if let v = args.value("--admin-address") { config.adminAddress = v }
        config.adminPort = try args.integer("--admin-port", in: 0...65_535) ?? config.adminPort
        guard config.adminPort != config.httpPort || config.adminPort == 0 else {
            throw IngestConfigurationError("--admin-port: must differ from --http-port (the probes have their own)")
        }
        config.threads = try args.integer("--threads", in: 1...64) ?? config.threads
        config.maxConnections = try args.integer("--max-connections", in: 1...65_536) ?? config.maxConnections
        config.maxRequestsPerConnection =
            try args.integer("--max-requests-per-connection", in: 1...1_000_000) ?? config.maxRequestsPerConnection
        config.maxConnectionsPerAddress =
            try args.integer("--max-connections-per-address", in: 0...65_536) ?? config.maxConnectionsPerAddress
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
        limits.maxRecords = try args.integer("--max-records", in: 1...1_000_000) ?? limits.maxRecords
        limits.maxBodyBytes = try args.integer("--max-body-bytes", in: 1024...(1 << 30)) ?? limits.maxBodyBytes
        limits.maxConcurrentRequests =
            try args.integer("--max-concurrent-requests", in: 1...65_536) ?? limits.maxConcurrentRequests
        limits.maxInFlightBytes =
            try args.integer("--max-in-flight-bytes", in: 1024...(1 << 40)) ?? limits.maxInFlightBytes
        limits.requestTimeout = try seconds(args, "--request-timeout", in: 0.1...600) ?? limits.requestTimeout
        guard limits.maxInFlightBytes >= limits.maxBodyBytes else {
            throw IngestConfigurationError(
                "--max-in-flight-bytes: must be at least --max-body-bytes (one request of the largest size must fit)")
        }
        limits.maxTenantRequests = try args.integer("--max-tenant-requests", in: 1...limits.maxConcurrentRequests)
        limits.maxTenantInFlightBytes = try args.integer(
            "--max-tenant-in-flight-bytes", in: limits.maxBodyBytes...limits.maxInFlightBytes)
        limits.headTimeout = try seconds(args, "--head-timeout", in: 0.1...600) ?? limits.headTimeout
        limits.minimumBodyRate = try args.integer("--min-body-rate", in: 0...(1 << 30)) ?? limits.minimumBodyRate
        config.limits = limits

        config.idempotency.ttl = try seconds(args, "--idempotency-ttl", in: 1...(30 * 86_400)) ?? config.idempotency.ttl
        config.idempotency.maxKeys =
            try args.integer("--idempotency-max-keys", in: 0...10_000_000) ?? config.idempotency.maxKeys
        config.idempotency.maxRecords =
            try args.integer("--idempotency-max-records", in: 0...1_000_000_000) ?? config.idempotency.maxRecords

        config.authentication = try authentication(args)
        config.drainTimeout = try seconds(args, "--drain-timeout", in: 1...3600) ?? config.drainTimeout
        if let v = args.value("--log-level") {
            guard let level = Logger.Level(name: v) else {
                throw IngestConfigurationError("--log-level: not one of debug, info, warning, error")
            }
            config.logLevel = level
        }
        return config
    }

    /// The credential flags: at least one way in, `--insecure-no-auth` alone, JWTs with their audience and issuer.
    static func authentication(_ args: ParsedCommandLine) throws(IngestConfigurationError) -> Authentication {
        var auth = Authentication()
        auth.apiKeysFile = args.value("--api-keys")
        auth.jwksFile = args.value("--jwks")
        auth.jwtAudience = args.value("--jwt-audience")
        auth.jwtIssuer = args.value("--jwt-issuer")
        let maxLifetime = try seconds(args, "--jwt-max-lifetime", in: 1...Double(maximumJWTLifetimeSeconds))
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
            switch try args.bootstrapServers(parsingFile: KafkaMockCluster.BootstrapFile.naming(servers:)) {
            case .list(let servers): return (servers, false)
            case .file(let file): return (file.bootstrapServers, file.isLocalDevBroker)
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

    /// A number of seconds within `range`, nil when the option is absent.
    static func seconds(
        _ args: ParsedCommandLine, _ option: String, in range: ClosedRange<Double>
    ) throws(IngestConfigurationError) -> Duration? {
        guard let text = args.value(option) else { return nil }
        guard let seconds = Double(text), range.contains(seconds) else {
            throw IngestConfigurationError(
                "\(option): must be a number of seconds in \(range.lowerBound)...\(range.upperBound)")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
