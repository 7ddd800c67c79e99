import DailyValueContract
import Essentials
import SQLiteClient
import StoreCore

extension SQLiteObservationStore: ObservationVersionReader {
    /// One probe of the key per identity (and of the ledger's when the day holds no row), through the statements the
    /// upsert prepared, all in one read transaction: a WAL read that waits for no writer. A worker's replay skips the
    /// records it finds here before mapping them.
    public func storedVersions(
        for identities: [ObservationIdentity]
    ) async throws -> [ObservationIdentity: HeldVersion] {
        guard !identities.isEmpty else { return [:] }
        return try await withConnection { connection in
            try connection.readTransaction {
                let reader = try SQLiteHeldReader(connection)
                var versions: [ObservationIdentity: HeldVersion] = [:]
                versions.reserveCapacity(identities.count)
                for identity in identities {
                    guard let held = try reader.held(SQLiteRowWriter.key(identity)) else { continue }
                    // A value holds the version only in a row not marked entered-in-error (the ledger holds none).
                    let value = held.stored && held.status != "entered-in-error" ? held.digest : nil
                    versions[identity] = HeldVersion(version: held.version, clinicalDigest: value)
                }
                return versions
            }
        }
    }
}
