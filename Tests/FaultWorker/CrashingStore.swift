import DailyValueContract
import ObservationMapping
import StoreCore
import TestSupport

/// A store that reaches ``CrashPoint/afterUpsertBeforeOffsets`` after each upsert returned: the batch is durable
/// in the store, its offsets are not stored yet. Everything else is the wrapped store's.
struct CrashingStore: ObservationStore {
    let store: any ObservationStore

    var capabilities: StoreCapabilities { store.capabilities }

    func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertResult] {
        let outcomes = try await store.upsert(batch)
        CrashPoint.afterUpsertBeforeOffsets.reach()
        return outcomes
    }

    func observation(for identity: ObservationIdentity) async throws -> StoredObservation? {
        try await store.observation(for: identity)
    }

    func observations(patient: String) async throws -> [StoredObservation] {
        try await store.observations(patient: patient)
    }

    func outcomeCounts() async throws -> [MetricOutcomeCount] { try await store.outcomeCounts() }

    func allVersions() async throws -> [ObservationIdentity: Int64] { try await store.allVersions() }

    func close() async { await store.close() }
}
