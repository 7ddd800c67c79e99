import DailyValueContract
import Essentials
import HTTPClient
import JSON
import ObservationMapping
import StoreCore
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A FHIR R4 server as the store: `PUT Observation/{id}` (the HMAC id, update-as-create) in `batch` Bundles, each
/// replace guarded by `If-Match` on the server's version id, the event version carried on a `meta.tag`
/// (``FHIRStoreConfiguration/versionTagSystem``) and compared exactly as the SQL stores compare their column.
///
/// Erasure and consent withdrawal (`ObservationErasing`, FHIRObservationStore+Erasure.swift) keep their ledger on
/// the server as `Basic` resources; every read Bundle also reads its state, and a refused person's records are
/// `erased`, never sent.
///
/// The server owns `meta.versionId` and `meta.lastUpdated`. Outcome counters live in this process since the store
/// was opened (the server has no place for them). Reads by patient and ``allVersions()`` page through every
/// Observation carrying the version tag: tools and tests only, not the hot path.
public final class FHIRObservationStore: ObservationStore {
    public let configuration: FHIRStoreConfiguration
    /// What the server's CapabilityStatement said at start-up.
    public let serverCapabilities: FHIRCapabilities
    let rest: FHIRRestClient
    /// The refused persons, cached per ledger generation (``FHIRStoreConfiguration/erasureKey``).
    let erasureGuard: ErasureGuard
    private let http: HTTPClient
    private let counts = Mutex<[CounterKey: Int64]>([:])
    private let closed = Atomic(false)

    /// Connects and reads the server's `/metadata`.
    /// - Throws: ``StoreError``: `usage` for a bad configuration, a base URL with no FHIR server behind it (404,
    ///   not a CapabilityStatement) or a server that does not declare Observation `history-instance`; `connection`,
    ///   `timeout` or `unauthorized` when the server cannot be asked.
    public init(configuration: FHIRStoreConfiguration) async throws {
        try configuration.validate()
        var httpConfiguration = configuration.http
        httpConfiguration.userAgent = configuration.userAgent
        httpConfiguration.maxConnections = max(httpConfiguration.maxConnections, configuration.bundlesInFlight)
        do { http = try HTTPClient(httpConfiguration) } catch let error as HTTPClientError {
            throw StoreError(.usage, "FHIR store HTTP client: \(error.message)")
        }
        self.configuration = configuration
        erasureGuard = ErasureGuard(key: configuration.erasureKey)
        rest = FHIRRestClient(
            http: http, token: FHIRAccessToken(configuration.authorization, http: http), configuration: configuration)
        let metadata = try await rest.send("GET", "metadata")
        guard (200..<300).contains(metadata.status),
            let statement = JSONValue.anyObject(metadata.body),
            statement["resourceType"] as? String == "CapabilityStatement"
        else {
            throw StoreError(
                .usage, nativeCode: String(metadata.status),
                "no FHIR server at \(Redaction.withoutQuery(configuration.baseURL)): GET /metadata answered \(metadata.status) without a "
                    + "CapabilityStatement; check the store URL's base path")
        }
        serverCapabilities = FHIRCapabilities(statement, httpVersion: metadata.httpVersion)
        guard serverCapabilities.historyInstance else {
            await http.close()
            throw StoreError(
                .usage,
                "the FHIR server at \(Redaction.withoutQuery(configuration.baseURL)) does not declare the Observation history-instance "
                    + "interaction (`_history`) in its CapabilityStatement: without it the store cannot check what a "
                    + "create that races another writer replaced, so it is not safe there; enable versioned history")
        }
    }

    // MARK: - ObservationStore

    public var capabilities: StoreCapabilities { StoreCapabilities(server: self, erasure: self) }

