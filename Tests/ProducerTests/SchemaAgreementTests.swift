import DailyValueContract
import Foundation
import TestSupport
import Testing

/// The published JSON Schema (schema/daily-value-v1.schema.json): generated from the catalog, printed by
/// `producer schema`, and in agreement with the decoder on every rule a schema can express (docs/SCHEMA.md).
@Suite(.serialized) struct SchemaAgreementTests {
    static let schemaFile = TestEnvironment.root.appendingPathComponent("schema/daily-value-v1.schema.json")
    /// The decoder's clock: 2026-11-01T12:00Z (the fuzz corpus's window is measured against it too).
    static let policy = ValidationPolicy.fixed(now: Date(timeIntervalSince1970: 1_793_534_400))
    static let decoder = DailyValueDecoder(catalog: .builtin, policy: policy)
    static let recordTimestampMs: Int64 = 1_793_534_400_000

    // MARK: - One source of truth

    @Test func committedSchemaIsTheCatalogsGeneratedSchema() async throws {
        let committed = try String(contentsOf: Self.schemaFile, encoding: .utf8)
        #expect(
            committed == DailyValueSchema(catalog: .builtin).json(),
            "regenerate it: swift run producer schema > schema/daily-value-v1.schema.json")
        let printed = try await ProducerTestSupport.producer(["schema"])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == committed)
        for key in MetricCatalog.builtin.metrics.keys {
            #expect(committed.contains("\"#/$defs/metric.\(key)\""), "no rules for \(key)")
        }
    }

    @Test func producerSchemaFollowsADeploymentCatalog() async throws {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let file = directory.appendingPathComponent("catalog.json")
        try Data(
            #"""
            {"metrics": {"heart_rate": {"plausibleMax": 250},
              "walking_steadiness": {"codings": [{"system": "http://example.org", "code": "ws", "display": "WS"}],
                "text": "Walking steadiness", "ucum": "%", "unitDisplay": "%", "aggregation": "latest",
                "category": "activity", "plausibleMin": 0, "plausibleMax": 100}}}
            """#.utf8
        ).write(to: file)
        let result = try await ProducerTestSupport.producer(["schema", "--catalog", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        let schema = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        let defs = try #require(schema["$defs"] as? [String: Any])
        #expect(defs["metric.walking_steadiness"] != nil)
        #expect(result.stdout.contains("\"maximum\": 250"))

        try Data(#"{"metrics": {"heart_rate": {"plausibleMaximum": 250}}}"#.utf8).write(to: file)
        let bad = try await ProducerTestSupport.producer(["schema", "--catalog", file.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("heart_rate") && bad.stderr.contains("plausibleMaximum"), "\(bad.stderr)")
        #expect(bad.stdout.isEmpty)
    }

    // MARK: - Agreement

    /// The decoder (the worker's `validateEvent`: values and retractions) and Python `jsonschema` judge the fuzz
    /// corpus, the generator's output (a quarter of it invalid, every invalid class, retractions), probes of each
    /// not-expressible rule and of the retraction event, and catalog probes (every metric and unit); they must agree
    /// on accept/reject except where a documented ``SchemaGap`` explains it, and every gap must show up at least once.
    @Test(.timeLimit(.minutes(5))) func decoderAndJSONSchemaAgree() async throws {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        var inputs: [(name: String, bytes: [UInt8])] = try Self.corpus()
        let corpusCount = inputs.count
        let generated = try await Self.generated(in: directory)
        inputs += generated.events
        inputs += Self.probes.map { ("probe \($0.name)", Array($0.json.utf8)) }
        let catalogProbes = CatalogProbes.all(.builtin)
        inputs += catalogProbes.map { ("catalog probe \($0.name)", Array($0.json.utf8)) }

        let verdicts = try await SchemaVerdict.check(inputs.map(\.bytes), schema: Self.schemaFile, in: directory)
        var total = AgreementTally()
        var byClass: [String: [String: Int]] = [:]
        for (index, input) in inputs.enumerated() {
            let error: DailyValueError?
            do {
                _ = try Self.decoder.validateEvent(input.bytes, recordTimestampMs: Self.recordTimestampMs)
                error = nil
            } catch let failure { error = failure }
            let verdict = verdicts[index]
            let gap = SchemaGap.explaining(error, input.bytes, verdict, policy: Self.policy)
            total.add(input.name, error, verdict, gap: gap)
            if let invalidClass = generated.invalidClass[input.name] {
                let outcome = "\(error?.className ?? "accepted")/" + (verdict.accepts ? "schema-valid" : "rejected")
                byClass[invalidClass, default: [:]][outcome, default: 0] += 1
            }
        }
        print(
            "schema agreement (\(corpusCount) corpus, \(generated.events.count) generated, \(Self.probes.count) "
                + "rule probes, \(catalogProbes.count) catalog probes)")
        print(total)
        print(
            "generator invalid classes: "
                + byClass.sorted { $0.key < $1.key }.map { name, outcomes in
                    "\(name) {"
                        + outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                        + "}"
                }.joined(separator: "; "))

        #expect(total.unexplained.isEmpty, "\(total.unexplained.joined(separator: "\n"))")
        #expect(Set(total.allowed.keys) == Set(SchemaGap.allCases), "every documented gap is exercised")
        #expect(total.decoderAccepted > 5_000 && total.inputs - total.decoderAccepted > 2_000)
        #expect(byClass.count == 9, "every invalid class of the generator: \(byClass.keys.sorted())")
        let retractions = generated.events.filter { $0.bytes.starts(with: Array(#"{"schema":1,"kind":"retraction""#.utf8)) }
        #expect(retractions.count > 100, "retractions in the generated input: \(retractions.count)")
    }

    // MARK: - Inputs

    static func corpus() throws -> [(name: String, bytes: [UInt8])] {
        let directory = TestEnvironment.root.appendingPathComponent("fuzz/corpus")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }
        return try names.sorted().map { name in
            (name, Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    /// `producer generate` output with its oracle: the events and the invalid class of each invalid line.
    static func generated(in directory: URL) async throws -> (
        events: [(name: String, bytes: [UInt8])], invalidClass: [String: String]
    ) {
        let out = directory.appendingPathComponent("events.jsonl")
        let oracle = directory.appendingPathComponent("oracle.tsv")
        let result = try await ProducerTestSupport.producer([
            "generate", "--patients", "50", "--days", "10", "--start-day", "2026-10-01", "--seed", "12",
            "--invalid-share", "0.25", "--late-share", "0.1", "--duplicate-share", "0.05", "--retraction-share", "0.1",
            "--out", out.path,
            "--oracle-out", oracle.path,
        ])
        guard result.status == 0 else { throw TestSetupError("producer generate failed: \(result.stderr)") }
        let lines = try Data(contentsOf: out).split(separator: 0x0A, omittingEmptySubsequences: false)
        let events = lines.enumerated().filter { !$0.element.isEmpty }.map {
            ("line \($0.offset + 1)", Array($0.element))
        }
        var invalidClass: [String: String] = [:]
        for line in try String(contentsOf: oracle, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: "\t")
            if fields.count == 3, fields[0] == "invalid" { invalidClass["line \(fields[1])"] = String(fields[2]) }
        }
        return (events, invalidClass)
    }

    /// A valid heart-rate event (or the members of `base`) with `members` replaced (`nil` removes one) and `extra`
    /// raw members appended.
    static func event(
        _ members: [String: String?] = [:], extra: String = "", base: [(String, String)] = valueMembers
    ) -> String {
        var fields = base
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + extra + "}"
    }

    /// One input per not-expressible rule (the schema accepts, the decoder rejects or the reverse), and edge
    /// cases of expressible rules where regex engines differ (a trailing newline before `$`).
    static let probes: [(name: String, json: String)] = [
        ("payload over 64 KiB", event(extra: #","pad":""# + String(repeating: "x", count: 66_000) + "\"")),
        ("day two days ahead", event(["day": #""2026-11-03""#])),
        ("zone that does not exist", event(["timeZone": #""Europe/Atlantis""#])),
        ("non-location zone", event(["timeZone": #""Factory""#])),
        ("patient without a letter or digit", event(["patient": #""-.-""#])),
        ("patient with an underscore", event(["patient": #""p_1""#])),
        ("min above value", event(["min": "80"])),
        ("source name 129 × é", event(["source": "{\"name\":\"\(String(repeating: "é", count: 129))\"}"])),
        ("nesting 17", event(extra: #","x":"# + String(repeating: "[", count: 16) + String(repeating: "]", count: 16))),
        ("nesting 16", event(extra: #","x":"# + String(repeating: "[", count: 15) + String(repeating: "]", count: 15))),
        ("schema 1.0", event(["schema": "1.0"])),
        ("version 1e3", event(["version": "1e3"])),
        (
            "SpO2 fraction a hair above 1",
            event([
                "metric": #""oxygen_saturation""#, "unit": #""1""#, "value": "1.0000000000001", "min": nil, "max": nil,
            ])
        ),
        ("patient with a trailing newline", event(["patient": #""p-000123\n""#])),
        ("day with a trailing newline", event(["day": #""2026-10-01\n""#])),
        ("zone with a trailing newline", event(["timeZone": #""Europe/Bratislava\n""#])),
        ("offset with a trailing newline", event(["timeZone": nil, "utcOffset": #""+02:00\n""#])),
        ("null zone with an offset", event(["timeZone": "null", "utcOffset": #""+02:00""#])),
        ("day 1900-02-29", event(["day": #""1900-02-29""#])),
        ("day 2000-02-29 (leap, outside the window)", event(["day": #""2000-02-29""#])),
        ("unit absent means the catalog unit", event(["unit": nil])),
        ("source with null and unknown members", event(["source": #"{"name":null,"x":{"y":[1]}}"#])),
        ("status preliminary", event(["status": #""preliminary""#])),
        ("status final", event(["status": #""final""#])),
        ("status null", event(["status": "null"])),
        ("status amended (not sendable)", event(["status": #""amended""#])),
        ("status with a trailing newline", event(["status": #""final\n""#])),
        ("status as a number", event(["status": "1"])),
        ("kind value", event(["kind": #""value""#])),
        ("kind retraction on a value's members (no reason)", event(["kind": #""retraction""#])),
    ] + retractionProbes

    static let valueMembers: [(String, String)] = [
        ("schema", "1"), ("patient", #""p-000123""#), ("metric", #""heart_rate""#), ("day", #""2026-10-01""#),
        ("timeZone", #""Europe/Bratislava""#), ("value", "71.4"), ("min", "48"), ("max", "162"), ("unit", #""/min""#),
        ("version", "1759384503000"),
    ]

    /// A valid retraction (docs/LIFECYCLE.md) with `members` replaced (`nil` removes one) and `extra` appended.
    static func retraction(_ members: [String: String?] = [:], extra: String = "") -> String {
        event(members, extra: extra, base: [
            ("schema", "1"), ("kind", #""retraction""#), ("patient", #""p-000123""#), ("metric", #""heart_rate""#),
            ("day", #""2026-10-01""#), ("version", "1759384503001"), ("reason", #""sample deleted""#),
        ])
    }

    /// The retraction event's rules, and the not-expressible ones as they apply to it.
    static let retractionProbes: [(name: String, json: String)] = [
        ("retraction", retraction()),
        ("retraction with value members of any type (ignored)",
         retraction(extra: #","value":"x","unit":5,"timeZone":7,"status":"amended","source":[]"#)),
        ("retraction of a panel metric", retraction(["metric": #""blood_pressure""#])),
        ("retraction without version", retraction(["version": nil])),
        ("retraction version null", retraction(["version": "null"])),
        ("retraction version negative", retraction(["version": "-1"])),
        ("retraction version 1e3", retraction(["version": "1e3"])),
        ("retraction version as a string", retraction(["version": #""5""#])),
        ("retraction without reason", retraction(["reason": nil])),
        ("retraction reason null", retraction(["reason": "null"])),
        ("retraction reason empty", retraction(["reason": #""""#])),
        ("retraction reason blank", retraction(["reason": #""   ""#])),
        ("retraction reason with a newline", retraction(["reason": #""wrong\n""#])),
        ("retraction reason with a C1 control", retraction(["reason": #""wrong\u0085""#])),
        ("retraction reason 256 characters", retraction(["reason": "\"\(String(repeating: "r", count: 256))\""])),
        ("retraction reason 257 characters", retraction(["reason": "\"\(String(repeating: "r", count: 257))\""])),
        ("retraction reason 129 × é", retraction(["reason": "\"\(String(repeating: "é", count: 129))\""])),
        ("retraction of an unknown metric", retraction(["metric": #""mood""#])),
        ("retraction with a bad patient", retraction(["patient": #""p 1""#])),
        ("retraction of 2026-02-30", retraction(["day": #""2026-02-30""#])),
        ("retraction day two days ahead", retraction(["day": #""2026-11-03""#])),
        ("retraction with schema 2", retraction(["schema": "2"])),
        ("retraction without schema", retraction(["schema": nil])),
        ("kind Retraction", retraction(["kind": #""Retraction""#])),
        ("kind as a number", retraction(["kind": "1"])),
    ]
}
