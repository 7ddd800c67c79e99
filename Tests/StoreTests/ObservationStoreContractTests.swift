import DailyValueContract
import DocumentCompression
import Foundation
import Hashing
@testable import ObservationMapping
@testable import PostgresStore
@testable import StoreCore
import Testing

/// The store contract, written once and run against SQLite, PostgreSQL and (where it applies: not the schema, the
/// audit trigger or raw SQL) a FHIR server.
@Suite(.timeLimit(.minutes(2)))
struct ObservationStoreContractTests {
    /// The row holds what the store decided in the statement that decided it: the facts in columns and the document
    /// as compressed bytes without meta or status (PostgreSQL since schema 4, SQLite since migration 8), which
    /// decompress (here, independently of the read path) to the mapper's output once the columns are spliced in,
    /// byte for byte.
    @Test(arguments: StoreKind.databases)
    func storedResourceIsWrittenWhole(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, location in
            let (first, second) = try (
                FHIRStoreFaultTests.mapped(version: 1), FHIRStoreFaultTests.mapped(version: 2, value: 72.5)
            )
            _ = try await store.upsert([first])
            _ = try await store.upsert([second])
            let stored = try #require(try await store.observation(for: second.identity))
            // A final day replaced by another value is `amended` (docs/LIFECYCLE.md), in the column only.
            let sql =
                kind == .postgres
                ? """
                SELECT encode(document, 'hex') || ' ' || version_id || ' '
                    || \(PostgresUpsert.lastUpdatedText("last_updated")) || ' ' || status || ' '
                    || (resource IS NULL) || ' ' || value || ' ' || unit || ' ' || min || ' ' || max || ' '
                    || (systolic IS NULL AND diastolic IS NULL) || ' ' || extract(epoch FROM period_start)::bigint
                    || ' ' || extract(epoch FROM period_end - period_start)::bigint FROM observation
                """
                : """
                SELECT lower(hex(document)) || ' ' || version_id || ' ' || last_updated || ' ' || status || ' '
                    || iif(resource = '' AND clinical_value IS NULL AND length(clinical_digest) = 16, 'true', 'false')
                    || ' ' || printf('%g', value) || ' ' || unit || ' ' || printf('%g', min) || ' '
                    || printf('%g', max) || ' ' || iif(systolic IS NULL AND diastolic IS NULL, 'true', 'false')
                    || ' ' || period_start || ' ' || (period_end - period_start) FROM observation
                """
            let row = try #require(try await TestStores.rawText(location, sql)).split(separator: " ").map(String.init)
            let dayStart = "1790805600"  // 2026-10-01T00:00:00+02:00 (Europe/Bratislava)
            #expect(
                row[1...]
                    == [
                        "2", stored.lastUpdated, "amended", "true", "72.5", "/min", "48", "162", "true", dayStart,
                        "86400",
                    ][...])
            let document = try #require(Hex.bytes(row[0]))
            let (content, parts) = try DocumentDecompressor().parts(of: document)
            let rendered = StoredDocument.resource(
                content, parts: parts, versionId: 2, lastUpdated: row[2], status: row[3])
            #expect(rendered == stored.resource)
            #expect(
                rendered == second.resourceHead + #""versionId":"2","lastUpdated":"\#(row[2])","# + second.resourceTail
                    + #""amended""# + second.resourceAfterStatus)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func insertUpdateUnchangedStale(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let identity = record(version: 5).identity
            #expect(try await store.upsert([record(version: 5, value: 50)]) == [.inserted])
            let inserted = try #require(try await store.observation(for: identity))
            #expect(inserted.version == 5 && inserted.versionId == 1)
            #expect(
                try sameJSON(
                    inserted.resource, record(version: 5, value: 50).resource, versionId: 1,
                    lastUpdated: inserted.lastUpdated))

            try await Task.sleep(for: .milliseconds(20))  // a rewrite would now show a later lastUpdated
            #expect(try await store.upsert([record(version: 5, value: 50)]) == [.unchanged])
            // Another value of the stored version: the first stored wins; the SQL stores count a `conflict` (the
            // FHIR store cannot compare a server's re-serialized copy: docs/CLINICAL.md).
            #expect(try await store.upsert([record(version: 5, value: 55)]) == [kind == .fhir ? .unchanged : .conflict])
            #expect(try await store.observation(for: identity) == inserted)

            try await Task.sleep(for: .milliseconds(20))
            #expect(try await store.upsert([record(version: 7, value: 70)]) == [.updated])
            let updated = try #require(try await store.observation(for: identity))
            #expect(updated.version == 7 && updated.versionId == 2)
            #expect(updated.lastUpdated > inserted.lastUpdated)
            #expect(
                try sameJSON(
                    updated.resource, record(version: 7, value: 70).resource, versionId: 2,
                    lastUpdated: updated.lastUpdated))

            #expect(try await store.upsert([record(version: 6, value: 60)]) == [.stale])
            #expect(try await store.observation(for: identity) == updated)
        }
    }

    /// Every order of versions {3, 4, 5, 5} in one batch, against no row, a lower row, an equal and a higher one.
    @Test(arguments: StoreKind.allCases)
    func withinBatchHighestWinsInEveryOrder(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let orders = Set(permutations([3, 4, 5, 5] as [Int64])).sorted { $0.lexicographicallyPrecedes($1) }
            #expect(orders.count == 12)
            let preexisting: [Int64?] = [nil, 4, 5, 6]
            // One identity per (order, preexisting version): patient = order, day = preexisting case.
            func identityRecord(_ order: Int, _ case_: Int, _ version: Int64) -> ObservationRecord {
                record(
                    "order-\(order)", "heart_rate", "2026-10-0\(case_ + 1)", version: version, value: Double(version))
            }
            let seeds = orders.indices.flatMap { order in
                preexisting.enumerated().compactMap { case_, version in version.map { identityRecord(order, case_, $0) }
                }
            }
            #expect(try await store.upsert(seeds) == Array(repeating: .inserted, count: seeds.count))

            var batch: [ObservationRecord] = []
            var expected: [UpsertOutcome] = []
            for (orderIndex, order) in orders.enumerated() {
                for (case_, stored) in preexisting.enumerated() {
                    let firstFive = order.firstIndex(of: 5)!
                    for (position, version) in order.enumerated() {
                        batch.append(identityRecord(orderIndex, case_, version))
                        switch stored {
                        case 6?: expected.append(.stale)
                        case _ where version < 5: expected.append(.stale)
                        case _ where position != firstFive: expected.append(.unchanged)
                        case nil: expected.append(.inserted)
                        case 4?: expected.append(.updated)
                        default: expected.append(.unchanged)
                        }
                    }
                }
            }
            #expect(try await store.upsert(batch) == expected.map(UpsertResult.init))
            let versions = try await store.allVersions()
            for (orderIndex, _) in orders.enumerated() {
                for (case_, stored) in preexisting.enumerated() {
                    let identity = identityRecord(orderIndex, case_, 0).identity
                    #expect(versions[identity] == max(stored ?? 0, 5), "\(identity)")
                    let row = try #require(try await store.observation(for: identity))
                    #expect(row.versionId == (stored == 4 ? 2 : 1), "\(identity)")
                    let kept = identityRecord(orderIndex, case_, max(stored ?? 0, 5))
                    #expect(
                        try sameJSON(
                            row.resource, kept.resource, versionId: row.versionId, lastUpdated: row.lastUpdated),
                        "\(identity)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func acrossBatchesVersionIdGrowsByOnePerReplace(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let steps: [(Int64, UpsertOutcome, Int64)] = [
                (1, .inserted, 1), (3, .updated, 2), (2, .stale, 2), (3, .unchanged, 2), (5, .updated, 3),
                (4, .stale, 3), (5, .unchanged, 3), (9, .updated, 4),
            ]
            for (version, outcome, versionId) in steps {
                #expect(try await store.upsert([record(version: version)]) == [UpsertResult(outcome)], "version \(version)")
                let row = try #require(try await store.observation(for: record(version: 0).identity))
                #expect(row.versionId == versionId, "after version \(version)")
                #expect(
                    try sameJSON(
                        row.resource, record(version: row.version).resource, versionId: versionId,
                        lastUpdated: row.lastUpdated), "after version \(version)")
                #expect(row.version == max(version, row.version))
            }
            #expect(try await store.allVersions() == [record(version: 0).identity: 9])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func outcomeCountersTallyEveryRecord(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let batches: [[ObservationRecord]] = [
                [record(version: 1), record("p-2", version: 1), record("p-1", "step_count", version: 4)],
                [
                    record(version: 2), record(version: 2), record("p-2", version: 0),
                    record("p-1", "step_count", version: 4),
                ],
                [record("p-3", "step_count", version: 1), record(version: 1)],
            ]
            var tally: [String: [UpsertOutcome: Int64]] = [:]
            for batch in batches {
                let outcomes = try await store.upsert(batch)
                for (item, outcome) in zip(batch, outcomes) {
                    tally[item.identity.metric, default: [:]][try #require(outcome.outcome), default: 0] += 1
                }
            }
            #expect(tally["heart_rate"] == [.inserted: 2, .updated: 1, .unchanged: 1, .stale: 2])
            #expect(tally["step_count"] == [.inserted: 2, .unchanged: 1])
            var stored: [String: [UpsertOutcome: Int64]] = [:]
            for count in try await store.outcomeCounts() {
                stored[count.metric, default: [:]][count.outcome] = count.count
            }
            #expect(stored == tally)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func readsByIdentityPatientAndAllVersions(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let records = [
                record("p-1", "step_count", "2026-10-02", version: 3),
                record("p-1", "heart_rate", "2026-10-02", version: 2),
                record("p-1", "heart_rate", "2026-10-01", version: 1),
                record("p-2", "heart_rate", "2026-10-01", version: 7),
            ]
            _ = try await store.upsert(records)
            #expect(
                try await store.observation(
                    for: ObservationIdentity(patient: "p-9", metric: "heart_rate", day: "2026-10-01")) == nil)

            let patient = try await store.observations(patient: "p-1")
            #expect(
                patient.map(\.identity.key) == [
                    "p-1/heart_rate/2026-10-01", "p-1/heart_rate/2026-10-02", "p-1/step_count/2026-10-02",
                ])
            for row in patient {
                let sent = try #require(records.first { $0.identity == row.identity })
                #expect(row.version == sent.version && row.resourceID == sent.resourceID && row.versionId == 1)
                #expect(try sameJSON(row.resource, sent.resource, versionId: 1, lastUpdated: row.lastUpdated))
                #expect(
                    row.lastUpdated.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil,
                    "\(row.lastUpdated)")
                let meta = try storedMeta(row.resource)
                #expect(meta["versionId"] as? String == "1" && meta["lastUpdated"] as? String == row.lastUpdated)
                #expect(meta["source"] as? String == "test")
            }
            #expect(
                try await store.allVersions()
                    == Dictionary(uniqueKeysWithValues: records.map { ($0.identity, $0.version) }))
        }
    }

    @Test(arguments: StoreKind.databases)
    func reopenKeepsDataAndMigrationIsIdempotent(kind: StoreKind) async throws {
        try await TestStores.withFreshLocation(kind) { location in
            let first = try await TestStores.open(location)
            #expect(try await first.schemaVersion() == kind.schemaVersion)
            _ = try await first.upsert([record(version: 4)])
            let before = try await first.observation(for: record(version: 0).identity)
            await first.close()
            await #expect(throws: StoreError.self) { try await first.allVersions() }

            let second = try await TestStores.open(location)
            #expect(try await second.schemaVersion() == kind.schemaVersion)
            #expect(try await second.observation(for: record(version: 0).identity) == before)
            #expect(try await second.upsert([record(version: 4), record(version: 5)]) == [.stale, .updated])
            await second.close()
        }
    }

    @Test(arguments: StoreKind.databases)
    func auditCountsVersionUpdatesAndCatchesDecreases(kind: StoreKind) async throws {
        try await TestStores.withFreshLocation(kind) { location in
            let store = try await TestStores.open(location)
            await #expect(throws: StoreError.self) { try await store.versionAudit() }
            try await store.installVersionAudit()
            try await store.installVersionAudit()  // idempotent
            _ = try await store.upsert([record(version: 1)])
            _ = try await store.upsert([record(version: 3)])
            _ = try await store.upsert([record(version: 2)])
            #expect(try await store.versionAudit() == VersionAuditSummary(updates: 1, decreases: 0))
            try await TestStores.rawExecute(location, "UPDATE observation SET version = version - 1")
            #expect(try await store.versionAudit() == VersionAuditSummary(updates: 2, decreases: 1))
            await store.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func emptyBatchIsANoOp(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ async throws in
            #expect(try await store.upsert([]) == [])
            #expect(try await store.outcomeCounts().isEmpty)
        }
    }
}

private func permutations<Element>(_ items: [Element]) -> [[Element]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { index in
        var rest = items
        let head = rest.remove(at: index)
        return permutations(rest).map { [head] + $0 }
    }
}
