import Foundation
import Observability
import TestSupport
import Testing
import WorkerCore

/// Faults of the worker processes: kill -9 at points of the batch cycle, scaling, rolling restarts, SIGTERM
/// during a batch, a frozen (SIGSTOP) worker.
extension ReliabilityTests {
    @Test("Baseline: one worker, messy stream, no fault")
    func baseline() async throws {
        try await ScenarioRun.perform("baseline (1 worker, no fault)") { run in
            try await run.publish(try run.generate(patients: 40, days: 5, seed: 101, extra: Self.messy))
            let worker = try await run.startWorker(untilCaughtUp: true)
            run.check(await worker.process.waitForExit(timeout: .seconds(120)) == 0, "worker did not catch up")
            try await run.drainAndVerify()
        }
    }

    /// Where in the batch cycle the kill lands, pinned through the worker's metrics (polled every 5 ms):
    /// `in-flight` right after `dvp_records_consumed_total` rose (the batch was taken, its upsert is running);
    /// `after-batch` right after `dvp_batch_duration_seconds_count` rose (offsets stored, auto-commit pending).
    @Test("kill -9 at a point of the batch cycle, 2 workers under load", arguments: ReliabilityMode.killPoints)
    func killNine(point: String) async throws {
        try await ScenarioRun.perform("kill -9 \(point) (2 workers)") { run in
            let (generator, workers) = try await Self.underLoad(run, workers: 2, seed: 102)
            let victim = workers[0]
            let inFlight = point == "in-flight"
            let series =
                inFlight
                ? Metrics.Counter.recordsConsumed.family.name : Metrics.Histogram.batchDuration.family.name + "_count"
            let reading: @Sendable () async -> Double = {
                inFlight ? await victim.metric(.recordsConsumed) : await victim.observations(.batchDuration)
            }
            let before = await reading()
            let pinned = await eventually(timeout: .seconds(20), interval: .milliseconds(5)) {
                await reading() > before
            }
            await run.kill9(victim)
            run.note(pinned ? "killed within ~5 ms of \(series) rising" : "kill point not pinned (no batch in 20 s)")
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    /// kill -9 where no outside timing can land it: the test worker (`dvp-fault-worker`) kills itself at a crash
    /// point (`DVP_CRASH_AT`). `after-upsert-before-offsets`: the 5th batch's upsert committed, its offsets are not
    /// stored (the batch is read again and must change nothing). `inside-revoke`: a third worker joins; the victim
    /// dies in the revoke callback before its batch finished.
    @Test("kill -9 at a crash point, 2 workers under load", fullOnly,
          arguments: [CrashPoint.afterUpsertBeforeOffsets, .insideRevoke])
    func killAtCrashPoint(point: CrashPoint) async throws {
        try await ScenarioRun.perform("kill -9 \(point.rawValue) (2 workers)") { run in
            let occurrence = point == .afterUpsertBeforeOffsets ? ":5" : ""
            let generator = try run.startGenerator(patients: 40, days: 5, seed: 108, rate: 1500, extra: Self.messy)
            let victim = try await run.startWorker(
                "worker-1", extra: Self.smallBatches, environment: [CrashPoint.environmentVariable: point.rawValue + occurrence],
                binary: "dvp-fault-worker")
            victim.markKilledOnPurpose()
            _ = try await run.startWorker("worker-2", extra: Self.smallBatches)
            let progressed = await eventually(timeout: .seconds(60)) {
                guard victim.process.isRunning else { return true }
                return await victim.metric(.recordsConsumed) >= 300
            }
            run.check(progressed, "no progress before the fault")
            if point == .insideRevoke { _ = try await run.startWorker("worker-3", extra: Self.smallBatches) }
            let status = await victim.process.waitForExit(timeout: .seconds(60))
            run.check(status == 128 + SIGKILL && victim.process.stderr.contains("crash point \(point.rawValue)"),
                      "the victim did not die at the crash point: \(ChildProcess.describe(status))")
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    @Test("Scale 1 → 3 under load", fullOnly)
    func scaleUp() async throws {
        try await ScenarioRun.perform("scale 1→3 under load") { run in
            let (generator, workers) = try await Self.underLoad(run, workers: 1, seed: 103)
            let b = try await run.startWorker("worker-2", extra: Self.smallBatches)
            let c = try await run.startWorker("worker-3", extra: Self.smallBatches)
            let spread = await eventually(timeout: .seconds(30)) {
                var all: [Double] = []
                for worker in [workers[0], b, c] { all.append(await worker.metric(.assignedPartitions)) }
                return all.allSatisfy { $0 > 0 }
            }
            run.check(spread, "the new workers never got partitions")
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    @Test("Scale 3 → 1 by SIGTERM under load", fullOnly)
    func scaleDown() async throws {
        try await ScenarioRun.perform("scale 3→1 (SIGTERM) under load") { run in
            let (generator, workers) = try await Self.underLoad(run, workers: 3, seed: 104)
            for worker in workers.dropFirst() {
                try await Task.sleep(for: .seconds(3))
                await run.terminate(worker)
            }
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    @Test("Rolling restart of 3 workers under load", fullOnly)
    func rollingRestart() async throws {
        try await ScenarioRun.perform("rolling restart (3 workers)") { run in
            let (generator, workers) = try await Self.underLoad(run, workers: 3, seed: 105)
            for (i, worker) in workers.enumerated() {
                await run.terminate(worker)
                _ = try await run.startWorker("worker-\(i + 1)b", extra: Self.smallBatches)
                try await Task.sleep(for: .seconds(2))
            }
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    @Test("SIGTERM during an in-flight batch: exit 0 within the drain timeout", fullOnly)
    func sigtermInFlight() async throws {
        try await ScenarioRun.perform("SIGTERM during an in-flight batch") { run in
            let (generator, workers) = try await Self.underLoad(
                run, workers: 2, seed: 106, extra: ["--batch-size", "500", "--drain-timeout", "10"])
            let victim = workers[0]
            let before = await victim.metric(.recordsConsumed)
            _ = await eventually(timeout: .seconds(20), interval: .milliseconds(5)) {
                await victim.metric(.recordsConsumed) > before
            }
            let signalled = ContinuousClock.now
            await run.terminate(victim, within: .seconds(20))
            run.check(ContinuousClock.now - signalled < .seconds(11), "drain exceeded --drain-timeout 10 s")
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }

    @Test("Frozen worker (SIGSTOP past the session timeout, then SIGCONT) writes late", fullOnly)
    func frozenWorker() async throws {
        try await ScenarioRun.perform("frozen worker (SIGSTOP 10 s, SIGCONT)") { run in
            let (generator, workers) = try await Self.underLoad(run, workers: 2, seed: 107)
            workers[0].process.signal(SIGSTOP)
            let takenOver = await eventually(timeout: .seconds(20)) {
                await workers[1].metric(.assignedPartitions) == Double(run.harness.partitions)
            }
            run.check(takenOver, "the survivor never took over every partition")
            try await Task.sleep(for: .seconds(2))
            workers[0].process.signal(SIGCONT)
            let rejoined = await eventually(timeout: .seconds(30)) {
                await workers[0].metric(.assignedPartitions) > 0
            }
            run.check(rejoined, "the frozen worker never rejoined")
            try await run.finish(generator)
            try await run.drainAndVerify()
        }
    }
}
