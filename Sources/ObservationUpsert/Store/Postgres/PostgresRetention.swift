import Essentials
import PostgresClient

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

    /// The horizon (nil: none set), read at the start of a batch's transaction under the shared lock.
    static func horizon(on connection: PostgresConnection) throws -> String? {
        let result = try connection.executePrepared(
            "dvp_horizon",
            "SELECT pg_advisory_xact_lock_shared(\(lockKey)), (SELECT keep_from FROM retention_horizon)", [])
        return result.bytes(0, 1).map { String(decoding: $0, as: UTF8.self) }
    }

    static func apply(keepFrom: String, dryRun: Bool, on connection: PostgresConnection) throws -> RetentionReport {
        let horizon = try connection.transaction {
            let current = try connection.execute("SELECT keep_from FROM retention_horizon").bytes(0, 0)
                .map { String(decoding: $0, as: UTF8.self) }
            let horizon = max(current ?? keepFrom, keepFrom)
            if !dryRun && horizon != current {
                _ = try connection.execute(
                    "SELECT pg_advisory_xact_lock(\(partitionLockKey)), pg_advisory_xact_lock(\(lockKey))")
                _ = try connection.execute(
                    """
                    INSERT INTO retention_horizon (keep_from) VALUES ($1)
                    ON CONFLICT (singleton) DO UPDATE SET keep_from = EXCLUDED.keep_from, set_at = now()
                    """, [horizon])
            }
            return horizon
        }
        let partitions = try Self.partitions(on: connection)
        let dropped = partitions.filter { $0.to <= horizon }
        let straddling = partitions.filter { $0.to > horizon && ($0.from ?? "") < horizon }
        if !dryRun {
            for partition in dropped {
                // The name comes from the catalog and matched the partitions' pattern (checked in `partitions`).
                _ = try connection.executeScript("DROP TABLE \(partition.name)")
            }
        }
        return RetentionReport(horizon: horizon, dropped: dropped, straddling: straddling)
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
