import DailyValueContract
import Essentials
import Foundation
import ObservationMapping
import ObservationStores
@testable import StoreCore
import TestSupport
import Testing

/// `storectl erase` and `erasures` as an operator runs them (docs/PRIVACY.md).
@Suite("storectl erase")
struct StoreCtlEraseTests {
    static func storectl(_ arguments: [String], environment: [String: String] = [:]) async throws -> ProcessResult {
        try await ChildProcess.run(
            try TestEnvironment.requireBinary("storectl").path, arguments, environment: environment)
    }

    /// The test stores' id key, in a file as an operator has it.
    static func keyFile(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("id-key").path
        try Data(Fixtures.idKey).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func seed(_ store: any ObservationStore, _ patients: [String]) async throws {
        for batch in try ErasureTests.history(patients) { _ = try await store.upsert(batch) }
    }

    static func text(_ location: StoreLocation) -> String {
        switch location {
        case .sqlite(let path): "sqlite:" + path
        case .postgres(let url): url
        case .fhir(let url): "fhir+" + url
        }
    }

    @Test("dry run, erase, the ledger listed without ids, and re-applied to a restored store", arguments: StoreKind.databases)
    func eraseListReapply(kind: StoreKind) async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-storectl-erase")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try Self.keyFile(in: directory)
        let person = ErasureTests.erased, keeper = ErasureTests.others[0]
        let ledgerFile = directory.appendingPathComponent("ledger.ndjson")
        try await TestStores.withFreshStore(kind) { store, location in
            try await Self.seed(store, [person, keeper])
            let common = ["--store", Self.text(location), "--id-key-file", key]
            let dry = try await Self.storectl(
                ["erase"] + common + ["--patient", person, "--reference", "DSR-1", "--dry-run"])
            #expect(dry.status == 0, "\(dry.stderr)")
            #expect(dry.stdout.contains("would delete 6 Observations"), "\(dry.stdout)")
            #expect(try await store.observations(patient: person).count == 6)

            let run = try await Self.storectl(["erase"] + common + ["--patient", person, "--reference", "DSR-1"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("erased (ledger entry written); deleted 6 Observations"), "\(run.stdout)")
            #expect(!run.stdout.contains(person) && !run.stderr.contains(person), "the output names the person")
            #expect(try await store.observations(patient: person).isEmpty)

            let listing = try await Self.storectl(["erasures", "--store", Self.text(location)])
            #expect(listing.status == 0, "\(listing.stderr)")
            #expect(listing.stdout.contains("DSR-1") && listing.stdout.contains("erase"), "\(listing.stdout)")
            #expect(!listing.stdout.contains(person))
            let json = try await Self.storectl(["erasures", "--store", Self.text(location), "--json"])
            #expect(json.status == 0 && !json.stdout.contains(person))
            try json.stdout.write(to: ledgerFile, atomically: true, encoding: .utf8)
        }
        // A backup restored from before the erasure holds the person again: re-applying the ledger erases them.
        try await TestStores.withFreshStore(kind) { store, location in
            try await Self.seed(store, [person, keeper])
            let reapply = try await Self.storectl(
                ["erase", "--store", Self.text(location), "--id-key-file", key, "--reapply-ledger", ledgerFile.path,
                 "--reference", "restore-2026-12-01"])
            #expect(reapply.status == 0, "\(reapply.stderr)")
            #expect(try await store.observations(patient: person).isEmpty)
            #expect(try await store.observations(patient: keeper).count == 6)
            #expect(try await store.upsert([try ErasureTests.record(person, "2026-10-09", version: 1)]) == [.erased])
        }
    }

    @Test("an incremental export after an erase lists the erased Observations as Bulk Data deletions", arguments: StoreKind.databases)
    func exportListsDeletions(kind: StoreKind) async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-storectl-erase-export")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try Self.keyFile(in: directory)
        let person = ErasureTests.erased, keeper = ErasureTests.others[0]
        try await TestStores.withFreshStore(kind) { store, location in
            try await Self.seed(store, [person, keeper])
            let ids = Set(try await store.observations(patient: person).map(\.resourceID))
            let full = directory.appendingPathComponent("full").path
            let first = try await Self.storectl(["export", "--store", Self.text(location), "--out", full])
            #expect(first.status == 0, "\(first.stderr)")
            let erase = try await Self.storectl(
                ["erase", "--store", Self.text(location), "--id-key-file", key, "--patient", person, "--reference", "r"])
            #expect(erase.status == 0, "\(erase.stderr)")
            _ = try await store.upsert([try ErasureTests.record(keeper, "2026-10-09", version: 1)])
            let next = directory.appendingPathComponent("next").path
            let second = try await Self.storectl(
                ["export", "--store", Self.text(location), "--out", next, "--since", full])
            #expect(second.status == 0, "\(second.stderr)")
            let manifest = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: next + "/manifest.json"))) as? [String: Any]
            let deleted = try #require(manifest?["deleted"] as? [[String: Any]])
            #expect(deleted.map { $0["type"] as? String } == ["Bundle"])
            let file = try #require(deleted.first?["url"] as? String)
            let text = try String(contentsOfFile: next + "/" + URL(fileURLWithPath: file).lastPathComponent, encoding: .utf8)
            var urls: Set<String> = []
            for line in text.split(separator: "\n") {
                let bundle = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                #expect(bundle?["type"] as? String == "transaction")
                for entry in bundle?["entry"] as? [[String: Any]] ?? [] {
                    let request = entry["request"] as? [String: String]
                    #expect(request?["method"] == "DELETE")
                    urls.insert(request?["url"] ?? "")
                }
            }
            #expect(urls == Set(ids.map { "Observation/" + $0 }))
            let output = (manifest?["output"] as? [[String: Any]]) ?? []
            #expect(output.reduce(0) { $0 + ($1["count"] as? Int ?? 0) } == 1, "only the keeper's new day")
            for name in try FileManager.default.contentsOfDirectory(atPath: next) {
                #expect(!(try String(contentsOfFile: next + "/" + name, encoding: .utf8)).contains(person))
            }
        }
    }

    @Test("what it refuses exits 2 and says why without echoing the value")
    func refusals() async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-storectl-erase-usage")
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = try Self.keyFile(in: directory)
        let store = ["--store", "sqlite:" + directory.appendingPathComponent("s.db").path]
        let ids = directory.appendingPathComponent("ids.txt")
        try "good-id-1\nbad id with s3cret\n".write(to: ids, atomically: true, encoding: .utf8)
        let cases: [(arguments: [String], says: String)] = [
            (store + ["--patient", "p-1", "--reference", "r"], "no key"),
            (store + ["--id-key-file", key, "--patient", "p-1"], "--reference"),
            (store + ["--id-key-file", key, "--reference", "r"], "no person given"),
            (store + ["--id-key-file", key, "--patient", "p-1", "--reference", "ticket for p-1"], "must not contain"),
            (store + ["--id-key-file", key, "--patient-file", ids.path, "--reference", "r"], "line 2"),
            (store + ["--id-key-file", key, "--patient", "p-1", "--reference", "r", "--mode", "forget"], "--mode"),
        ]
        for (arguments, says) in cases {
            let result = try await Self.storectl(["erase"] + arguments, environment: ["DVP_ID_KEY": ""])
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(says), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("s3cret"))
        }
        // A lift of an erasure, and another key than the ledger's: usage too.
        let erased = try await Self.storectl(
            ["erase"] + store + ["--id-key-file", key, "--patient", "p-1", "--reference", "r"])
        #expect(erased.status == 0, "\(erased.stderr)")
        let lift = try await Self.storectl(
            ["erase"] + store + ["--id-key-file", key, "--patient", "p-1", "--reference", "r", "--mode", "lift"])
        #expect(lift.status == 2 && lift.stderr.contains("cannot be lifted"), "\(lift.stderr)")
        let other = try await Self.storectl(
            ["erase"] + store + ["--patient", "p-2", "--reference", "r"],
            environment: ["DVP_ID_KEY": "another key, long enough to be accepted"])
        #expect(other.status == 2 && other.stderr.contains("another key"), "\(other.stderr)")
    }

    @Test("kill -9 during an erase, then the same erase again: complete", arguments: StoreKind.databases)
    func killDuringErase(kind: StoreKind) async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-storectl-erase-kill")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestStores.withFreshStore(kind) { store, location in
            let key = try Self.keyFile(in: directory)
            let person = ErasureTests.erased
            // Enough rows that the deletes take a while: 20 persons × 500 days × 2 metrics.
            var batch: [ObservationRecord] = []
            for offset in 0..<20_000 {
                let day = Calendar.utcGregorian.date(byAdding: .day, value: -(offset % 500), to: Fixtures.now)!
                let text = ISO8601DateFormatter.string(from: day, timeZone: .gmt, formatOptions: [.withFullDate])
                let metric = offset / 500 % 2 == 0 ? "heart_rate" : "steps"
                batch.append(try ErasureTests.record(person + "-\(offset / 1000)", text, version: 1, metric: metric))
                if batch.count == 2_000 {
                    _ = try await store.upsert(batch)
                    batch = []
                }
            }
            try await Self.seed(store, [person])
            let arguments =
                ["erase", "--store", Self.text(location), "--id-key-file", key, "--reference", "DSR-9",
                 "--patient", person]
                + (0..<20).map { "\(person)-\($0)" }.flatMap { ["--patient", $0] }
            // The erase writes its ledger entries, then deletes; the kill must land in between, whatever the load on
            // the test's own threads. PostgreSQL: another session holds one of the person's rows, so the first delete
            // waits for it. SQLite: a trigger makes every deleted row cost milliseconds, so the deletes take minutes.
            let held: HeldTransaction? =
                kind == .postgres
                ? try await HeldTransaction(
                    location,
                    "BEGIN; SELECT 1 FROM observation WHERE patient = '\(person)' AND metric = 'steps' "
                        + "LIMIT 1 FOR UPDATE")
                : nil
            if kind == .sqlite {
                try await TestStores.rawExecute(location, Self.slowDeleteTrigger)
            }
            let child = try ChildProcess(try TestEnvironment.requireBinary("storectl").path, arguments)
            var sawIncomplete = false
            let deadline = ContinuousClock.now + .seconds(120)
            while !sawIncomplete && ContinuousClock.now < deadline {
                let open = try await TestStores.rawText(
                    location, "SELECT count(*) FROM erasure WHERE completed_at IS NULL")
                sawIncomplete = (open.flatMap { Int($0) } ?? 0) > 0
                if !sawIncomplete { try await Task.sleep(for: .milliseconds(2)) }
            }
            child.signal(SIGKILL)
            _ = await child.exited()
            try await held?.commit()
            if kind == .sqlite { try await TestStores.rawExecute(location, "DROP TRIGGER slow_delete") }
            #expect(sawIncomplete, "the erase was not caught between its ledger entries and their completion")
            let rerun = try await Self.storectl(arguments)
            #expect(rerun.status == 0, "\(rerun.stderr)")
            #expect(try await store.allVersions().isEmpty)
            let ledger = try await #require(store.capabilities.erasure).erasureLedger()
            #expect(ledger.count == 21)
            #expect(ledger.allSatisfy { $0.completedAt != nil })
        }
    }

    /// An SQLite trigger that spends milliseconds of CPU on every deleted Observation (hex of a 4 MB blob).
    private static let slowDeleteTrigger = """
        CREATE TRIGGER slow_delete AFTER DELETE ON observation
        BEGIN SELECT length(hex(zeroblob(4000000))); END
        """
}
