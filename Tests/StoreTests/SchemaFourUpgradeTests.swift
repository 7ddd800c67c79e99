import DailyValueContract
import DocumentCompression
import Essentials
import Foundation
import Hashing
@testable import ObservationMapping
import PostgresClient
@testable import PostgresStore
@testable import StoreCore
import TestSupport
import Testing

/// The online upgrade of a PostgreSQL store from schema 3 (the resource as `jsonb`) to schema 4 (facts in columns,
/// the document compressed: docs/STORAGE.md), with rows in every lifecycle state: opened by the new build (metadata
/// only), written by it while old rows are still in place, then `storectl migrate` (batched, resumable, progress
/// lines), and the lifecycle going on over the migrated rows.
@Suite("PostgreSQL schema 4 upgrade", .serialized, .timeLimit(.minutes(3)))
struct SchemaFourUpgradeTests {
    /// The days seeded at schema 3, one per lifecycle state (docs/LIFECYCLE.md), and what each became.
    static let preliminary = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-20")
    static let final = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-21")
    static let amended = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-22")
    static let retracted = ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-09-23")
    static let rewrittenLive = ObservationIdentity(patient: "p-2", metric: "steps", day: "2026-09-21")
    static let panel = ObservationIdentity(patient: "p-2", metric: "blood_pressure", day: "2026-09-21")

    @Test("A schema-3 store upgrades online: old rows read whole, new writes beside them, migrate rewrites the rest")
    func upgradesOnline() async throws {
        let seeded = try await Self.schemaThreeRows()
        try await TestStores.withFreshLocation(.postgres) { location in
            guard case .postgres(let url) = location else { return }
            try await Self.seedSchemaThree(location, seeded)

            // The new build opens it (migration 7: metadata only) and reads every old row whole.
            let store = try await TestStores.open(location)
            #expect(try await store.schemaVersion() == PostgresSchema.migrations.count)
            #expect(try await Self.oldShapeRows(location) == String(seeded.rows.count))
            for row in seeded.rows { try await Self.expectSame(store, row) }

            // A worker of the new build replaces an old final day with an equal value (judged against the schema-3
            // clinical value: still final) and writes a new day; both land in schema 4 beside the old rows.
            let equal = try Self.steps("p-2", Self.rewrittenLive.day, 9, 9000, .final)
            #expect(try await store.upsert([equal]) == [.updated])
            let live = try #require(try await store.observation(for: Self.rewrittenLive))
            #expect(live.versionId == 2 && live.resource.contains(#""status":"final""#), "\(live.resource)")
            #expect(try await Self.oldShapeRows(location) == String(seeded.rows.count - 1))

            // A pod of the older build replacing a schema-4 row (its statement sets `resource`) is refused by the
            // check constraint: its batch fails, nothing is half-written.
            let oldPod = QueueConfined(label: "test.old-pod", try PostgresConnection(connectionString: url))
            let refused = try await oldPod.run { connection -> String in
                do {
                    _ = try connection.execute(
                        """
                        UPDATE observation SET version = 99, resource = '{"resourceType":"Observation"}',
                            clinical_value = 'x' WHERE patient = 'p-2' AND day = '\(Self.rewrittenLive.day)'
                            AND metric = 'steps'
                        """)
                    return "written"
                } catch { return (error as? PostgresError)?.sqlState ?? "\(error)" }
            }
            #expect(refused == "23514", "check_violation")
            #expect(try await store.observation(for: Self.rewrittenLive) == live)

            // A writer holds one old row: migrate skips it (never waits), says so, exits 1; the next run gets it.
            let other = QueueConfined(label: "test.migrate-held", try PostgresConnection(connectionString: url))
            try await other.run { connection in
                _ = try connection.execute("BEGIN")
                _ = try connection.execute(
                    "SELECT 1 FROM observation WHERE patient = 'p-1' AND day = '\(Self.final.day)' FOR UPDATE")
            }
            let held = try await ChildProcess.run(
                try ChildProcess.storectl(), ["migrate", "--store", url, "--batch", "2"])
            try await other.run { connection in _ = try connection.execute("COMMIT") }
            #expect(held.status == 1, "\(held.standardOutput) \(held.standardError)")
            let progress = held.standardOutput.split(separator: "\n").filter { $0.hasPrefix("migrated ") }
            #expect(progress.count >= 2, "one progress line per batch of 2: \(held.standardOutput)")
            #expect(held.standardOutput.contains("left in the older shape 1"), "\(held.standardOutput)")
            #expect(held.standardError.contains("run migrate again"), "\(held.standardError)")
            #expect(try await Self.oldShapeRows(location) == "1")

            let rest = try await ChildProcess.storectl(["migrate", "--store", url])
            #expect(rest.standardOutput.contains("done: rewritten 1, kept 0, left in the older shape 0"))
            #expect(try await Self.oldShapeRows(location) == "0")
            let again = try await ChildProcess.storectl(["migrate", "--store", url])
            #expect(again.standardOutput.contains("done: rewritten 0"), "a finished migration is a no-op")

            // Every migrated row reads as before (meta, status, version kept: a migration is not a new version),
            // its facts are in the columns and its document decompresses on its own.
            for row in seeded.rows where row.identity != Self.rewrittenLive { try await Self.expectSame(store, row) }
            let facts = try await TestStores.rawText(
                location,
                """
                SELECT string_agg(metric || ':' || coalesce(value::text, '-') || ':' || coalesce(systolic::text, '-')
                    || ':' || unit || ':' || (period_end - period_start), ' ' ORDER BY patient, metric, day)
                FROM observation WHERE day = '2026-09-21'
                """)
            #expect(facts == "steps:9000:-:/d:1 day blood_pressure:-:144:mm[Hg]:1 day steps:9000:-:/d:1 day")
            #expect(try await Self.allDocumentsDecompress(location))

            // The lifecycle goes on over migrated rows: finalize flips the preliminary day (its period from the
            // migrated columns), a different value on the final day makes it amended (against the migrated digest).
            #expect(try await store.finalize(settledBefore: Int64(Date().timeIntervalSince1970)) == 1)
            let flipped = try #require(try await store.observation(for: Self.preliminary))
            #expect(flipped.resource.contains(#""status":"final""#) && flipped.versionId == 2)
            let same = try Self.steps("p-1", Self.final.day, 9, 9000, .final)
            let different = try Self.steps("p-1", Self.final.day, 10, 9500, .final)
            #expect(try await store.upsert([same]) == [.updated])
            #expect(try await store.observation(for: Self.final)?.resource.contains(#""status":"final""#) == true)
            #expect(try await store.upsert([different]) == [.updated])
            #expect(try await store.observation(for: Self.final)?.resource.contains(#""status":"amended""#) == true)
            await store.close()
        }
    }

