import DailyValueContract
import Essentials
import Foundation
import SQLiteClient
import Synchronization
import TestSupport
import Testing

@testable import ObservationMapping
@testable import SQLiteStore
@testable import StoreCore

/// The online upgrade of a SQLite store to the lean row (migration 8, docs/STORAGE.md): a file written by the older
/// build (the resource as text), opened by the new one (metadata only), written beside its old rows, then migrated
/// batch by batch — every row reads back byte for byte as before — and the lifecycle going on over migrated rows.
@Suite("SQLite lean row upgrade", .serialized, .timeLimit(.minutes(2)))
struct SQLiteLeanUpgradeTests {
    static let preliminary = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-20")
    static let final = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-21")
    static let amended = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-22")
    static let retracted = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-23")
    static let panel = ObservationIdentity(patient: "p-2", metric: "blood_pressure", day: "2026-09-21")
    /// A row of a build older than the meta columns: its text has no versionId, so it cannot become a document that
    /// reads back the same, and migrate keeps it.
    static let ancient = ObservationIdentity(patient: "p-3", metric: "steps", day: "2026-09-21")

    @Test("An older-shape file upgrades online: old rows read whole, migrate rewrites them byte for byte")
    func upgradesOnline() async throws {
        try await TestStores.withFreshLocation(.sqlite) { location in
            guard case .sqlite(let path) = location else { return }
            try Self.seedOlderShape(path)

            let store = try await SQLiteObservationStore(path: path)
            #expect(try await store.schemaVersion() == SQLiteSchema.migrations.count)
            let identities = [Self.preliminary, Self.final, Self.amended, Self.retracted, Self.panel, Self.ancient]
            var before: [ObservationIdentity: StoredObservation] = [:]
            for identity in identities { before[identity] = try await store.observation(for: identity) }
            #expect(before.count == identities.count)
            #expect(before[Self.retracted]?.resource.contains(#""status":"entered-in-error""#) == true)

            // The new build writes lean rows beside the old ones.
            let fresh = try SchemaFourUpgradeTests.steps("p-4", Self.final.day, 1, 5000, .final)
            #expect(try await store.upsert([fresh]) == [.inserted])
            #expect(try await Self.olderShapeRows(location) == "6")

            let progress = Mutex<[DocumentMigrationProgress]>([])
            let done = try await store.migrateDocuments(batchSize: 2) { step in progress.withLock { $0.append(step) } }
            let lines = progress.withLock { $0 }
            #expect(done.total == 6 && done.rewritten == 5 && done.kept == 1 && done.left == 1, "\(done)")
            #expect(lines.count == 3, "one progress call per batch of 2: \(lines)")
            #expect(try await Self.olderShapeRows(location) == "1")
            for identity in identities {
                #expect(try await store.observation(for: identity) == before[identity], "\(identity)")
            }
            let facts = try await TestStores.rawText(
                location,
                """
                SELECT group_concat(metric || ':' || iif(value IS NULL, '-', printf('%g', value)) || ':'
                    || iif(systolic IS NULL, '-', printf('%g', systolic)) || ':' || unit || ':'
                    || (period_end - period_start), ' ')
                FROM (SELECT * FROM observation WHERE day = '2026-09-21' AND resource = '' ORDER BY patient, metric)
                """)
            #expect(facts == "steps:9000:-:/d:86400 blood_pressure:-:144:mm[Hg]:86400 steps:5000:-:/d:86400")

            // storectl on the same file: nothing left it can rewrite; the kept row is said.
            let again = try await ChildProcess.run(
                try TestEnvironment.requireBinary("storectl").path, ["migrate", "--store", "sqlite:\(path)"])
            #expect(again.status == 1, "\(again.standardOutput) \(again.standardError)")
            #expect(again.standardOutput.contains("done: rewritten 0, kept 1, left in the older shape 1"))

            // The lifecycle goes on over migrated rows: finalize flips the preliminary day (its period from the
            // column), an equal value keeps a final day final and a different one makes it amended (against the
            // digest of the migrated clinical value).
            #expect(try await store.finalize(settledBefore: Int64(Date().timeIntervalSince1970)) == 1)
            let flipped = try #require(try await store.observation(for: Self.preliminary))
            #expect(flipped.resource.contains(#""status":"final""#) && flipped.versionId == 2)
            let same = try SchemaFourUpgradeTests.steps("p-1", Self.final.day, 2, 9000, .final)
            let different = try SchemaFourUpgradeTests.steps("p-1", Self.amended.day, 2, 7500, .final)
            #expect(try await store.upsert([same, different]) == [.updated, .updated])
            #expect(try await store.observation(for: Self.final)?.resource.contains(#""status":"final""#) == true)
            #expect(try await store.observation(for: Self.amended)?.resource.contains(#""status":"amended""#) == true)
            await store.close()
        }
    }

    /// The file an older build left: migrations 1–7 and rows as its upsert wrote them (the resource whole, its meta
    /// and status inside; the clinical value as text).
    static func seedOlderShape(_ path: String) throws {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 5000)
        try SchemaMigrator.migrate(Array(SQLiteSchema.migrations.prefix(7)), on: connection)
        let insert = try connection.statement(
            """
            INSERT INTO observation (patient, metric, day, version, resource_id, resource, version_id, last_updated,
                status, clinical_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let stamp = "2026-10-02T06:15:03.120Z"
        func seed(_ record: ObservationRecord, status: String, versionId: Int64) throws {
            let resource =
                record.resourceHead + #""versionId":"\#(versionId)","lastUpdated":"\#(stamp)","# + record.resourceTail
                + "\"\(status)\"" + record.resourceAfterStatus
            let identity = record.identity
            try insert.run([
                .text(identity.patient), .text(identity.metric), .text(identity.day), .integer(record.version),
                .text(record.resourceID), .text(resource), .integer(versionId), .text(stamp), .text(status),
                .text(record.clinicalValue),
            ])
        }
        try seed(
            SchemaFourUpgradeTests.steps("p-1", preliminary.day, 1, 8042, .preliminary), status: "preliminary",
            versionId: 1)
        try seed(SchemaFourUpgradeTests.steps("p-1", final.day, 1, 9000, .final), status: "final", versionId: 1)
        try seed(SchemaFourUpgradeTests.steps("p-1", amended.day, 1, 7000, .final), status: "final", versionId: 1)
        try seed(
            SchemaFourUpgradeTests.steps("p-1", retracted.day, 1, 6000, .final), status: "entered-in-error",
            versionId: 2)
        var event = ObservationSamples.value(
            for: MetricCatalog.builtin["blood_pressure"]!, patient: "p-2", day: panel.day)
        (event.version, event.status) = (1, .final)
        try seed(
            try Fixtures.mapper.map(event, recordTimestampMs: Fixtures.ms("2026-10-02T06:00:00Z")), status: "final",
            versionId: 1)
        try connection.statement(
            """
            INSERT INTO observation (patient, metric, day, version, resource_id, resource, version_id, last_updated)
            VALUES ('p-3', 'steps', '2026-09-21', 7, 'abc',
                '{"resourceType":"Observation","id":"abc","meta":{"source":"s"}}', 3, '2026-10-02T06:15:03.120Z')
            """
        ).run([])
    }

    static func olderShapeRows(_ location: StoreLocation) async throws -> String? {
        try await TestStores.rawText(location, "SELECT count(*) FROM observation WHERE resource <> ''")
    }
}
