import DailyValueContract
import Essentials
import Foundation
@testable import ObservationMapping
import PostgresClient
@testable import PostgresStore
@testable import StoreCore
import Testing

/// `observation` partitioned by month of `day` (schema 8, docs/PARTITIONING.md).
@Suite(.timeLimit(.minutes(2)))
struct PostgresPartitionTests {
    static func partitions(_ location: StoreLocation) async throws -> [String] {
        let text = try await TestStores.rawText(
            location,
            """
            SELECT string_agg(c.relname || ' ' || pg_get_expr(c.relpartbound, c.oid), E'\\n' ORDER BY c.relname)
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'observation'::regclass
            """)
        return text?.split(separator: "\n").map(String.init) ?? []
    }

    /// The months a store creates ahead, on fixed dates (across a year's end both ways).
    @Test(arguments: [
        ("2026-12-15T12:00:00Z", ["2026-11-01", "2026-12-01", "2027-01-01", "2027-02-01"]),
        ("2027-01-01T00:00:00Z", ["2026-12-01", "2027-01-01", "2027-02-01", "2027-03-01"]),
        ("2026-11-30T23:59:59Z", ["2026-10-01", "2026-11-01", "2026-12-01", "2027-01-01"]),
    ])
    func monthsAroundADate(_ instant: String, _ expected: [String]) throws {
        let date = try #require(ISO8601DateFormatter().date(from: instant))
        #expect(PostgresPartitions.monthsAround(date) == expected)
    }

    @Test func aNewStoreHasTheMonthsAroundTodayAhead() async throws {
        let months = PostgresPartitions.monthsAround(Date())
        let next = PostgresPartitions.monthsAround(
            try #require(ISO8601DateFormatter().date(from: months[3] + "T00:00:00Z")))[2]
        let expected = zip(months, months.dropFirst() + [next]).map { first, end in
            "observation_\(first.prefix(7).replacingOccurrences(of: "-", with: "_")) "
                + "FOR VALUES FROM ('\(first)') TO ('\(end)')"
        }
        try await TestStores.withFreshStore(.postgres) { _, location throws in
            #expect(try await Self.partitions(location) == expected)
            #expect(try await TestStores.rawText(location, "SELECT count(*) FROM pg_partitioned_table") == "1")
        }
    }

    /// A backfill of an old month and a day far ahead: stored, each month's partition created on demand, by
    /// three connections at once for the same months (one creates each, the others wait for it and write).
    @Test func aDayOfAMonthWithoutAPartitionIsStoredNeverRefused() async throws {
        try await TestStores.withFreshStore(.postgresLanes) { store, location in
            let days = ["2019-03-15", "2019-03-16", "2031-07-01", "2031-07-31"]
            let batch = (0..<30).flatMap { patient in days.map { record("p-\(patient)", "steps", $0, version: 1) } }
            #expect(try await store.upsert(batch) == Array(repeating: .inserted, count: batch.count))
            let names = try await Self.partitions(location).map { String($0.prefix { $0 != " " }) }
            #expect(names.contains("observation_2019_03") && names.contains("observation_2031_07"), "\(names)")
            #expect(try await store.allVersions().count == batch.count)
            let replaced = batch.map {
                var record = $0; record.version = 2; return record
            }
            #expect(try await store.upsert(replaced) == Array(repeating: .updated, count: batch.count))
        }
    }

    /// A month is attached beside a long reader (an export's snapshot holds `observation`): the batch that needs it
    /// is written at once, not queued behind a lock the reader holds.
    @Test func aMonthIsAddedWhileAReaderHoldsTheTable() async throws {
        try await TestStores.withFreshStore(.postgres) { store, location in
            let reader = try await HeldTransaction(
                location, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM observation;")
            // CREATE TABLE … PARTITION OF would wait for the reader until the store's lock timeout, then fail.
            #expect(try await store.upsert([record("p-1", "steps", "2015-06-01", version: 1)]) == [.inserted])
            try await reader.commit()
            #expect(try await Self.partitions(location).contains { $0.hasPrefix("observation_2015_06 ") })
        }
    }

    /// A store of schema 7 with rows: the table becomes the partition of every day before the month after its
    /// latest day, without a row copied; a later month gets a partition of its own.
    @Test func aTableWithRowsBecomesTheLegacyPartition() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            try await TestStores.createSchemaSeven(
                location,
                then: """
                    INSERT INTO observation (patient, metric, day, version, resource_id, resource, version_id, last_updated,
                        status) VALUES
                        ('p-1', 'steps', '2026-10-01', 7, 'abc', '{"resourceType":"Observation","id":"abc"}', 3, now(),
                            'final'),
                        ('p-1', 'steps', '2030-05-20', 2, 'def', '{"resourceType":"Observation","id":"def"}', 1, now(),
                            'final');
                    """)
            let store = try await TestStores.open(location)
            #expect(try await store.schemaVersion() == PostgresSchema.migrations.count)
            #expect(
                try await Self.partitions(location) == [
                    "observation_legacy FOR VALUES FROM (MINVALUE) TO ('2030-06-01')"
                ])
            let old = try #require(
                try await store.observation(
                    for: ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-10-01")))
            #expect(old.versionId == 3 && old.resource.contains(#""id":"abc""#))
            #expect(
                try await store.upsert([record("p-1", "steps", "2026-10-01", version: 8)]) == [.updated])
            #expect(try await store.upsert([record("p-1", "steps", "2030-07-03", version: 1)]) == [.inserted])
            #expect(
                try await Self.partitions(location) == [
                    "observation_2030_07 FOR VALUES FROM ('2030-07-01') TO ('2030-08-01')",
                    "observation_legacy FOR VALUES FROM (MINVALUE) TO ('2030-06-01')",
                ])
            await store.close()
        }
    }
}
