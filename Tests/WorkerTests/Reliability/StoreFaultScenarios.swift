import Foundation
import TestSupport
import Testing
import WorkerCore

/// Faults of PostgreSQL: restarts (fast and immediate, on the scenario's own cluster) and a stall longer than
/// `max.poll.interval.ms`.
extension ReliabilityTests {
    static let restartModes = ReliabilityMode.isFull ? ["immediate", "fast"] : ["immediate"]

    @Test("PostgreSQL restarted mid-stream", arguments: restartModes)
    func postgresRestart(mode: String) async throws {
        try await ScenarioRun.perform("PostgreSQL restart -m \(mode)", ownPostgres: true) { run in
            let (generator, workers) = try await Self.underLoad(run, workers: 2, seed: 301)
            try await run.store.restart(mode)
            let failed = await eventually(timeout: .seconds(10)) {
                let first = await workers[0].metric(.storeErrors)
                return first + (await workers[1].metric(.storeErrors)) > 0
            }
            run.note(failed ? "store errors seen and retried" : "restart fell between batches (no store error)")
            try await run.finish(generator)
            for worker in workers {
                run.check(!worker.process.stderr.contains("MAXPOLL"), "\(worker.name) exceeded max.poll.interval.ms")
            }
            try await run.drainAndVerify()
        }
    }

    /// `LOCK TABLE observation` held 15 s by a psql session, with `max.poll.interval.ms=8000`: the upsert blocks,
    /// the poll thread keeps polling, so the worker must not leave the group (no MAXPOLL, no lost partitions).
    @Test("PostgreSQL stalled (table lock) past max.poll.interval.ms", fullOnly)
    func postgresStall() async throws {
        try await ScenarioRun.perform("PostgreSQL stalled 15 s > max.poll.interval.ms 8 s") { run in
            let extra = Self.smallBatches + ["-X", "max.poll.interval.ms=8000"]
            let (generator, workers) = try await Self.underLoad(run, workers: 1, seed: 302, extra: extra)
            let lock = try run.store.psql(
                "BEGIN; LOCK TABLE observation IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(15); COMMIT;",
                directory: run.harness.directory)
            run.check(await lock.waitForExit(timeout: .seconds(40)) == 0, "psql lock session: \(lock.stderr)")
            try await run.finish(generator)
            let lost = await workers[0].metric(.rebalances, label: "lost")
            run.check(!workers[0].process.stderr.contains("MAXPOLL"), "the worker exceeded max.poll.interval.ms")
            run.check(lost == 0, "partitions lost during the stall")
            try await run.drainAndVerify()
        }
    }
}
