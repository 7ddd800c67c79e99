import DailyValueContract
import Foundation
import ObservationMapping
import StoreCore
import TestSupport
import Testing

/// Runs `scripts/validate_fhir.py` (fhirkit-rs + fhir.resources R4 + product lint) on what the mapper emits.
@Suite(.serialized) struct FHIRValidationTests {
    /// Runs the script on `directory` with the venv python (``TestPython``: `DVP_PYTHON`, else `.venv`, created
    /// when missing; none → the test fails, never skips); returns the exit status and the output of both streams.
    static func validate(_ directory: URL) async throws -> (status: Int32, output: String) {
        let result = try await ChildProcess.run(
            try await TestPython.executable().path, [TestEnvironment.script("validate_fhir.py"), directory.path])
        return (result.status, result.stdout + result.stderr)
    }

    /// A fresh directory holding the exported catalog and `resources` (name → JSON).
    static func directory(_ resources: [String: String]) throws -> URL {
        let dir = try TestEnvironment.temporaryDirectory("fhir")
        try MetricCatalog.builtin.exportJSON().write(to: dir.appendingPathComponent("metric-catalog.json"))
        for (name, json) in resources {
            try Data(json.utf8).write(to: dir.appendingPathComponent("\(name).json"))
        }
        return dir
    }

    @Test(.timeLimit(.minutes(2))) func everyEmittedResourcePassesBothValidatorsAndTheLint() async throws {
        let records = try ObservationSamples.records()
        #expect(records.count == MetricCatalog.builtin.allMetrics.count + ObservationSamples.days.count + 3)
        let dir = try Self.directory(records.mapValues(\.resource))
        defer { try? FileManager.default.removeItem(at: dir) }
        let (status, output) = try await Self.validate(dir)
        #expect(status == 0, "\(output)")
        #expect(output.contains("\(records.count)/\(records.count) valid"), "\(output)")
    }

    /// What a store keeps is the mapped resource plus the `meta.versionId` / `meta.lastUpdated` it decided (on insert
    /// and on a replace), and that stored resource, read back as is, still passes both validators and the lint.
    @Test(.timeLimit(.minutes(2)), arguments: StoreKind.databases)
    func storedResourcesCarryMetaAndPassBothValidators(kind: StoreKind) async throws {
        // One identity per sample (some samples share patient, metric and day).
        let records = Dictionary(
            uniqueKeysWithValues: try ObservationSamples.records().map { name, record in
                var record = record
                record.identity.patient += "-" + name
                return (name, record)
            })
        let names = records.keys.sorted()
        let replaced = Set(names.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        let stored = try await TestStores.withFreshStore(kind) { store, _ in
            let inserts = names.map { records[$0]! }
            #expect(try await store.upsert(inserts) == Array(repeating: .inserted, count: inserts.count))
            let replaces = replaced.sorted().map { name in
                var record = records[name]!
                record.version += 1
                return record
            }
            #expect(try await store.upsert(replaces) == Array(repeating: .updated, count: replaces.count))
            var stored: [String: StoredObservation] = [:]
            for name in names { stored[name] = try await store.observation(for: records[name]!.identity) }
            return stored
        }
        #expect(stored.count == records.count)
        for (name, row) in stored {
            let versionId: Int64 = replaced.contains(name) ? 2 : 1
            #expect(row.versionId == versionId, "\(name)")
            #expect(
                try sameJSON(row.resource, records[name]!.resource, versionId: versionId, lastUpdated: row.lastUpdated),
                "\(name): \(row.resource)")
            let meta = try storedMeta(row.resource)
            #expect(meta["source"] as? String == Fixtures.configuration.metaSource, "\(name)")
        }
        let dir = try Self.directory(stored.mapValues(\.resource))
        defer { try? FileManager.default.removeItem(at: dir) }
        let (status, output) = try await Self.validate(dir)
        #expect(status == 0, "\(output)")
        #expect(output.contains("\(stored.count)/\(stored.count) valid"), "\(output)")
    }

