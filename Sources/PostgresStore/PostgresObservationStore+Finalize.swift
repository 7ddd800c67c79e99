import PostgresClient
import StoreCore

extension PostgresObservationStore {
    public func finalize(settledBefore: Int64) async throws -> Int {
        try await finalize(settledBefore: settledBefore, chunkSize: FinalizeChunk.rows)
    }

    /// Chunk by chunk in key order, each chunk one short statement (its own transaction, well within the round-trip
    /// and statement timeouts): it locks up to `chunkSize` settled preliminary rows with `SKIP LOCKED` and flips them
    /// under the same guard. A row a worker holds is skipped (the next run gets it), so finalize never waits for a
    /// worker and holds a worker up for one chunk at most; a row a worker committed meanwhile is locked and judged
    /// as committed (still preliminary?), so a newer version is never overwritten.
    func finalize(settledBefore: Int64, chunkSize: Int) async throws -> Int {
        try await withConnection { connection in
            var (finalized, last) = (0, ["", "", ""])
            while true {
                let chunk = try connection.execute(
                    Self.finalizeChunkSQL, [String(settledBefore)] + last + [String(chunkSize)])
                guard chunk.rowCount == 1 else { return finalized }
                finalized += Int(try chunk.integer(0, 1))
                last = [chunk.text(0, 2), chunk.text(0, 3), chunk.text(0, 4)]
                if try chunk.integer(0, 0) < chunkSize { return finalized }
            }
        }
    }

    /// One chunk after key `($2, $3, $4)` (day, patient, metric; through index `observation_preliminary`): the
    /// rows locked, the rows flipped and the chunk's last key; no row when nothing is left. A day is settled when
    /// `effectivePeriod.end` ≤ `$1`, which implies `day` ≤ the UTC date of `$1` (offsets stay below a day).
    static let finalizeChunkSQL = """
        WITH chunk AS (
            SELECT day, patient, metric FROM observation AS o
            WHERE o.status = 'preliminary'
                AND o.day <= to_char(to_timestamp($1::bigint) AT TIME ZONE 'UTC', 'YYYY-MM-DD')
                AND (o.day, o.patient, o.metric) > ($2, $3, $4) AND \(settled)
            ORDER BY day, patient, metric LIMIT $5::integer
            FOR UPDATE SKIP LOCKED
        ), flipped AS (
            UPDATE observation AS o SET \(PostgresRetraction.statusChange("final"))
            FROM chunk AS c
            WHERE (o.patient, o.metric, o.day) = (c.patient, c.metric, c.day)
                AND o.status = 'preliminary' AND \(settled)
            RETURNING 1
        )
        SELECT (SELECT count(*) FROM chunk), (SELECT count(*) FROM flipped), last.day, last.patient, last.metric
        FROM (SELECT day, patient, metric FROM chunk ORDER BY day DESC, patient DESC, metric DESC LIMIT 1) AS last
        """

    /// The local day's end: the column, or a schema-3 row's resource (which wins when set: see ``selectColumns``).
    private static let settled = """
        CASE WHEN o.resource IS NULL THEN o.period_end
            ELSE (o.resource -> 'effectivePeriod' ->> 'end')::timestamptz END <= to_timestamp($1::bigint)
        """
}
