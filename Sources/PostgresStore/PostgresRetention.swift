import Essentials
import PostgresClient
import StoreCore

/// The retention horizon on PostgreSQL (docs/PARTITIONING.md).
///
/// Every batch reads the horizon first, holding a shared advisory lock for its transaction; moving the horizon takes
/// that lock exclusively, so it waits for the batches in flight, and every later batch sees the new horizon. The
/// partitions are dropped after the horizon is committed: nothing written afterwards lands in them.
enum PostgresRetention {
    /// The lock batches hold shared and a horizon move exclusively ("DVP_RTN").
    static let lockKey = "4923418417094643023"
    /// The lock `observation_ensure_partitions` takes (schema 8): a horizon move takes it too, so that no partition
    /// is created for a month it is about to expire.
    static let partitionLockKey = "4923418417094643022"

    /// What a batch reads first, under the shared lock: the horizon (nil: none set) and the erasure ledger's
    /// generation (``PostgresErasure``). Two statements in one round trip: under READ COMMITTED each takes its own
    /// snapshot, so the read, made once the lock is granted, sees a horizon or a ledger entry committed while this
    /// batch waited (one statement's snapshot would predate the wait).
    static func batchGuards(on connection: PostgresConnection) throws -> (horizon: String?, erasureGeneration: Int64) {
        let result = try connection.executeScript(
            """
            SELECT pg_advisory_xact_lock_shared(\(lockKey));
            SELECT (SELECT keep_from FROM retention_horizon), (SELECT generation FROM erasure_state)
            """)
        return (
            result.bytes(0, 0).map { String(decoding: $0, as: UTF8.self) },
            result.bytes(0, 1) == nil ? 0 : try result.integer(0, 1)
        )
    }

    /// How long a partition's `DROP` waits for its lock: it needs ACCESS EXCLUSIVE on `observation`, and every batch
    /// queues behind it while it waits, so a long reader (an export) makes it give up rather than stall the writers.
    static let dropLockTimeout = "2s"

    static func apply(keepFrom day: String, dryRun: Bool, on connection: PostgresConnection) throws -> RetentionReport {
        let keepFrom = String(day.prefix(7)) + "-01"  // whole months: an expired day is never a stored one
        let horizon = try connection.transaction {
            if !dryRun {
                // First the locks, then the read (a statement of its own, so a snapshot taken after them): two runs
                // at once take turns, and the second sees the first's horizon.
                _ = try connection.execute(
                    "SELECT pg_advisory_xact_lock(\(partitionLockKey)), pg_advisory_xact_lock(\(lockKey))")
            }
            let current = try connection.execute("SELECT keep_from FROM retention_horizon").bytes(0, 0)
                .map { String(decoding: $0, as: UTF8.self) }
            let horizon = max(current ?? keepFrom, keepFrom)
            if !dryRun && horizon != current {
                _ = try connection.execute(
                    """
                    INSERT INTO retention_horizon (keep_from) VALUES ($1)
                    ON CONFLICT (singleton) DO UPDATE
                        SET keep_from = greatest(retention_horizon.keep_from, EXCLUDED.keep_from), set_at = now()
                    """, [horizon])
            }
            return horizon
        }
        let partitions = try Self.partitions(on: connection)
        var report = RetentionReport(
            horizon: horizon, dropped: partitions.filter { $0.to <= horizon },
            straddling: partitions.filter { $0.to > horizon && ($0.from ?? "") < horizon }, busy: [])
        if !dryRun {
            for partition in report.dropped {
                do {
                    // The name comes from the catalog and matched the partitions' pattern (checked in `partitions`).
                    _ = try connection.transaction {
                        try connection.executeScript(
                            "SET LOCAL lock_timeout = '\(dropLockTimeout)'; DROP TABLE \(partition.name)")
                    }
                } catch let error as PostgresError where error.sqlState == "55P03" {
                    report.busy.append(partition)
                }
            }
            report.dropped.removeAll { report.busy.contains($0) }
        }
        return report
    }

    /// The partitions of `observation`, by first day.
    private static func partitions(on connection: PostgresConnection) throws -> [RetentionReport.Partition] {
        let result = try connection.execute(
            """
            SELECT c.relname, substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \\(''([0-9-]+)''\\)'),
                substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \\(''([0-9-]+)''\\)'),
                c.reltuples::bigint, pg_total_relation_size(c.oid)
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'observation'::regclass
            ORDER BY 3
            """)
        return try result.rows { row in
            let name = result.text(row, 0)
            guard name == "observation_legacy" || isMonthPartition(name), let to = result.bytes(row, 2) else {
                throw StoreError(.schema, "observation has a partition this store did not create: \(name)")
            }
            return RetentionReport.Partition(
                name: name, from: result.bytes(row, 1).map { String(decoding: $0, as: UTF8.self) },
                to: String(decoding: to, as: UTF8.self), estimatedRows: try result.integer(row, 3),
                bytes: try result.integer(row, 4))
        }
    }

    /// `observation_YYYY_MM`.
    private static func isMonthPartition(_ name: String) -> Bool {
        let suffix = Array(name.utf8.dropFirst("observation_".count))
        return name.hasPrefix("observation_") && suffix.count == 7 && suffix[4] == UInt8(ascii: "_")
            && suffix.enumerated().allSatisfy { $0.offset == 4 || (0x30...0x39).contains($0.element) }
    }
}

extension PostgresObservationStore: ObservationStoreRetention {
    public func applyRetention(keepFrom: String, dryRun: Bool) async throws -> RetentionReport {
        try await withConnection { try PostgresRetention.apply(keepFrom: keepFrom, dryRun: dryRun, on: $0) }
    }
}