    public func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertResult] {
        try checkOpen()
        guard !batch.isEmpty else { return [] }
        let plan = UpsertPlan(batch)
        var decided: [Int: UpsertOutcome] = [:]
        var reasons: [Int: String] = [:]
        // Not supported yet: a retraction needs an entered-in-error write and a ledger on the server. One of a
        // refused person is `erased` (never dead-lettered with its content).
        let retractions = plan.winners.filter { batch[$0].retractionReason != nil }
        if !retractions.isEmpty {
            let mask = try await refusedMask(
                retractions.map { batch[$0].identity.patient }, ledger: try await ledgerState())
            for (position, index) in retractions.enumerated() {
                if mask?[position] == true {
                    decided[index] = .erased
                } else {
                    reasons[index] = Self.retractionsUnsupported
                }
            }
        }
        let winners = plan.winners.filter { batch[$0].retractionReason == nil }
        let chunks = stride(from: 0, to: winners.count, by: configuration.batchSize).map {
            Array(winners[$0..<min($0 + configuration.batchSize, winners.count)])
        }
        try await decideConcurrently(chunks, of: batch, into: &decided, refused: &reasons)
        for index in reasons.keys { decided[index] = .stale }  // placeholders: refused below
        let planned = plan.outcomes(for: batch, winnerOutcomes: decided)
        let outcomes: [UpsertOutcome?] = batch.indices.map { index in
            let winner = plan.winner(of: index)
            guard reasons[winner] == nil else { return nil }
            return decided[winner] == .erased ? .erased : planned[index]  // every record of an erased person
        }
        count(batch, outcomes)
        return batch.indices.map { index in
            if let reason = reasons[plan.winner(of: index)] { return .refused(reason: reason) }
            return UpsertResult(outcomes[index]!)
        }
    }

    /// Why a retraction is refused (dead-lettered, nothing lost): docs/LIFECYCLE.md.
    package static let retractionsUnsupported = "the FHIR server store does not support retractions yet (docs/LIFECYCLE.md)"

    public func observation(for identity: ObservationIdentity) async throws -> StoredObservation? {
        try checkOpen()
        let token = Self.queryEncoded(configuration.identifierSystem + "|" + identity.key)
        return try await search("Observation?identifier=\(token)").compactMap(\.stored)
            .first { $0.identity == identity }
    }

    public func observations(patient: String) async throws -> [StoredObservation] {
        try await allCopies().filter { $0.identity.patient == patient }
            .sorted { ($0.identity.metric, $0.identity.day) < ($1.identity.metric, $1.identity.day) }
    }

    public func outcomeCounts() async throws -> [MetricOutcomeCount] {
        counts.withLock { $0 }.map {
            MetricOutcomeCount(metric: $0.key.metric, outcome: $0.key.outcome, count: $0.value)
        }
        .sorted { ($0.metric, $0.outcome.rawValue) < ($1.metric, $1.outcome.rawValue) }
    }

    public func allVersions() async throws -> [ObservationIdentity: Int64] {
        Dictionary(try await allCopies().map { ($0.identity, $0.version) }, uniquingKeysWith: max)
    }

    public func close() async {
        closed.store(true, ordering: .releasing)
        await http.close()
    }

    // MARK: - Reads

    /// Every Observation carrying the version tag, following the searchset's `next` links.
    private func allCopies() async throws -> [StoredObservation] {
        try checkOpen()
        let tag = Self.queryEncoded(configuration.versionTagSystem + "|")
        return try await search("Observation?_tag=\(tag)&_count=500").compactMap(\.stored)
    }

    /// The most pages one search follows (500 Observations each).
    static let maxSearchPages = 100_000

    /// The Observations of a search, every page.
    func search(_ path: String) async throws -> [FHIRCopy] {
        try await searchResources(path, type: "Observation").compactMap(copy)
    }

    /// The resources of `type` a search matched, every page; `headers` go with every page's request.
    func searchResources(_ path: String, type: String, headers: [(name: String, value: String)] = []) async throws
        -> [[String: Any]]
    {
        var resources: [[String: Any]] = []
        var next: String? = path
        var followed: Set<String> = []
        while let page = next {
            // A server that repeats a `next` link would otherwise keep this loop going for ever.
            guard followed.insert(page).inserted, followed.count <= Self.maxSearchPages else {
                throw StoreError(
                    .query, "GET \(Redaction.withoutQuery(page)): the search's `next` links repeat or exceed \(Self.maxSearchPages) pages")
            }
            let response = try await rest.send("GET", page, headers: headers)
            guard (200..<300).contains(response.status),
                let bundle = JSONValue.anyObject(response.body)
            else {
                throw StoreError(
                    .query, nativeCode: String(response.status),
                    "GET \(Redaction.withoutQuery(page)): \(FHIRRestClient.answerSummary(response))")
            }
            for entry in bundle["entry"] as? [[String: Any]] ?? [] {
                guard let resource = entry["resource"] as? [String: Any], resource["resourceType"] as? String == type
                else { continue }
                resources.append(resource)
            }
            let links = bundle["link"] as? [[String: Any]] ?? []
            next = links.first { $0["relation"] as? String == "next" }?["url"] as? String
        }
        return resources
    }

    func copy(_ resource: [String: Any]) -> FHIRCopy? {
        FHIRCopy(
            resource, versionTagSystem: configuration.versionTagSystem,
            identifierSystem: configuration.identifierSystem)
    }

    // MARK: - Helpers

    func checkOpen() throws {
        if closed.load(ordering: .acquiring) {
            throw StoreError(.usage, "the FHIR store \(Redaction.withoutQuery(configuration.baseURL)) is closed")
        }
    }

    private func count(_ batch: [ObservationRecord], _ outcomes: [UpsertOutcome?]) {
        counts.withLock { totals in
            for (record, outcome) in zip(batch, outcomes) {
                guard let outcome else { continue }
                totals[CounterKey(metric: record.identity.metric, outcome: outcome), default: 0] += 1
            }
        }
    }

    static func queryEncoded(_ text: String) -> String {
        PercentEncoding.encoded(text)
    }
}

/// A key of the FHIR store's in-process outcome totals.
private struct CounterKey: Hashable {
    var metric: String
    var outcome: UpsertOutcome
}
