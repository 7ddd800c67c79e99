import DailyValueContract
import Essentials
import PostgresClient
import StoreCore

extension PostgresObservationStore: ObservationVersionReader {
    /// One `SELECT … JOIN unnest(…)` over the primary key, outside any transaction (autocommit).
    public func storedVersions(
        for identities: [ObservationIdentity]
    ) async throws -> [ObservationIdentity: HeldVersion] {
        guard !identities.isEmpty else { return [:] }
        return try await withConnection { try PostgresUpsert.storedVersions(identities, on: $0) }
    }
}