    // MARK: - Seeding a schema-3 store

    /// A schema-3 row: its columns and the resource an older build wrote (whole, with meta and status).
    struct SeededRow: Sendable {
        var identity: ObservationIdentity
        var version: Int64
        var resourceID: String
        var versionId: Int64
        var lastUpdated: String
        var status: String
        var resource: String
        var clinicalValue: String
    }

    /// Rows in every lifecycle state, made by the current store (its read-back resource is exactly what schema 3
    /// kept), plus the retraction ledger.
    static func schemaThreeRows() async throws -> (rows: [SeededRow], ledger: [String]) {
        try await TestStores.withFreshStore(.postgres) { store, location in
            let steps = { (day: String, version: Int64, value: Double, status: DailyValue.Status) in
                try Self.steps("p-1", day, version, value, status)
            }
            var records = [
                try steps(preliminary.day, 1, 8042, .preliminary), try steps(final.day, 1, 9000, .final),
                try steps(amended.day, 1, 7000, .final), try steps(retracted.day, 1, 6000, .final),
                try Self.steps("p-2", final.day, 1, 9000, .final),
            ]
            var bp = ObservationSamples.value(
                for: MetricCatalog.builtin["blood_pressure"]!, patient: "p-2", day: panel.day)
            bp.version = 1
            records.append(try Fixtures.mapper.map(bp, recordTimestampMs: Fixtures.ms("2026-10-02T06:00:00Z")))
            for record in records { _ = try await store.upsert([record]) }
            _ = try await store.upsert([try steps(amended.day, 2, 7100, .final)])
            let retraction = ObservationIdentity(patient: "p-1", metric: "steps", day: retracted.day)
            _ = try await store.upsert([
                .retraction(identity: retraction, version: 5, resourceID: records[3].resourceID, reason: "wrong"),
                .retraction(
                    identity: ObservationIdentity(patient: "p-3", metric: "steps", day: "2026-09-24"), version: 4,
                    resourceID: "never-stored", reason: "never stored"),
            ])
            let clinical = Dictionary(records.map { ($0.identity, $0.clinicalValue) }, uniquingKeysWith: { $1 })
            var rows: [SeededRow] = []
            for patient in ["p-1", "p-2"] {
                for stored in try await store.observations(patient: patient) {
                    let status = try #require(
                        try await TestStores.rawText(
                            location,
                            "SELECT status FROM observation WHERE patient = '\(patient)' AND metric = '"
                                + "\(stored.identity.metric)' AND day = '\(stored.identity.day)'"))
                    let value =
                        stored.identity == amended
                        ? try steps(amended.day, 2, 7100, .final).clinicalValue : clinical[stored.identity] ?? ""
                    rows.append(
                        SeededRow(
                            identity: stored.identity, version: stored.version, resourceID: stored.resourceID,
                            versionId: stored.versionId, lastUpdated: stored.lastUpdated, status: status,
                            resource: stored.resource, clinicalValue: value))
                }
            }
            let ledger = try #require(
                try await TestStores.rawText(
                    location,
                    """
                    SELECT string_agg(format('(%L, %L, %L, %s, %L, %L, %s)', patient, metric, day, version, reason,
                        recorded_at, coalesce(version_id::text, 'NULL')), ', ') FROM retraction
                    """))
            #expect(
                rows.map(\.status).sorted() == [
                    "amended", "entered-in-error", "final", "final", "final", "preliminary",
                ])
            return (rows, [ledger])
        }
    }

    /// Creates a database at schema version 6 (the last of schema 3) holding `seeded` as an older build wrote it.
    static func seedSchemaThree(_ location: StoreLocation, _ seeded: (rows: [SeededRow], ledger: [String]))
        async throws
    {
        let values = seeded.rows.map { row in
            "('\(row.identity.patient)', '\(row.identity.metric)', '\(row.identity.day)', \(row.version), "
                + "'\(row.resourceID)', $r$\(row.resource)$r$::jsonb, \(row.versionId), '\(row.lastUpdated)', "
                + "'\(row.status)', \(row.clinicalValue.isEmpty ? "NULL" : "$c$\(row.clinicalValue)$c$"))"
        }
        try await TestStores.rawExecute(
            location,
            PostgresSchema.migrations.prefix(6).joined(separator: "\n") + """

                CREATE TABLE schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
                INSERT INTO schema_version (version) VALUES (1), (2), (3), (4), (5), (6);
                INSERT INTO observation (patient, metric, day, version, resource_id, resource, version_id,
                    last_updated, status, clinical_value) VALUES \(values.joined(separator: ", "));
                INSERT INTO retraction (patient, metric, day, version, reason, recorded_at, version_id)
                    VALUES \(seeded.ledger.joined(separator: ", "));
                """)
    }

    // MARK: - Checks

    /// A mapped steps day of `patient`.
    static func steps(
        _ patient: String, _ day: String, _ version: Int64, _ value: Double, _ status: DailyValue.Status
    ) throws -> ObservationRecord {
        var event = ObservationSamples.value(for: MetricCatalog.builtin["steps"]!, patient: patient, day: day)
        (event.value, event.version, event.status) = (value, version, status)
        return try Fixtures.mapper.map(event, recordTimestampMs: Fixtures.ms("2026-10-02T06:00:00Z"))
    }

    /// The store reads `row` as the older build wrote it: the same JSON value, the same version and meta.
    static func expectSame(
        _ store: any ObservationStore, _ row: SeededRow, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let stored = try #require(try await store.observation(for: row.identity), sourceLocation: sourceLocation)
        #expect(
            stored.version == row.version && stored.versionId == row.versionId && stored.lastUpdated == row.lastUpdated,
            sourceLocation: sourceLocation)
        let (a, b) = try (
            JSONSerialization.jsonObject(with: Data(stored.resource.utf8)),
            JSONSerialization.jsonObject(with: Data(row.resource.utf8))
        )
        #expect(
            NSDictionary(dictionary: a as? [String: Any] ?? [:])
                == NSDictionary(dictionary: b as? [String: Any] ?? [:]),
            "\(row.identity): \(stored.resource) vs \(row.resource)", sourceLocation: sourceLocation)
    }

    static func oldShapeRows(_ location: StoreLocation) async throws -> String? {
        try await TestStores.rawText(location, "SELECT count(*) FROM observation WHERE resource IS NOT NULL")
    }

    /// Every document decompresses with a fresh decompressor (the dictionary its header names).
    static func allDocumentsDecompress(_ location: StoreLocation) async throws -> Bool {
        let hex = try #require(
            try await TestStores.rawText(location, "SELECT string_agg(encode(document, 'hex'), ' ') FROM observation"))
        let decompressor = DocumentDecompressor()
        return try hex.split(separator: " ").allSatisfy { text in
            let (content, parts) = try decompressor.parts(of: try #require(Hex.bytes(text)))
            return !content.isEmpty && (2...3).contains(parts.count)
        }
    }
}
