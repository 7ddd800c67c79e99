import DailyValueContract
import Hashing
import ObservationMapping
import PostgresClient
import StoreCore

/// A PostgreSQL store over several connections (`--store-connections N`): each batch is split into lanes by a
/// stable hash of the patient, and the lanes are written at the same time, one transaction each, on a connection
/// of their own (``PostgresObservationStore``, each with its own counter shard).
///
/// Order: a patient's records always take the same lane and keep their order within it, and the worker writes
/// one batch at a time, so every identity's records reach the database in the order they were read — what the
/// version guard, `amended` and the first-stored-wins rule of an equal version rely on (docs/LIFECYCLE.md). Lanes
/// hold disjoint identities, so their row locks never meet. The batch is durable when every lane committed; when a
/// lane fails the batch fails as a whole and is retried whole: the lanes that had committed answer their records
/// again as `unchanged` (the store's counters then count those records twice, as after any retry of a committed
/// batch, e.g. a crash before the offsets were stored).
public final class LanedPostgresStore: ObservationStore, ObservationVersionReader {
    /// The lanes' stores; lane 0 also serves the reads.
    let lanes: [PostgresObservationStore]

    /// Opens `connections` stores on `connectionString` (the first creates or migrates the schema).
    /// - Throws: ``StoreError`` as ``PostgresObservationStore/init(connectionString:options:retractionMode:counterShard:)``.
    public init(
        connectionString: String, connections: Int, options: PostgresClientOptions = PostgresClientOptions(),
        retractionMode: RetractionMode = .enteredInError, erasureKey: ErasureKey? = nil
    ) async throws {
        precondition(connections >= 1, "at least one connection")
        let firstShard = Int16.random(in: 0..<16)
        var lanes: [PostgresObservationStore] = []
        do {
            for lane in 0..<connections {
                lanes.append(
                    try await PostgresObservationStore(
                        connectionString: connectionString, options: options, retractionMode: retractionMode,
                        erasureKey: erasureKey,
                        counterShard: (firstShard + Int16(lane)) % 16))
            }
        } catch {
            for store in lanes { await store.close() }
            throw error
        }
        self.lanes = lanes
    }

    /// The lane of `patient`'s records.
    package func lane(of patient: String) -> Int { Int(FNV1a.hash(patient.utf8) % UInt64(lanes.count)) }

    /// Upserts, version reads and the erasure ledger (lane 0); the other maintenance operations open a
    /// single-connection store.
    public var capabilities: StoreCapabilities {
        StoreCapabilities(versionReader: self, erasure: lanes[0], documentEncoder: lanes[0].documentEncoder)
    }

    public func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertResult] {
        guard lanes.count > 1 else { return try await lanes[0].upsert(batch) }
        let split = Self.split(batch.indices, count: lanes.count) { lane(of: batch[$0].identity.patient) }
        var outcomes = [UpsertResult](repeating: .unchanged, count: batch.count)
        try await withThrowingTaskGroup(of: (Int, [UpsertResult]).self) { group in
            for (lane, indices) in split.enumerated() where !indices.isEmpty {
                let (store, records) = (lanes[lane], indices.map { batch[$0] })
                group.addTask { (lane, try await store.upsert(records)) }
            }
            var failures: [any Error] = []
            while let next = await group.nextResult() {
                switch next {
                case .success(let (lane, laneOutcomes)):
                    for (index, outcome) in zip(split[lane], laneOutcomes) { outcomes[index] = outcome }
                case .failure(let error):
                    failures.append(error)  // the other lanes finish (commit or fail) before the batch fails
                }
            }
            if let failure = Self.mostTelling(failures) { throw failure }
        }
        return outcomes
    }

    /// Reads the lanes' identities on their own connections at the same time.
    public func storedVersions(for identities: [ObservationIdentity]) async throws -> [ObservationIdentity: HeldVersion]
    {
        guard lanes.count > 1 else { return try await lanes[0].storedVersions(for: identities) }
        let split = Self.split(identities.indices, count: lanes.count) { lane(of: identities[$0].patient) }
        return try await withThrowingTaskGroup(of: [ObservationIdentity: HeldVersion].self) { group in
            for (lane, indices) in split.enumerated() where !indices.isEmpty {
                let (store, keys) = (lanes[lane], indices.map { identities[$0] })
                group.addTask { try await store.storedVersions(for: keys) }
            }
            var held: [ObservationIdentity: HeldVersion] = [:]
            for try await part in group { held.merge(part) { $1 } }
            return held
        }
    }

    public func observation(for identity: ObservationIdentity) async throws -> StoredObservation? {
        try await lanes[0].observation(for: identity)
    }

    public func observations(patient: String) async throws -> [StoredObservation] {
        try await lanes[0].observations(patient: patient)
    }

    public func outcomeCounts() async throws -> [MetricOutcomeCount] { try await lanes[0].outcomeCounts() }

    public func allVersions() async throws -> [ObservationIdentity: Int64] { try await lanes[0].allVersions() }

    public func close() async {
        for store in lanes { await store.close() }
    }

    /// The failure a batch whose lanes failed reports: one no retry cures first (a retriable one that happened to
    /// end sooner must not hide it, batch after batch), then a client-side timeout, then a lost connection, then the
    /// rest. A lane stalled on a frozen backend times out after `--store-timeout`, while the lanes waiting for its
    /// locks fail sooner, as `busy`: the timeout names the cause. Nil when nothing failed.
    package static func mostTelling(_ failures: [any Error]) -> (any Error)? {
        func rank(_ error: any Error) -> Int {
            guard let error = error as? StoreError else { return 0 }  // not a store's error: a defect, say it first
            if !error.isRetriable { return 1 }
            switch error.code {
            case .timeout: return 2
            case .connection: return 3
            default: return 4
            }
        }
        return failures.enumerated().min { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }?.element
    }

    /// `indices` grouped by `lane`, each group in input order.
    private static func split(_ indices: Range<Int>, count: Int, lane: (Int) -> Int) -> [[Int]] {
        var split = [[Int]](repeating: [], count: count)
        for index in indices { split[lane(index)].append(index) }
        return split
    }
}
