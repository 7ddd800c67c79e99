import DailyValueContract
import Foundation
import ObservationMapping
import ObservationStores
@testable import StoreCore
import TestSupport
import Testing

/// Erasure and consent withdrawal in the SQL stores (docs/PRIVACY.md): the ledger, the upsert path's check, and
/// deletes that leave nothing of the person behind.
@Suite("Erasure")
struct ErasureTests {
    static let erased = "erasure-subject-7q"
    static let others = ["keeper-a1", "keeper-b2"]

    /// A heart-rate value of `patient` for `day` at `version` (value varies with the version).
    static func record(_ patient: String, _ day: String, version: Int64, metric: String = "heart_rate") throws
        -> ObservationRecord
    {
        var value = ObservationSamples.value(for: MetricCatalog.builtin[metric]!, patient: patient, day: day)
        value.version = version
        if value.value != nil { value.value = 60 + Double(version % 20) }
        return try Fixtures.mapper.map(value, recordTimestampMs: version)
    }

    /// A messy history for each person: several days and metrics, replaced versions, duplicates, a stale one.
    static func history(_ patients: [String]) throws -> [[ObservationRecord]] {
        var batches: [[ObservationRecord]] = []
        for version in [Int64(100), 200, 150, 200, 300] {
            batches.append(
                try patients.flatMap { patient in
                    try ["2026-10-01", "2026-10-02", "2026-10-03"].flatMap { day in
                        [try record(patient, day, version: version),
                         try record(patient, day, version: version, metric: "steps")]
                    }
                })
        }
        return batches
    }

    static func request(_ mode: ErasureMode, dryRun: Bool = false, _ patients: [String] = [erased]) -> ErasureRequest {
        ErasureRequest(
            subjects: patients.map { .patient($0) }, mode: mode, reference: "ticket-4711", dryRun: dryRun,
            key: TestStores.erasureKey)
    }

