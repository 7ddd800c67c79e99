import Foundation
import ObservationMapping
import StoreCore
import Testing

/// An equal version with a different clinical value (issue 28 row 5): the first stored value wins, as before, but the
/// outcome is `conflict`, not `unchanged`, across batches and within one, in the set-based path and in the row-by-row
/// one (a batch holding a retraction), on SQLite and PostgreSQL; the outcome counters count it.
@Suite(.timeLimit(.minutes(2)))
struct VersionConflictContractTests {
    /// Value letters as in docs/LIFECYCLE.md's tables.
    private static let a = 60.0, b = 70.0

    private func value(_ version: Int64, _ value: Double, day: String = "2026-10-01") -> ObservationRecord {
        record("p-1", "heart_rate", day, version: version, value: value, status: .final)
    }

    /// The batch plus, with `rowByRow`, a winning retraction (version `step`) of another day, which sends SQLite's
    /// batch row by row and PostgreSQL's through its retraction path; returns the outcomes of `batch` only.
    private func upsert(
        _ batch: [ObservationRecord], rowByRow: Bool, step: Int64 = 1, in store: any ObservationStore
    ) async throws -> [UpsertResult] {
        guard rowByRow else { return try await store.upsert(batch) }
        let other = record("p-2", "steps", "2026-10-02", version: step)
        let retraction = ObservationRecord.retraction(
            identity: other.identity, version: step, resourceID: other.resourceID, reason: "wrong sample")
        let outcomes = try await store.upsert(batch + [retraction])
        #expect(outcomes.last == .retracted)
        return Array(outcomes.dropLast())
    }

    @Test(arguments: StoreKind.sqlStores, [false, true])
    func acrossBatches(kind: StoreKind, rowByRow: Bool) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            #expect(try await upsert([value(5, Self.a)], rowByRow: rowByRow, in: store) == [.inserted])
            let stored = try await store.observation(for: value(5, Self.a).identity)

            #expect(try await upsert([value(5, Self.b)], rowByRow: rowByRow, step: 2, in: store) == [.conflict])
            #expect(try await store.observation(for: value(5, Self.a).identity) == stored, "the first stored wins")
            #expect(try await upsert([value(5, Self.a)], rowByRow: rowByRow, step: 3, in: store) == [.unchanged])
            #expect(try await upsert([value(4, Self.b)], rowByRow: rowByRow, step: 4, in: store) == [.stale])
            #expect(try await store.observation(for: value(5, Self.a).identity) == stored)

            let counts = Dictionary(
                try await store.outcomeCounts().filter { $0.metric == "heart_rate" }.map { ($0.outcome, $0.count) },
                uniquingKeysWith: +)
            #expect(counts == [.inserted: 1, .conflict: 1, .unchanged: 1, .stale: 1])
        }
    }

    /// Within one batch a record of its winner's version is compared with the value the day holds after the batch:
    /// the winner's when it was written, else the stored one (so `A` is `unchanged` beside a conflicting winner `B`).
    @Test(arguments: StoreKind.sqlStores, [false, true])
    func withinOneBatch(kind: StoreKind, rowByRow: Bool) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let (none, storedA, lower) = ("2026-10-01", "2026-10-02", "2026-10-03")
            _ = try await store.upsert([value(5, Self.a, day: storedA), value(4, Self.a, day: lower)])
            let batch = [
                value(5, Self.a, day: none), value(5, Self.b, day: none), value(5, Self.a, day: none),
                value(5, Self.b, day: storedA), value(5, Self.a, day: storedA), value(5, Self.b, day: storedA),
                value(5, Self.b, day: lower), value(5, Self.a, day: lower), value(3, Self.b, day: lower),
            ]
            #expect(
                try await upsert(batch, rowByRow: rowByRow, in: store) == [
                    .inserted, .conflict, .unchanged,
                    .conflict, .unchanged, .conflict,
                    .updated, .conflict, .stale,
                ])
            // A final A replaced by B is amended (docs/LIFECYCLE.md); the conflicting records changed nothing.
            let kept = [(none, Self.a, "final"), (storedA, Self.a, "final"), (lower, Self.b, "amended")]
            for (day, kept, status) in kept {
                let row = try #require(try await store.observation(for: value(5, kept, day: day).identity))
                let expected = value(5, kept, day: day).resource(status: ObservationStatus(rawValue: status))
                #expect(
                    try sameJSON(row.resource, expected, versionId: row.versionId, lastUpdated: row.lastUpdated),
                    "\(day)")
            }
        }
    }

    /// A retraction never conflicts, and a value of a retraction's version is `unchanged` (docs/LIFECYCLE.md).
    @Test(arguments: StoreKind.databases)
    func retractionsDoNotConflict(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let stored = value(5, Self.a)
            let retraction = ObservationRecord.retraction(
                identity: stored.identity, version: 5, resourceID: stored.resourceID, reason: "wrong sample")
            let first = try await store.upsert([stored, retraction, value(5, Self.b)])
            #expect(first == [.inserted, .unchanged, .conflict])
            #expect(try await store.upsert([retraction]) == [.unchanged])
            #expect(try await store.upsert([retraction.withVersion(6), value(6, Self.b)]) == [.retracted, .unchanged])
        }
    }
}

extension ObservationRecord {
    fileprivate func withVersion(_ version: Int64) -> ObservationRecord {
        var copy = self
        copy.version = version
        return copy
    }
}
