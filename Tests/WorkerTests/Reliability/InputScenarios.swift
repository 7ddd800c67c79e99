import DailyValueContract
import Foundation
import Kafka
import TestSupport
import Testing
import WorkerCore

/// Bad and awkward input: every invalid class, boundary values, exact duplicates, out-of-order versions across a
/// rebalance, a replay with a new group, and a consumer that fell behind the mock's retention.
extension ReliabilityTests {
    @Test("Every bad-input class, raw edge records and boundary values")
    func badInput() async throws {
        try await ScenarioRun.perform("bad input: every class + edge records + boundaries") { run in
            try await run.publish(try run.generate(patients: 20, days: 4, seed: 401, extra: ["--invalid-share", "0.2"]))
            try await Self.publishEdgeRecords(run)
            let worker = try await run.startWorker(untilCaughtUp: true)
            run.check(await worker.process.waitForExit(timeout: .seconds(120)) == 0, "worker did not catch up")
            try await run.drainAndVerify()
        }
    }

    /// Records the generator cannot write: empty and non-UTF-8 values, JSON `null`, a truncated object; heart rates exactly at
    /// the catalog's plausible bounds (stored) and just outside them (dead-lettered).
    static func publishEdgeRecords(_ run: ScenarioRun) async throws {
        let metric = try #require(MetricCatalog.builtin["heart_rate"])
        func event(_ patient: String, _ value: Double, version: Int64) -> [UInt8] {
            Array("""
                {"schema":1,"patient":"\(patient)","metric":"heart_rate","day":"2026-09-02","timeZone":"UTC",\
                "value":\(value),"unit":"/min","version":\(version)}
                """.utf8)
        }
        let valid: [(String, Double)] = [("edge-min", metric.plausibleMin), ("edge-max", metric.plausibleMax)]
        let invalid: [[UInt8]] = [
            [], [0xff, 0xfe, 0x7b], Array("null".utf8), Array("{\"schema\":1,".utf8),
            event("edge-low", metric.plausibleMin - 0.01, version: 1), event("edge-high", metric.plausibleMax + 0.01, version: 1),
        ]
        var messages = valid.map { KafkaOutgoingMessage(topic: run.harness.topic, key: Array($0.0.utf8), value: event($0.0, $0.1, version: 7)) }
        messages += invalid.enumerated().map {
            KafkaOutgoingMessage(topic: run.harness.topic, key: Array("edge-\($0.offset)".utf8), value: $0.element)
        }
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(bootstrapServers: run.harness.bootstrap))
        for result in await producer.send(messages) { _ = try result.get() }
        _ = await producer.close(timeout: .seconds(10))
        var oracle = Oracle()
        for (patient, _) in valid { oracle.versions["\(patient)/heart_rate/2026-09-02"] = 7 }
        oracle.invalid = invalid.indices.map { (line: $0 + 1, className: "edge") }
        run.addOracle(oracle)
    }

    @Test("Poison records (899 KB value + 100 KB header, 1 MB key, 1,000 headers, tombstone, empty) in a live stream")
    func poisonRecordsInLiveStream() async throws {
        try await ScenarioRun.perform("poison records in a live messy stream, 2 workers") { run in
            let generator = try run.startGenerator(patients: 40, days: 5, seed: 406, rate: 1500, extra: Self.messy)
            let a = try await run.startWorker("worker-1", extra: Self.smallBatches)
            _ = try await run.startWorker("worker-2", extra: Self.smallBatches)
            run.check(await a.waitForConsumed(atLeast: 300), "no progress before the poison records")
            var oracle = Oracle()
            for partition in Int32(0)..<3 {
                let (poison, valid) = try await run.harness.publishPoisonRecords(
                    partition: partition, validAfter: 3, tag: "-\(partition)")
                for identity in valid { oracle.versions[identity] = 1 }
                oracle.invalid += (0..<poison).map { (line: $0 + 1, className: "poison") }
            }
            run.addOracle(oracle)
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    @Test("Exact duplicates (half the identities re-sent byte for byte)", fullOnly)
    func exactDuplicates() async throws {
        try await ScenarioRun.perform("exact duplicates (share 0.5)") { run in
            try await run.publish(try run.generate(patients: 30, days: 4, seed: 402, extra: ["--duplicate-share", "0.5"]))
            let worker = try await run.startWorker(untilCaughtUp: true)
            run.check(await worker.process.waitForExit(timeout: .seconds(120)) == 0, "worker did not catch up")
            let summary = parseSummary(worker.process.stdout)
            run.note("unchanged (no-op) upserts: \(summary["unchanged"] ?? -1)")
            run.check((summary["unchanged"] ?? 0) > 0, "duplicates were not answered as unchanged")
            try await run.drainAndVerify()
        }
    }

    @Test("Out-of-order versions across a rebalance", fullOnly)
    func outOfOrderAcrossRebalance() async throws {
        try await ScenarioRun.perform("out-of-order versions across a rebalance") { run in
            let extra = ["--out-of-order-share", "0.3", "--late-share", "0.3"]
            let generator = try run.startGenerator(patients: 40, days: 5, seed: 403, rate: 1500, extra: extra)
            let a = try await run.startWorker("worker-1", extra: Self.smallBatches)
            _ = await a.waitForConsumed(atLeast: 500)
            let b = try await run.startWorker("worker-2", extra: Self.smallBatches)
            _ = await b.waitForConsumed(atLeast: 200)
            await run.kill9(a)
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    @Test("Replay with a new group beside the live group changes nothing", fullOnly)
    func replayNewGroup() async throws {
        try await ScenarioRun.perform("replay with a new group") { run in
            try await run.publish(try run.generate(patients: 30, days: 4, seed: 404, extra: Self.messy))
            let live = try await run.startWorker(untilCaughtUp: true)
            run.check(await live.process.waitForExit(timeout: .seconds(120)) == 0, "live worker did not catch up")
            let before = try await run.harness.storeDump(run.store.url)
            let generator = try run.startGenerator(patients: 30, days: 4, seed: 404, rate: 2000, extra: Self.messy)
            _ = try await run.startWorker("live-2")
            let replay = try await run.startWorker("replay", extra: ["--start", "earliest"], untilCaughtUp: true,
                                                   group: "replay-1")
            run.check(await replay.process.waitForExit(timeout: .seconds(120)) == 0, "replay did not catch up")
            let summary = parseSummary(replay.process.stdout)
            run.check(summary["inserted"] == 0 && summary["updated"] == 0, "the replay changed rows: \(summary)")
            run.note("the replay group re-reads (and re-dead-letters) the whole topic by design")
            try await run.finish(generator)
            await run.check(try run.harness.storeDump(run.store.url) == before, "the store differs after the replay")
            try await run.drainAndVerify()
        }
    }

    /// The worker is stopped, one partition receives more than the mock retains (5 MiB), the worker restarts:
    /// librdkafka resets to the log start with only a warning; the worker must count and log the gap.
    @Test("Consumer fell behind retention: detected and reported")
    func retentionGap() async throws {
        try await ScenarioRun.perform("fell behind retention (gap reported)") { run in
            try await run.publish(try run.generate(patients: 10, days: 3, seed: 405))
            let first = try await run.startWorker(untilCaughtUp: true)
            run.check(await first.process.waitForExit(timeout: .seconds(120)) == 0, "first run did not catch up")
            // One patient = one partition; ~15 events a day × 2000 past days, uncompressed ≈ 8 MiB, past the 5 MiB the mock
            // keeps. Each event is its own identity, so lost identities = lost records.
            let big = try await run.generate(patients: 1, days: 2000, seed: 406, extra: ["--start-day", "2021-05-01"])
            try await run.publish(big, extra: ["-X", "compression.codec=none"])
            let second = try await run.startWorker("worker-2")
            let reported = await eventually(timeout: .seconds(60)) {
                await second.metric(.retentionGaps) >= 1
            }
            run.check(reported, "the gap was not counted in dvp_retention_gaps_total")
            let line = second.process.stderr.split(separator: "\n").first { $0.contains("retention gap") }
            run.check(line != nil, "no retention-gap error log line")
            let lostRecords = line.flatMap { l in l.range(of: "\"lost_records\":").flatMap { Int(l[$0.upperBound...].prefix { $0.isNumber }) } }
            run.note("gap reported: \(lostRecords.map { "\($0) records" } ?? "size unknown")")
            try await run.drainAndVerify(expectedLost: lostRecords ?? -1)
        }
    }
}
