import Essentials
import PostgresClient

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The monthly partitions of `observation` (docs/PARTITIONING.md): created ahead when a store opens, and on demand
/// when a batch holds a day of a month that has none. `observation_ensure_partitions` (schema 8) creates them under
/// an advisory lock, so workers racing for the same month create it once, and never creates a month wholly before
/// the retention horizon.
enum PostgresPartitions {
    /// Creates the partitions the months of `days` lack, in a transaction of its own; returns how many it created.
    @discardableResult
    static func ensure(days: some Collection<String>, on connection: PostgresConnection) throws -> Int {
        let months = Set(days.map { String($0.prefix(7)) + "-01" })
        return try connection.transaction {
            Int(
                try connection.execute(
                    "SELECT observation_ensure_partitions($1::text[])", [arrayLiteral(months.sorted())]
                ).integer(0, 0))
        }
    }

    /// The first days of the month before `date`'s (UTC), its own and the two after: what a store creates ahead.
    static func monthsAround(_ date: Date) -> [String] {
        let components = Calendar.utcGregorian.dateComponents([.year, .month], from: date)
        return (-1...2).map { offset in
            let months = components.year! * 12 + components.month! - 1 + offset
            return FixedFormat.digits(months / 12, width: 4) + "-" + FixedFormat.digits(months % 12 + 1, width: 2) + "-01"
        }
    }

    /// True for PostgreSQL's refusal of a row whose day no partition covers: a check violation (23514), matched by
    /// its code alone, as the message text depends on the server's `lc_messages`. A violated CHECK constraint has
    /// that code too: creating partitions then changes nothing and the one retry fails again with it.
    static func isMissingPartition(_ error: any Error) -> Bool {
        (error as? PostgresError)?.sqlState == "23514"
    }

    /// `{a,b}`: the days are `YYYY-MM-DD` (checked by the decoder), so no element needs quoting.
    private static func arrayLiteral(_ values: [String]) -> String {
        "{" + values.joined(separator: ",") + "}"
    }
}
