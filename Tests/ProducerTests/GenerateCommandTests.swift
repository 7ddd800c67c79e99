import DailyValueContract
import Foundation
import Producer
import TestSupport
import Testing

/// `producer generate`: determinism, the delivery-pattern shares, and an oracle that matches the output.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct GenerateCommandTests {
    private let startDay = ProducerTestSupport.recentDay(daysAgo: 20)

    private func generate(
        seed: Int, in directory: URL, name: String, days: Int = 6, extra: [String] = []
    ) async throws -> (lines: [Data], oracle: [String]) {
        let out = directory.appendingPathComponent("\(name).jsonl")
        let oracle = directory.appendingPathComponent("\(name).oracle")
        let run = try await ProducerTestSupport.producer(
            [
                "generate", "--patients", "150", "--days", String(days), "--seed", String(seed), "--start-day",
                startDay,
                "--late-share", "0.2", "--duplicate-share", "0.1", "--out-of-order-share", "0.15",
                "--invalid-share", "0.05", "--out", out.path, "--oracle-out", oracle.path,
            ] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Data(contentsOf: out).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(lines.last?.isEmpty == true, "the file ends with a newline")
        let oracleLines = try String(contentsOf: oracle, encoding: .utf8).split(separator: "\n").map(String.init)
        return (lines.dropLast().map { Data($0) }, oracleLines.filter { !$0.hasPrefix("#") })
    }

    @Test func sameSeedIsByteIdenticalAndAnotherSeedDiffers() async throws {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }

        let first = try await generate(seed: 42, in: directory, name: "a")
        let second = try await generate(seed: 42, in: directory, name: "b")
        let other = try await generate(seed: 43, in: directory, name: "c")

        #expect(first.lines.count > 1_000)
        #expect(first.lines == second.lines)
        #expect(first.oracle == second.oracle)
        #expect(first.lines != other.lines)
    }

    @Test func sharesAreHonouredAndTheOracleMatchesTheOutput() async throws {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let (lines, oracle) = try await generate(seed: 9, in: directory, name: "g")

        // The oracle's two kinds of facts.
        var expectedHighest: [String: Int64] = [:]
        var invalidLines: [Int: String] = [:]
        for line in oracle {
            let fields = line.split(separator: "\t").map(String.init)
            if fields[0] == "invalid" {
                invalidLines[Int(fields[1])!] = fields[2]
            } else {
                expectedHighest[fields[0]] = Int64(fields[1])!
            }
        }

        // Recompute from the output alone: versions per identity in send order, exact duplicates.
        var versions: [String: [Int64]] = [:]
        var seen = Set<Data>()
        var duplicates = 0
        for (index, line) in lines.enumerated() where invalidLines[index + 1] == nil {
            let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            let identity = "\(object["patient"]!)/\(object["metric"]!)/\(object["day"]!)"
            versions[identity, default: []].append((object["version"] as! NSNumber).int64Value)
            if !seen.insert(line).inserted { duplicates += 1 }
        }
        #expect(versions.mapValues { $0.max()! } == expectedHighest)

        // The original (first sent) version of each identity is followed by higher (late) or lower (out of order)
        // ones.
        let identities = Double(expectedHighest.count)
        let lateShare =
            Double(versions.values.filter { list in list.dropFirst().contains { $0 > list[0] } }.count)
            / identities
        let outOfOrderShare =
            Double(versions.values.filter { list in list.dropFirst().contains { $0 < list[0] } }.count)
            / identities
        #expect(abs(lateShare - 0.2) < 0.03, "late share \(lateShare)")
        #expect(abs(outOfOrderShare - 0.15) < 0.03, "out-of-order share \(outOfOrderShare)")
        #expect(abs(Double(duplicates) / identities - 0.1) < 0.03, "duplicate share \(Double(duplicates) / identities)")
        let invalidShare = Double(invalidLines.count) / Double(lines.count)
        #expect(abs(invalidShare - 0.05) < 0.015, "invalid share \(invalidShare)")
        #expect(Set(invalidLines.values) == Set(InvalidEventClass.allCases.map(\.rawValue)))
    }

    /// `--retraction-share`: about that share of identities gets a retraction (docs/LIFECYCLE.md) after its
    /// original, with a version above every value sent for it, and the oracle's highest version is the
    /// retraction's; without the option the output is what it was (no randomness drawn for it).
    @Test func retractionsCarryTheHighestVersionOfTheirDay() async throws {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let (lines, oracle) = try await generate(
            seed: 9, in: directory, name: "r", extra: ["--retraction-share", "0.25"])
        let highest = Dictionary(
            uniqueKeysWithValues: oracle.filter { !$0.hasPrefix("invalid\t") }.map { line in
                let fields = line.split(separator: "\t")
                return (String(fields[0]), Int64(fields[1])!)
            })
        let decoder = DailyValueDecoder()
        var retracted: [String: Int64] = [:]
        var firstSeen: [String: Int] = [:]
        for (index, line) in lines.enumerated() {
            guard let event = try? decoder.validateEvent(Array(line), recordTimestampMs: nil) else { continue }
            let key = "\(event.identity.patient)/\(event.identity.metric)/\(event.identity.day)"
            if case .retraction(let retraction) = event {
                #expect(firstSeen[key] != nil, "\(key): retracted before its original")
                retracted[key] = retraction.version
            } else if firstSeen[key] == nil {
                firstSeen[key] = index
            }
        }
        let share = Double(retracted.count) / Double(highest.count)
        #expect(abs(share - 0.25) < 0.03, "retraction share \(share)")
        for (key, version) in retracted { #expect(highest[key] == version, "\(key)") }

        let plain = try await generate(seed: 9, in: directory, name: "p")
        let zero = try await generate(seed: 9, in: directory, name: "z", extra: ["--retraction-share", "0"])
        #expect(plain.lines == zero.lines && plain.oracle == zero.oracle)
    }

    /// The generator's truth is independent of the decoder; here both must agree on every line.
    @Test func decoderAgreesWithTheOracleOnEveryLine() async throws {
        let directory = try ProducerTestSupport.makeDirectory()
        defer { ProducerTestSupport.removeDirectory(directory) }
        let (lines, oracle) = try await generate(seed: 5, in: directory, name: "d", days: 3)
        let invalid = Dictionary(
            uniqueKeysWithValues: oracle.filter { $0.hasPrefix("invalid\t") }.map { line in
                let fields = line.split(separator: "\t")
                return (Int(fields[1])!, InvalidEventClass(rawValue: String(fields[2]))!)
            })
        let expectedKinds: [InvalidEventClass: Set<DailyValueError.Kind>] = [
            .brokenJSON: [.invalidJSON], .unknownSchema: [.schemaVersionUnsupported], .unknownMetric: [.unknownMetric],
            .outOfRange: [.valueOutOfRange], .badUnit: [.invalidUnit], .badDay: [.invalidDay],
            .badZone: [.invalidTimeZone, .invalidUTCOffset], .oversize: [.payloadTooLarge],
            .missingField: [.missingField],
        ]
        let decoder = DailyValueDecoder()
        for (index, line) in lines.enumerated() {
            do {
                _ = try decoder.decode(Array(line), recordTimestampMs: nil)
                #expect(invalid[index + 1] == nil, "line \(index + 1) decoded but the oracle says invalid")
            } catch {
                let intended = try #require(invalid[index + 1], "line \(index + 1) rejected: \(error)")
                #expect(expectedKinds[intended]!.contains(error.kind), "line \(index + 1) \(intended): \(error)")
            }
        }
    }

    /// Every catalog metric has a generator profile (issue 40: the demo and the benchmarks exercise all of them),
    /// the occasional ones rare: together under a tenth of a person-day's expected events.
    @Test func everyCatalogMetricIsGeneratedTheNewOnesRarely() throws {
        #expect(Set(MetricProfile.builtin.map(\.key)) == Set(MetricCatalog.builtin.metrics.keys))
        #expect(MetricProfile.builtin.count == MetricCatalog.builtin.metrics.count)
        let expected = Dictionary(uniqueKeysWithValues: MetricProfile.builtin.map { ($0.key, $0.dailyProbability) })
        let common = [
            "steps", "heart_rate", "resting_heart_rate", "heart_rate_variability_sdnn", "active_energy_burned",
        ]
        #expect(common.allSatisfy { expected[$0] == 1 })
        let occasional = MetricProfile.builtin.filter {
            $0.dailyProbability <= 0.05 && !$0.key.hasPrefix("blood_pressure_")
        }
        let share = occasional.map(\.dailyProbability).reduce(0, +) / expected.values.reduce(0, +)
        #expect(occasional.count >= 35 && share < 0.1, "\(occasional.count) occasional metrics, \(share) of events")
    }

    /// Every generator profile is a catalog metric with the catalog's unit, inside its plausible range.
    @Test(arguments: MetricProfile.builtin.map(\.key))
    func profileMatchesTheCatalog(_ key: String) throws {
        let profile = try #require(MetricProfile.builtin(key: key))
        let metric = try #require(MetricCatalog.builtin[profile.key])
        #expect(metric.ucum == profile.unit)
        #expect(metric.plausibleMin <= profile.bounds.lowerBound)
        #expect(profile.bounds.upperBound <= metric.plausibleMax)
        #expect(profile.absurdValue > metric.plausibleMax)
        if profile.shape == .meanWithRange { #expect(metric.allowsMinMax) }
        // A panel's parts are the catalog's components, each inside the component's plausible range.
        #expect(profile.parts.map(\.key) == metric.components.map(\.key))
        for (part, component) in zip(profile.parts, metric.components) {
            #expect(
                component.plausibleMin <= part.bounds.lowerBound && part.bounds.upperBound <= component.plausibleMax)
            #expect(part.absurdValue > component.plausibleMax)
        }
        // Systolic above diastolic whatever is drawn: the parts' bounds do not overlap.
        if profile.parts.count == 2 { #expect(profile.parts[0].bounds.lowerBound > profile.parts[1].bounds.upperBound) }
    }
}
