import Essentials
import SQLiteClient

extension SQLiteObservationStore {
    /// One `UPDATE` in a write transaction: SQLite's write lock keeps every worker out meanwhile.
    public func finalize(settledBefore: Int64) async throws -> Int {
        try await withConnection { connection in
            try connection.transaction {
                try connection.statement(
                    """
                    UPDATE observation SET \(Self.statusChange("final"))
                    FROM \(Self.lastUpdatedNow)
                    WHERE status = 'preliminary'
                        AND unixepoch(json_extract(resource, '$.effectivePeriod.end')) <= ?1
                    RETURNING 1
                    """
                ).query([.integer(settledBefore)]) { _ in 1 }.count
            }
        }
    }
}
