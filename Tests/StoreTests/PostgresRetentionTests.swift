import DailyValueContract
import Essentials
import Foundation
@testable import ObservationMapping
import PostgresClient
@testable import PostgresStore
@testable import StoreCore
import TestSupport
import Testing

/// `storectl retention` on a partitioned store (docs/PARTITIONING.md): whole months dropped, later events of
/// expired days refused and counted, never re-created.
@Suite(.timeLimit(.minutes(2)))
struct PostgresRetentionTests {
    static func retention(_ store: any ObservationStore) throws -> any ObservationStoreRetention {
        try #require(store as? any ObservationStoreRetention)
    }

    @Test func wholeMonthsAreDroppedAndLaterEventsOfExpiredDaysAreRefused() async throws {
        try await TestStores.withFreshStore(.postgres) { store, location in
            let days = ["2019-01-05", "2019-01-20", "2019-02-10", "2019-03-01"]
            _ = try await store.upsert(days.map { record("p-1", "steps", $0, version: 1) })

            let preview = try await Self.retention(store).applyRetention(keepFrom: "2019-02-15", dryRun: true)
            #expect(preview.dropped.map(\.name) == ["observation_2019_01"])
            #expect(try await store.allVersions().count == 4, "a dry run changes nothing")
            #expect(try await TestStores.rawText(location, "SELECT count(*) FROM retention_horizon") == "0")

            let report = try await Self.retention(store).applyRetention(keepFrom: "2019-02-15", dryRun: false)
            #expect(report.horizon == "2019-02-01", "whole months: the first day of keepFrom's month")
            #expect(report.dropped.map(\.name) == ["observation_2019_01"])
            #expect(report.dropped.first?.from == "2019-01-01" && report.dropped.first?.to == "2019-02-01")
            #expect(report.straddling.isEmpty && report.busy.isEmpty)
            #expect(Set(try await store.allVersions().keys.map(\.day)) == ["2019-02-10", "2019-03-01"])

            let countsBefore = try await store.outcomeCounts().filter { $0.outcome == .expired }.map(\.count).reduce(
                0, +)
            let replay = [
                record("p-1", "steps", "2019-01-05", version: 2),  // its month is gone
                record("p-1", "steps", "2019-02-10", version: 2),  // its month is kept: an ordinary update
                record("p-1", "steps", "2019-01-31", version: 1),  // the last expired day
                .retraction(
                    identity: ObservationIdentity(patient: "p-1", metric: "steps", day: "2019-01-20"), version: 9,
                    resourceID: "obs-p-1-steps-2019-01-20", reason: "test"),
            ]
            #expect(try await store.upsert(replay) == [.expired, .updated, .expired, .expired])
            #expect(
                try await PostgresPartitionTests.partitions(location).allSatisfy {
                    !$0.hasPrefix("observation_2019_01")
                })
            #expect(try await store.observation(for: replay[1].identity)?.version == 2)
            #expect(try await TestStores.rawText(location, "SELECT count(*) FROM retraction") == "0")
            let countsAfter = try await store.outcomeCounts().filter { $0.outcome == .expired }.map(\.count).reduce(
                0, +)
            #expect(countsAfter - countsBefore == 3)

            let again = try await Self.retention(store).applyRetention(keepFrom: "2018-06-01", dryRun: false)
            #expect(again.horizon == "2019-02-01" && again.dropped.isEmpty, "the horizon never moves back")
        }
    }

    /// A batch that waits for the lock while a retention run moves the horizon reads the new horizon once it has the
    /// lock (its statement's snapshot is taken after the wait), so it never writes a day that just expired.
    @Test func aBatchWaitingForARetentionRunSeesTheNewHorizon() async throws {
        try await TestStores.withFreshStore(.postgres) { store, location in
            _ = try await store.upsert([record("p-1", "steps", "2019-02-10", version: 1)])
            let mover = try await HeldTransaction(
                location,
                """
                BEGIN;
                SELECT pg_advisory_xact_lock(\(PostgresRetention.lockKey));
                INSERT INTO retention_horizon (keep_from) VALUES ('2019-03-01');
                """)
            async let outcomes = store.upsert([
                record("p-1", "steps", "2019-02-10", version: 2), record("p-1", "steps", "2019-02-11", version: 1),
            ])
            let waiting = await eventually(timeout: .seconds(10)) {
                (try? await TestStores.rawText(
                    location, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")) == "1"
            }
            try await mover.commit()
            #expect(waiting, "the batch waited for the retention run's lock")
            #expect(try await outcomes == [.expired, .expired])
            #expect(
                try await store.observation(
                    for: ObservationIdentity(patient: "p-1", metric: "steps", day: "2019-02-10"))?.version == 1)
        }
    }

    /// A partition a long reader holds is not dropped: the run gives up on it after the lock timeout (the writers
    /// queued behind the drop wait no longer than that), says so, and drops it next time.
    @Test func aPartitionInUseIsLeftForTheNextRun() async throws {
        try await TestStores.withFreshStore(.postgres) { store, location in
            _ = try await store.upsert([record("p-1", "steps", "2019-01-05", version: 1)])
            let reader = try await HeldTransaction(
                location, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM observation;")
            let held = try await Self.retention(store).applyRetention(keepFrom: "2019-02-01", dryRun: false)
            #expect(held.horizon == "2019-02-01" && held.dropped.isEmpty)
            #expect(held.busy.map(\.name) == ["observation_2019_01"])
            #expect(try await store.upsert([record("p-1", "steps", "2019-01-06", version: 1)]) == [.expired])
            try await reader.commit()
            let later = try await Self.retention(store).applyRetention(keepFrom: "2019-02-01", dryRun: false)
            #expect(later.dropped.map(\.name) == ["observation_2019_01"] && later.busy.isEmpty)
        }
    }

    /// The table of an older schema, attached as `observation_legacy`, goes as a whole once all its days expire.
    @Test func theLegacyPartitionGoesWhenAllOfItIsExpired() async throws {
        try await TestStores.withFreshLocation(.postgres) { location in
            try await TestStores.createSchemaSeven(
                location,
                then: """
                    INSERT INTO observation (patient, metric, day, version, resource_id, resource, version_id, last_updated)
                        VALUES ('p-1', 'steps', '2030-05-20', 2, 'def', '{"resourceType":"Observation","id":"def"}', 1, now());
                    """)
            let store = try await TestStores.open(location)
            let straddling = try await Self.retention(store).applyRetention(keepFrom: "2030-05-31", dryRun: false)
            #expect(straddling.dropped.isEmpty && straddling.straddling.map(\.name) == ["observation_legacy"])
            let all = try await Self.retention(store).applyRetention(keepFrom: "2030-06-01", dryRun: false)
            #expect(all.dropped.map(\.name) == ["observation_legacy"] && all.dropped.first?.from == nil)
            #expect(try await store.allVersions().isEmpty)
            await store.close()
        }
    }
}
