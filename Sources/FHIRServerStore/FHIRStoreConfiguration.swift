import Essentials
import HTTPClient
import ObservationMapping
import StoreCore

/// How a ``FHIRObservationStore`` talks to its FHIR R4 server.
public struct FHIRStoreConfiguration: Sendable {
    /// The server's base URL (`https://host/fhir`), without a trailing slash.
    public var baseURL: String
    /// Connections, timeouts, TLS and mTLS of the HTTP client (its `userAgent` is set from ``userAgent``).
    public var http = HTTPClientConfiguration()
    /// Entries per `batch` Bundle (reads and writes): 1…500 (Azure Health Data Services' limit is 500).
    public var batchSize = 100
    /// How many Bundles (each a read, then guarded writes) one upsert keeps in flight at once: 1…16. The HTTP
    /// client opens at least as many connections.
    public var bundlesInFlight = 4
    /// Read-decide-write rounds per record when the server answers 409/412 (another writer got there first).
    public var conflictAttempts = 5
    /// Waits per request for a 429/503 answer, honouring `Retry-After`, before the upsert fails as `busy`.
    public var throttleAttempts = 5
    /// The longest `Retry-After` honoured; a longer one is cut to this.
    public var maxRetryAfter: Duration = .seconds(30)
    /// The code system of the `meta.tag` that carries the event version on every written Observation (the code is
    /// the version in decimal). The stored copy's tag is what a new record is compared with.
    public var versionTagSystem = FHIRStoreConfiguration.defaultVersionTagSystem
    /// The `identifier.system` the mapper writes (``ObservationMapper/Configuration/identifierSystem``): reads by
    /// identity search it.
    public var identifierSystem = "https://fhir.example.org/identifiers/daily-summary"
    /// How requests are authorised.
    public var authorization: FHIRAuthorization = .none
    /// `User-Agent`: `daily-values-pipeline/<version>`.
    public var userAgent = "daily-values-pipeline"
    /// The key events' persons are hashed with for the erasure ledger (the worker's id key or erasure key); nil: a
    /// store that refuses to write while its ledger has entries (docs/PRIVACY.md).
    public var erasureKey: ErasureKey?
    /// How long an erasure keeps deleting what a batch already in flight may still write (the server has no lock
    /// an erasure could take): after its ledger entry is visible it deletes, waits until this has passed, and
    /// searches again. The longer of this and the HTTP request timeout is used (``effectiveErasureSettle``).
    public var erasureSettle: Duration = .seconds(45)
    /// How an erasure purges the deleted Observations' history; nil: from the server's software
    /// (``FHIRHistoryPurge/detected(software:)``).
    public var historyPurge: FHIRHistoryPurge?

    /// ``erasureSettle``, at least the HTTP request timeout (``HTTPClientConfiguration/requestTimeout``): a write
    /// Bundle sent before the ledger entry was visible has been answered, or abandoned, by then.
    public var effectiveErasureSettle: Duration { max(erasureSettle, http.requestTimeout) }

    /// The product's code system for the event version tag.
    public static let defaultVersionTagSystem =
        "https://fhir.example.org/CodeSystem/daily-values-pipeline/event-version"
    /// Azure Health Data Services' limit on entries per Bundle.
    public static let maxBatchSize = 500
    /// The most Bundles one upsert keeps in flight.
    public static let maxBundlesInFlight = 16

    public init(baseURL: String) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }

    /// The Observation as the FHIR store writes `record`: the mapped head and tail with the version tag first in
    /// `meta` (tools and tests that write as the store would).
    public func resource(for record: ObservationRecord) -> [UInt8] {
        FHIRBundle.resourceBytes(record, versionTagSystem: versionTagSystem)
    }

    /// Checks the settings.
    /// - Throws: ``StoreError`` (`usage`) naming the setting that is wrong.
    public func validate() throws {
        guard baseURL.hasPrefix("https://") || baseURL.hasPrefix("http://") else {
            throw StoreError(.usage, "the FHIR base URL must start with https:// or http:// (got '\(Redaction.withoutQuery(baseURL))')")
        }
        guard (1...Self.maxBatchSize).contains(batchSize) else {
            throw StoreError(.usage, "the FHIR batch size must be 1…\(Self.maxBatchSize) (got \(batchSize))")
        }
        guard (1...Self.maxBundlesInFlight).contains(bundlesInFlight) else {
            throw StoreError(
                .usage, "the FHIR Bundles in flight must be 1…\(Self.maxBundlesInFlight) (got \(bundlesInFlight))")
        }
        guard conflictAttempts >= 1, throttleAttempts >= 1 else {
            throw StoreError(.usage, "the FHIR conflict and throttle attempts must be at least 1")
        }
        do { try http.validate() } catch let error as HTTPClientError {
            throw StoreError(.usage, error.message)
        }
    }
}

/// How the FHIR store authorises its requests.
public enum FHIRAuthorization: Sendable, Hashable {
    case none
    /// `Authorization: Bearer <token>` with the token read from a file (trimmed), re-read whenever the file changes
    /// (a mounted Kubernetes secret or a sidecar that refreshes it).
    case bearerTokenFile(path: String)
    /// OAuth2 client credentials (RFC 6749 §4.4): a token from `tokenURL`, cached until shortly before it expires.
    case clientCredentials(OAuth2ClientCredentials)
}

/// An OAuth2 client-credentials grant.
public struct OAuth2ClientCredentials: Sendable, Hashable {
    public var tokenURL: String
    public var clientID: String
    public var clientSecret: String
    /// The `scope` parameter, e.g. `system/Observation.write`; omitted when nil.
    public var scope: String?

    public init(tokenURL: String, clientID: String, clientSecret: String, scope: String? = nil) {
        self.tokenURL = tokenURL
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.scope = scope
    }
}
