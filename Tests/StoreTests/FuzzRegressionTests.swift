import DailyValueContract
import Foundation
import ObservationMapping
import TestSupport
import Testing

/// Replays the fuzzing seed corpus (`fuzz/corpus/`, see `scripts/fuzz.sh`) through the decoder and the mapper with
/// the same invariants as the libFuzzer target, under every Kafka record timestamp the target uses.
///
/// File names say what is expected: `valid-*` decodes, `bad-*` is rejected, `regress-*` reproduces a fuzzer finding.
@Suite struct FuzzRegressionTests {
    /// Record timestamps a broker can hand over: none, realistic, and the extremes of `Int64`.
    static let recordTimestamps: [Int64?] = [
        1_793_534_400_000, nil, 0, -1, 1_759_384_503_000, Int64.max, Int64.min, Int64.min + 999,
        253_402_300_799_999, -62_135_596_800_000,
    ]

    static let corpus = Fixtures.packageRoot().appendingPathComponent("fuzz/corpus")

    static let files: [String] =
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? []).filter { !$0.hasPrefix(".") }
        .sorted()

    // MARK: - Corpus

    @Test func corpusCoversAcceptedRejectedAndRegressionInputs() {
        #expect(Self.files.filter { $0.hasPrefix("valid-") }.count >= 10)
        #expect(Self.files.filter { $0.hasPrefix("bad-") }.count >= 30)
        #expect(Self.files.contains { $0.hasPrefix("regress-") })
        #expect(Self.files.allSatisfy { $0.hasPrefix("valid-") || $0.hasPrefix("bad-") || $0.hasPrefix("regress-") })
    }

    @Test(arguments: files)
    func replay(_ name: String) throws {
        let bytes = Array(try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
        for timestamp in Self.recordTimestamps {
            switch Result(catching: { () throws(DailyValueError) in
                try Fixtures.decoder.decode(bytes, recordTimestampMs: timestamp)
            }) {
            case .failure(let error):
                // A valid event without `version` needs a usable record timestamp.
                let usable = timestamp.map { $0 >= 0 } ?? false
                #expect(!name.hasPrefix("valid-") || (!usable && error.kind == .invalidVersion), "\(error)")
                #expect(error.className == error.kind.rawValue)
                #expect(error.description.utf8.count <= 160)
            case .success(let value):
                #expect(!name.hasPrefix("bad-"))
                let line = value.jsonLine()
                #expect(try Fixtures.decoder.decode(Array(line.utf8), recordTimestampMs: nil) == value, "\(line)")
                try checkMapping(value, recordTimestampMs: timestamp ?? value.version ?? 0)
            }
        }
    }

    // MARK: - Findings

    /// Found by the fuzzer: a record timestamp near `Int64.min` trapped in `FHIRDateTime.instant` (arithmetic
    /// overflow) and other out-of-range ones printed a malformed `issued` year. `FHIRDateTime` clamps to years
    /// 0001–9999; a record timestamp at or before the epoch (Kafka's "none" is -1) is no real instant, and the
    /// mapper leaves `issued` out (issue 28).
    @Test(arguments: [
        (Int64.min, nil), (Int64.min + 999, nil), (-62_135_596_800_001, nil), (-1, nil), (0, nil),
        (253_402_300_800_000, "9999-12-31T23:59:59.999Z"), (Int64.max, "9999-12-31T23:59:59.999Z"),
    ] as [(Int64, String?)])
    func issuedIsClampedToTheFHIRInstantRange(_ timestamp: Int64, _ issued: String?) throws {
        let value = try Fixtures.decoder.decode(Fixtures.event(), recordTimestampMs: nil)
        let json = try checkMapping(value, recordTimestampMs: timestamp)
        #expect(json["issued"] as? String == issued)
    }

    // MARK: - Helpers

    /// Maps `value` and checks the resource: JSON Foundation parses, the identity, and a well-formed `issued` for a
    /// positive record timestamp (none otherwise).
    @discardableResult
    private func checkMapping(_ value: DailyValue, recordTimestampMs: Int64) throws -> [String: Any] {
        let record = try Fixtures.mapper.map(value, recordTimestampMs: recordTimestampMs)
        #expect(record.identity == value.identity)
        let parsed = try JSONSerialization.jsonObject(with: Data(record.resource.utf8))
        let json = try #require(parsed as? [String: Any])
        #expect(json["resourceType"] as? String == "Observation")
        #expect(json["id"] as? String == record.resourceID)
        guard recordTimestampMs > 0 else {
            #expect(json["issued"] == nil)
            return json
        }
        let issued = try #require(json["issued"] as? String)
        let instant = /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z/
        #expect(issued.wholeMatch(of: instant) != nil && !issued.hasPrefix("0000"), "\(issued)")
        return json
    }
}
