import IngestAuth
import Observability

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Everything the gateway is told at start-up, from flags or their `DVP_*` environment twins, validated once
/// (``parse(_:environment:)``).
public struct IngestConfiguration: Sendable {
    /// What one request, and all of them together, may cost.
    public struct Limits: Sendable {
        /// Records in one request; more: 413.
        public var maxRecords = 10_000
        /// Body bytes after `Content-Encoding: gzip` is undone; more: 413 (a gzip body stops inflating there).
        public var maxBodyBytes = 4 * 1024 * 1024
        /// Requests admitted and not yet answered; more: 429.
        public var maxConcurrentRequests = 256
        /// Body bytes the gateway holds for the admitted requests together — announced, then as received (a chunked
        /// body counts as it arrives), then inflated — until each is answered; more: 429.
        public var maxInFlightBytes = 64 * 1024 * 1024
        /// From a request's head to its answer: unacknowledged records by then make it 503.
        public var requestTimeout: Duration = .seconds(10)
        /// Requests of one tenant admitted at once; more: 429. Nil: no share of its own (``maxConcurrentRequests``).
        public var maxTenantRequests: Int?
        /// Body bytes one tenant's requests hold together; more: 429. Nil: no share of its own (``maxInFlightBytes``).
        public var maxTenantInFlightBytes: Int?
        /// A request head must be whole within this of its connection's start; a slower client is cut off.
        public var headTimeout: Duration = .seconds(5)
        /// Bytes per second a body must arrive at, on average, once ``headTimeout`` has passed since its head.
        public var minimumBodyRate = 8192

        /// ``maxTenantRequests`` as it applies.
        public var tenantRequests: Int { maxTenantRequests ?? maxConcurrentRequests }
        /// ``maxTenantInFlightBytes`` as it applies.
        public var tenantInFlightBytes: Int { maxTenantInFlightBytes ?? maxInFlightBytes }

        public init() {}
    }

    /// How the receipts of requests with an `Idempotency-Key` are kept.
    public struct Idempotency: Sendable {
        /// How long a receipt answers a retry with the same key and body.
        public var ttl: Duration = .seconds(86_400)
        /// Receipts kept at most (the oldest are dropped first).
        public var maxKeys = 10_000
        /// Records in the kept receipts at most.
        public var maxRecords = 1_000_000

        public init() {}
    }

    /// The credentials a request may carry (``IngestAuthentication/make(_:)`` turns them into verifiers).
    public struct Authentication: Sendable, Equatable {
        /// `--api-keys`: the file of hashed API keys with their scopes.
        public var apiKeysFile: String?
        /// `--jwks`: the JSON Web Key Set that verifies JWTs.
        public var jwksFile: String?
        /// `--jwt-audience`, `--jwt-issuer`: what every JWT must name.
        public var jwtAudience: String?
        public var jwtIssuer: String?
        /// `--jwt-max-lifetime`: the longest a JWT may be valid (``JWTPolicy/maxLifetime``).
        public var jwtMaxLifetime = JWTPolicy.defaultMaxLifetime
        /// `--insecure-no-auth`: no credential at all (local demos only).
        public var insecureNoAuth = false

        public init() {}
    }

    public var httpAddress = "0.0.0.0"
    public var httpPort = 8080
    /// The admin listener: `/healthz`, `/readyz` and `/metrics`, never served on the public port.
    public var adminAddress = "0.0.0.0"
    public var adminPort = 9465
    /// HTTP threads (libmicrohttpd's pool).
    public var threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
    public var maxConnections = 1024
    /// Requests one kept-alive connection may carry; the answer to the last says `Connection: close`.
    public var maxRequestsPerConnection = 1000
    /// 0: no per-address limit (a load balancer is one address).
    public var maxConnectionsPerAddress = 0
    public var brokers: String
    /// The bootstrap list came from a local devbroker's bootstrap file.
    public var brokersAreLocalDevelopmentBroker = false
    public var topic = "daily-values"
    /// librdkafka properties passed through as-is (`-X key=value`, `DVP_X_*`, property files), applied last.
    public var kafkaProperties: [String: String] = [:]
    /// `--catalog`: the metric catalog overrides, as the worker reads them.
    public var catalogFile: String?
    public var limits = Limits()
    public var idempotency = Idempotency()
    public var authentication = Authentication()
    /// `--erasure-store`: the erasure ledger requests are checked against (nil: none).
    public var erasure: Erasure?
    /// One deadline for the whole stop.
    public var drainTimeout: Duration = .seconds(30)
    public var logLevel = Logger.Level.info

    /// A configuration for `brokers` with every default.
    public init(brokers: String) {
        self.brokers = brokers
    }
}
