import Essentials
import SQLiteClient
import StoreCore

extension SQLiteObservationStore {
    public func finalize(settledBefore: Int64) async throws -> Int {
        try await finalize(settledBefore: settledBefore, chunkSize: FinalizeChunk.rows)
    }

    /// Chunk by chunk in key order (through index `observation_preliminary`), each chunk its own write
    /// transaction, so workers wait for one chunk at most; under the write lock no worker writes meanwhile.
    func finalize(settledBefore: Int64, chunkSize: Int) async throws -> Int {
        try await withConnection { connection in
            var (finalized, last): (Int, [SQLiteValue]) = (0, [.text(""), .text(""), .text("")])
            while true {
                let (flipped, next) = try connection.transaction {
                    let after = [.integer(settledBefore)] + last + [.integer(Int64(chunkSize))]
                    // The chunk's last key; none when fewer rows than a chunk are left (this chunk is the last).
                    let bound = try connection.statement(
                        "SELECT day, patient, metric FROM observation WHERE \(Self.settledAfter) "
                            + "ORDER BY day, patient, metric LIMIT 1 OFFSET ?5 - 1"
                    ).query(after) { row -> [SQLiteValue] in
                        [.text(row.text(0)), .text(row.text(1)), .text(row.text(2))]
                    }.first
                    let flipped = try connection.statement(
                        """
                        UPDATE observation SET \(Self.statusChange("final")) FROM \(Self.lastUpdatedNow)
                        WHERE observation.rowid IN (SELECT rowid FROM observation WHERE \(Self.settledAfter)
                            ORDER BY day, patient, metric LIMIT ?5)
                        RETURNING 1
                        """
                    ).query(after) { _ in 1 }.count
                    return (flipped, bound)
                }
                finalized += flipped
                guard let next else { return finalized }
                last = next
            }
        }
    }

    /// Settled preliminary rows after key `(?2, ?3, ?4)` (day, patient, metric): `effectivePeriod.end` ≤ `?1` (the
    /// `period_end` column, or an older row's resource text),
    /// which implies `day` ≤ the UTC date of `?1` (offsets stay below a day).
    private static let settledAfter = """
        status = 'preliminary' AND day <= date(?1, 'unixepoch') AND (day, patient, metric) > (?2, ?3, ?4)
            AND CASE WHEN resource = '' THEN period_end
                ELSE unixepoch(json_extract(resource, '$.effectivePeriod.end')) END <= ?1
        """
}