    @Test("erase: every row of the person goes, every other row stays byte-identical, later events are erased", arguments: StoreKind.sqlStores)
    func eraseOnePerson(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, location in
            for batch in try Self.history([Self.erased] + Self.others) { _ = try await store.upsert(batch) }
            var before: [String: [StoredObservation]] = [:]
            for patient in Self.others { before[patient] = try await store.observations(patient: patient) }
            #expect(try await store.observations(patient: Self.erased).count == 6)
            let erasure = try #require(store.capabilities.erasure)
            try await Self.expectOccurrence(of: Self.erased, in: location, present: true)

            let dry = try await erasure.erase(Self.request(.erase, dryRun: true))
            #expect(dry.subjects.map(\.deleted.observations) == [6])
            #expect(try await store.observations(patient: Self.erased).count == 6, "a dry run changes nothing")
            #expect(try await erasure.erasureLedger().isEmpty)

            let report = try await erasure.erase(Self.request(.erase))
            #expect(report.isComplete)
            #expect(report.subjects.map(\.recorded) == [true])
            #expect(report.subjects.map(\.deleted.observations) == [6])
            #expect(try await store.observations(patient: Self.erased).isEmpty)
            for patient in Self.others {
                #expect(try await store.observations(patient: patient) == before[patient], "\(patient) untouched")
            }
            let ledger = try await erasure.erasureLedger()
            #expect(ledger.count == 1)
            #expect(ledger.first?.mode == .erase && ledger.first?.completedAt != nil)
            #expect(ledger.first?.pseudonym == TestStores.erasureKey.pseudonym(of: Self.erased))
            #expect(ledger.first?.deleted.observations == 6)

            // New, late, duplicate and stale events of the person: all erased, nothing stored.
            let late = [
                try Self.record(Self.erased, "2026-10-01", version: 400),
                try Self.record(Self.erased, "2026-10-04", version: 50),
                try Self.record(Self.erased, "2026-10-02", version: 300),
                try Self.record(Self.others[0], "2026-10-05", version: 10),
            ]
            #expect(try await store.upsert(late) == [.erased, .erased, .erased, .inserted])
            #expect(try await store.observations(patient: Self.erased).isEmpty)
            let counts = try await store.outcomeCounts().filter { $0.outcome == .erased }
            #expect(counts.reduce(0) { $0 + $1.count } == 3)

            // Erasing again is complete and writes no second entry.
            let again = try await erasure.erase(Self.request(.erase))
            #expect(again.isComplete && again.subjects.map(\.recorded) == [false])
            #expect(try await erasure.erasureLedger().count == 1)
            await #expect(throws: StoreError.self) { try await erasure.erase(Self.request(.lift)) }
            try await Self.expectOccurrence(of: Self.erased, in: location, present: false)
            try await Self.expectOccurrence(of: Self.others[0], in: location, present: true)
        }
    }

    @Test("withdraw keeps the stored rows and refuses new events; lift stores them again", arguments: StoreKind.sqlStores)
    func withdrawAndLift(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            for batch in try Self.history([Self.erased]) { _ = try await store.upsert(batch) }
            let held = try await store.observations(patient: Self.erased)
            let erasure = try #require(store.capabilities.erasure)
            let report = try await erasure.erase(Self.request(.withdraw))
            #expect(report.isComplete && report.subjects.map(\.deleted) == [ErasureCounts()])
            #expect(try await store.observations(patient: Self.erased) == held)
            #expect(try await store.upsert([try Self.record(Self.erased, "2026-10-01", version: 900)]) == [.erased])
            #expect(try await store.observations(patient: Self.erased) == held)
            #expect(try await erasure.refusedPseudonyms().pseudonyms.count == 1)

            _ = try await erasure.erase(Self.request(.lift))
            #expect(try await erasure.refusedPseudonyms().pseudonyms.isEmpty)
            #expect(try await store.upsert([try Self.record(Self.erased, "2026-10-01", version: 900)]) == [.updated])
            #expect(try await erasure.erasureLedger().map(\.mode) == [.withdraw, .lift])
        }
    }

    @Test("another key is refused; a store opened without a key refuses to write once its ledger has entries", arguments: StoreKind.databases)
    func keys(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, location in
            let erasure = try #require(store.capabilities.erasure)
            _ = try await erasure.erase(Self.request(.withdraw))
            var other = Self.request(.erase)
            other.key = try ErasureKey(key: Array("another key entirely, 32 bytes!!".utf8))
            await #expect(throws: StoreError.self) { try await erasure.erase(other) }
            let keyless = try await makeObservationStore(location)
            await #expect(throws: StoreError.self) {
                try await keyless.upsert([try Self.record(Self.others[0], "2026-10-01", version: 1)])
            }
            await keyless.close()
        }
    }

    @Test("an erase while a writer stores batches: no row of the person after it returns", arguments: StoreKind.sqlStores)
    func eraseWhileWriting(kind: StoreKind) async throws {
        try await TestStores.withFreshStore(kind) { store, _ in
            let erasure = try #require(store.capabilities.erasure)
            let writer = Task {
                var version: Int64 = 1
                while !Task.isCancelled && version < 400 {
                    _ = try await store.upsert(
                        try [Self.erased, Self.others[0]].map { try Self.record($0, "2026-10-01", version: version) })
                    version += 1
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            let report = try await erasure.erase(Self.request(.erase))
            #expect(report.isComplete)
            #expect(try await store.observations(patient: Self.erased).isEmpty)
            try await writer.value
            #expect(try await store.observations(patient: Self.erased).isEmpty, "no batch wrote after the erase")
            #expect(try await store.observations(patient: Self.others[0]).count == 1)
        }
    }

    /// Whether the raw database holds `patient` anywhere: SQLite's file and WAL bytes, PostgreSQL's pg_dump.
    static func expectOccurrence(of patient: String, in location: StoreLocation, present: Bool) async throws {
        let needle = Data(patient.utf8)
        switch location {
        case .sqlite(let path):
            let found = try [path, path + "-wal"].filter { FileManager.default.fileExists(atPath: $0) }.contains {
                try Data(contentsOf: URL(fileURLWithPath: $0)).range(of: needle) != nil
            }
            #expect(found == present, "the SQLite file and WAL \(present ? "lack" : "hold") \(patient)")
        case .postgres(let connectionString):
            let dump = try await ChildProcess.run("/usr/lib/postgresql/15/bin/pg_dump", ["--dbname", connectionString])
            #expect(dump.status == 0, "pg_dump: \(dump.standardError)")
            #expect(dump.standardOutput.contains(patient) == present, "pg_dump \(present ? "lacks" : "holds") \(patient)")
        case .fhir:
            break
        }
    }
}
