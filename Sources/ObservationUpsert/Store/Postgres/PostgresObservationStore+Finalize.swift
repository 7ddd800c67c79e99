import PostgresClient

extension PostgresObservationStore {
    /// One `UPDATE`: a row a worker holds is waited for and its newest version checked again (still preliminary?)
    /// before it is flipped, so a concurrent newer version is never overwritten.
    public func finalize(settledBefore: Int64) async throws -> Int {
        try await withConnection { connection in
            try connection.execute(
                """
                UPDATE observation AS o SET \(PostgresRetraction.statusChange("final"))
                WHERE o.status = 'preliminary'
                    AND (o.resource -> 'effectivePeriod' ->> 'end')::timestamptz <= to_timestamp($1::bigint)
                RETURNING 1
                """, [String(settledBefore)]
            ).rowCount
        }
    }
}
