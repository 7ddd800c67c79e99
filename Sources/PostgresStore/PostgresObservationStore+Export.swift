import Essentials
import PostgresClient
import StoreCore

/// `storectl export` on PostgreSQL: a server-side cursor in one REPEATABLE READ transaction, and the transaction's
/// snapshot as the mark.
///
/// A row changed after an export was written by a transaction that export's snapshot does not see: its `xmin`
/// (the writer of the row version) is not visible in the mark. That holds for writers still in progress when the
/// snapshot was taken and committing later, which a timestamp mark would miss (`last_updated` is the writer's
/// start, not its commit). The 32-bit `xmin` is widened to the 64-bit id with the current snapshot's epoch: a row
/// version is always older than the snapshot that reads it.
extension PostgresObservationStore: ObservationExporting {
    static let markKind = "postgres-snapshot"

    public func exportObservations(
        since: ExportMark?, chunkSize: Int, _ chunk: @escaping @Sendable ([StoredObservation]) throws -> Void,
        deleted: @escaping @Sendable ([String]) throws -> Void
    ) async throws -> ExportMark {
        let previous = try since.map(Self.snapshot(of:))
        let codecs = codecs
        let chunkSize = max(1, chunkSize)
        return try await withConnection { connection in
            try connection.transaction {
                try connection.executeScript("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
                let current = try PostgresSnapshot(connection.execute("SELECT pg_current_snapshot()::text").text(0, 0))
                if let previous, previous.xmin > current.xmax {
                    throw StoreError(
                        .usage,
                        "the mark \(since!) is newer than this database's transactions: an export of another "
                            + "server, or of a database restored from an older backup")
                }
                try connection.executeScript(
                    "DECLARE observation_export NO SCROLL CURSOR FOR " + Self.selectColumns
                        + (previous.map { " WHERE " + Self.changed(since: $0, readAt: current) } ?? ""))
                while true {
                    let result = try connection.execute("FETCH \(chunkSize) FROM observation_export")
                    guard result.rowCount > 0 else { break }
                    try chunk(try result.rows { try Self.stored(result, $0, codecs.decompressor) })
                }
                if let previous {
                    // The ids erased by transactions the earlier snapshot does not see: after it, by this one.
                    let ids = try connection.execute(
                        "SELECT resource_id FROM erased_resource WHERE "
                            + Self.changed(since: previous, readAt: current) + " ORDER BY resource_id")
                    let all = ids.rows { ids.text($0, 0) }
                    for start in stride(from: 0, to: all.count, by: chunkSize) {
                        try deleted(Array(all[start..<min(start + chunkSize, all.count)]))
                    }
                }
                return ExportMark(Self.markKind + ":" + current.text)
            }
        }
    }

    private static func snapshot(of mark: ExportMark) throws -> PostgresSnapshot {
        guard let text = mark.value(of: markKind), let snapshot = try? PostgresSnapshot(String(text)) else {
            throw StoreError(
                .usage, "the mark '\(mark)' is not a PostgreSQL export's (\(markKind):XMIN:XMAX:XIP,…)")
        }
        return snapshot
    }

    /// SQL true for a row version whose writer `previous` does not see. Both snapshots are checked literals.
    private static func changed(since previous: PostgresSnapshot, readAt current: PostgresSnapshot) -> String {
        let epoch = (current.xmax >> 32) << 32
        let low = current.xmax & 0xFFFF_FFFF
        // xids 0-2 are the special ones (invalid, bootstrap, frozen): older than any snapshot.
        return """
            xmin::text::bigint > 2 AND NOT pg_visible_in_snapshot(
                (\(epoch) + xmin::text::bigint - CASE WHEN xmin::text::bigint >= \(low) THEN 4294967296 ELSE 0 END)
                    ::text::xid8,
                '\(previous.text)'::pg_snapshot)
            """
    }
}

/// A `pg_snapshot` in its text form `XMIN:XMAX:XIP,…`, checked (so that it can be written into SQL as a literal).
struct PostgresSnapshot: Sendable {
    let text: String
    let xmin: UInt64
    let xmax: UInt64

    init(_ text: String) throws {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]), xmin <= xmax,
            parts[2].split(separator: ",").allSatisfy({ UInt64($0) != nil }), xmax < 1 << 62
        else { throw StoreError(.query, "not a PostgreSQL snapshot: '\(text)'") }
        (self.text, self.xmin, self.xmax) = (text, xmin, xmax)
    }
}
