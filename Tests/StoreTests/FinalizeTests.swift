import DailyValueContract
import Foundation
import ObservationMapping
@testable import PostgresStore
@testable import SQLiteStore
import StoreCore
import TestSupport
import Testing

/// `finalize` / `storectl finalize` (docs/LIFECYCLE.md): preliminary days past their local end plus the settle
/// window become final with `meta.versionId` + 1; everything else is left alone.
@Suite(.timeLimit(.minutes(2)))
struct FinalizeTests {
    /// Steps of p-000123 in Bratislava on `day`, as the mapper emits them, with `status`.
    static func steps(_ day: String, version: Int64, value: Double = 8042, _ status: DailyValue.Status)
        throws -> ObservationRecord
    {
        var event = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!, day: day)
        event.value = value
        event.version = version
        event.status = status
        return try Fixtures.mapper.map(event, recordTimestampMs: Fixtures.ms("2026-10-02T06:00:00Z"))
    }

    @Test(arguments: StoreKind.databases)
    func flipsSettledPreliminaryDaysOnly(kind: StoreKind) async throws {
        try await TestStores.withFreshLocation(kind) { location in
            let store = try await TestStores.open(location)
            // 2026-10-01 ends 2026-10-01T22:00Z (settled by the cutoff); 2026-10-03 ends 2026-10-03T22:00Z.
            let settled = try Self.steps("2026-10-01", version: 5, .preliminary)
            let open = try Self.steps("2026-10-03", version: 5, .preliminary)
            let final = try Self.steps("2026-09-30", version: 5, .final)
            _ = try await store.upsert([settled, open, final])
            let cutoff = Fixtures.ms("2026-10-02T12:00:00Z") / 1000

            #expect(try await store.finalize(settledBefore: cutoff) == 1)
            let row = try #require(try await store.observation(for: settled.identity))
            #expect(row.version == 5 && row.versionId == 2)
            #expect(try sameJSON(row.resource, settled.resource(status: .final), versionId: 2, lastUpdated: row.lastUpdated))
            #expect(try await store.observation(for: open.identity)?.versionId == 1)
            #expect(try await store.observation(for: final.identity)?.versionId == 1)
            #expect(try await store.finalize(settledBefore: cutoff) == 0, "idempotent")

            // A replay of the same event changes nothing; a later different value amends the finalized day.
            #expect(try await store.upsert([settled]) == [.unchanged])
            #expect(try await store.upsert([try Self.steps("2026-10-01", version: 6, value: 9000, .preliminary)]) == [.updated])
            let amended = try #require(try await store.observation(for: settled.identity))
            #expect(amended.versionId == 3 && amended.resource.contains(#""status":"amended""#))
            await store.close()
        }
    }

    /// More settled rows than one chunk (chunks of 5 here, 5,000 in production) are all finalized by one call, the
    /// last chunk partial or (second call) full, and a day not yet settled stays preliminary.
    @Test(arguments: StoreKind.databases)
    func finalizesMoreRowsThanAChunkInOneCall(kind: StoreKind) async throws {
        try await TestStores.withFreshLocation(kind) { location in
            let store = try await TestStores.open(location)
            // 23 settled days of p-000123 in September, 10 in August and the open 2026-10-03, all preliminary.
            let days = { (month: Int, count: Int) in
                try (1...count).map {
                    try Self.steps(String(format: "2026-%02d-%02d", month, $0), version: 5, .preliminary)
                }
            }
            let (september, august) = (try days(9, 23), try days(8, 10))
            let open = try Self.steps("2026-10-03", version: 5, .preliminary)
            _ = try await store.upsert(september + [open])
            let cutoff = Fixtures.ms("2026-10-02T12:00:00Z") / 1000

            #expect(try await Self.finalize(store, settledBefore: cutoff, chunkSize: 5) == 23)
            _ = try await store.upsert(august)
            #expect(try await Self.finalize(store, settledBefore: cutoff, chunkSize: 5) == 10)
            #expect(try await Self.finalize(store, settledBefore: cutoff, chunkSize: 5) == 0)
            for record in september + august {
                let row = try #require(try await store.observation(for: record.identity))
                #expect(row.versionId == 2 && row.resource.contains(#""status":"final""#), "\(record.identity.day)")
            }
            let stillOpen = try #require(try await store.observation(for: open.identity))
            #expect(stillOpen.versionId == 1 && stillOpen.resource.contains(#""status":"preliminary""#))
            let finals = "SELECT count(*) FROM observation WHERE status = 'final'"
            #expect(try await TestStores.rawText(location, finals) == "33")
            await store.close()
        }
    }

    /// `finalize` with a small chunk size (internal; the public call uses ``FinalizeChunk/rows``).
    static func finalize(
        _ store: any SQLStore, settledBefore: Int64, chunkSize: Int
    ) async throws -> Int {
        if let sqlite = store as? SQLiteObservationStore {
            return try await sqlite.finalize(settledBefore: settledBefore, chunkSize: chunkSize)
        }
        let postgres = try #require(store as? PostgresObservationStore)
        return try await postgres.finalize(settledBefore: settledBefore, chunkSize: chunkSize)
    }

    /// The command: `--settle-hours 0` finalizes every ended preliminary day; an out-of-range window is a usage
    /// error (exit 2), a FHIR store is refused with a reason.
    @Test func storectlFinalize() async throws {
        try await TestStores.withFreshLocation(.sqlite) { location in
            guard case .sqlite(let path) = location else { return }
            let store = try await TestStores.open(location)
            _ = try await store.upsert([try Self.steps("2026-10-01", version: 5, .preliminary)])
            await store.close()
            let run = try await ChildProcess.storectl(["finalize", "--store", "sqlite:" + path, "--settle-hours", "0"])
            #expect(run.stdout == "finalized: 1\n")
            let again = try await ChildProcess.storectl(["finalize", "--store", "sqlite:" + path])
            #expect(again.stdout == "finalized: 0\n")
            let bad = try await ChildProcess.run(
                try ChildProcess.storectl(), ["finalize", "--store", "sqlite:" + path, "--settle-hours", "1000"])
            #expect(bad.status == 2, "\(bad.stderr)")
            let fhir = try await ChildProcess.run(
                try ChildProcess.storectl(), ["finalize", "--store", "fhir+http://127.0.0.1:1/fhir"])
            #expect(fhir.status == 1 && fhir.stderr.contains("does not support finalize"), "\(fhir.stderr)")
        }
    }
}