    /// The lifecycle's statuses as the stores write them (docs/LIFECYCLE.md): every metric stored preliminary; two
    /// thirds then made final and replaced by a different value (amended), half of those then retracted
    /// (entered-in-error); each stored resource passes both validators and the lint.
    @Test(.timeLimit(.minutes(2)), arguments: StoreKind.databases)
    func lifecycleStatusesPassBothValidators(kind: StoreKind) async throws {
        let issued = Fixtures.ms("2026-11-01T06:15:03Z")
        let metrics = MetricCatalog.builtin.allMetrics
        func mapped(_ metric: Metric, _ status: DailyValue.Status, version: Int64, changed: Bool) throws
            -> ObservationRecord
        {
            var value = ObservationSamples.value(for: metric)
            value.status = status
            value.version = version
            if changed {
                value.value = value.min ?? value.value.map { ($0 * 9).rounded() / 10 }
                value.components = value.components.map { part in
                    var part = part
                    part.value = part.min ?? part.value
                    return part
                }
            }
            return try Fixtures.mapper.map(value, recordTimestampMs: issued)
        }
        let stored = try await TestStores.withFreshStore(kind) { store, _ in
            var stored: [String: StoredObservation] = [:]
            for (index, metric) in metrics.enumerated() {
                var steps = [try mapped(metric, .preliminary, version: 1, changed: false)]
                if index % 3 != 0 {
                    steps += [
                        try mapped(metric, .final, version: 2, changed: false),
                        try mapped(metric, .final, version: 3, changed: true),
                    ]
                }
                if index % 3 == 2 {
                    steps.append(
                        .retraction(
                            identity: steps[0].identity, version: 4, resourceID: steps[0].resourceID, reason: "test"))
                }
                for step in steps { _ = try await store.upsert([step]) }
                let row = try #require(try await store.observation(for: steps[0].identity))
                let expected: ObservationStatus = [.preliminary, .amended, .enteredInError][index % 3]
                #expect(try storedStatus(row.resource) == expected.rawValue, "\(metric.key)")
                stored["\(expected.rawValue)-\(metric.key)"] = row
            }
            return stored
        }
        let dir = try Self.directory(stored.mapValues(\.resource))
        defer { try? FileManager.default.removeItem(at: dir) }
        let (status, output) = try await Self.validate(dir)
        #expect(status == 0, "\(output)")
        #expect(output.contains("\(stored.count)/\(stored.count) valid"), "\(output)")
    }

    private func storedStatus(_ resource: String) throws -> String? {
        (try JSONSerialization.jsonObject(with: Data(resource.utf8)) as? [String: Any])?["status"] as? String
    }

    /// Each broken variant of a good resource must make the script fail, naming the file.
    @Test(.timeLimit(.minutes(2))) func brokenResourcesAreRejected() async throws {
        let good = try Fixtures.mapper.map(
            ObservationSamples.value(for: MetricCatalog.builtin["heart_rate"]!),
            recordTimestampMs: Fixtures.ms("2026-11-01T06:15:03Z")
        ).resource
        let breakages: [String: (String, String)] = [
            "offset-without-seconds": (
                "\"start\":\"2026-10-01T00:00:00+02:00\"", "\"start\":\"2026-10-01T00:00+02:00\""
            ),
            "no-offset": ("\"end\":\"2026-10-02T00:00:00+02:00\"", "\"end\":\"2026-10-02T00:00:00\""),
            "wrong-ucum": ("\"code\":\"/min\"", "\"code\":\"bpm\""),
            "bad-status": ("\"status\":\"final\"", "\"status\":\"done\""),
            "wrong-category": ("\"code\":\"vital-signs\"", "\"code\":\"activity\""),
            "period-48h": ("\"end\":\"2026-10-02T00:00:00+02:00\"", "\"end\":\"2026-10-03T00:00:00+02:00\""),
            "bad-id": ("\"id\":\"", "\"id\":\"has_underscore"),
            "statistics-max": ("\"code\":\"8873-2\"", "\"code\":\"max\""),
        ]
        let broken = breakages.mapValues { good.replacingOccurrences(of: $0.0, with: $0.1) }
        for (name, json) in broken { #expect(json != good, "\(name) did not change the resource") }
        // The unbroken resource passes, so each failure below is caused by its breakage.
        let control = try Self.directory(["good": good])
        defer { try? FileManager.default.removeItem(at: control) }
        #expect(try await Self.validate(control).status == 0)

        let dir = try Self.directory(broken)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (status, output) = try await Self.validate(dir)
        #expect(status == 1, "\(output)")
        for name in broken.keys {
            #expect(output.contains("\(name).json: "), "no failure reported for \(name): \(output)")
        }
        #expect(output.contains("0/\(broken.count) valid"), "\(output)")
    }
}
