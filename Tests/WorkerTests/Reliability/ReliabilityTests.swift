import Foundation
import Testing
import TestSupport

/// The reliability scenario suite (reference `kafka-reliability.md` §4): each scenario starts real processes,
/// injects one fault and checks the common oracle (``ScenarioRun/drainAndVerify(drainTimeout:expectedLost:)``).
///
/// Quick mode (default, part of `swift test`) runs the scenarios marked `quick`; `DVP_RELIABILITY=full` runs all.
/// `scripts/reliability.sh [--full]` runs the suite and writes `docs/reliability/scenarios.md`.
@Suite("Reliability", .serialized, .timeLimit(.minutes(5)))
struct ReliabilityTests {
    /// Late higher versions, exact duplicates, out-of-order versions, a few invalid events, and retractions
    /// (docs/LIFECYCLE.md: a retracted day holds its retraction's version, entered-in-error; the oracle knows it).
    static let messy = [
        "--late-share", "0.1", "--duplicate-share", "0.05", "--out-of-order-share", "0.05", "--invalid-share", "0.02",
        "--retraction-share", "0.05",
    ]
    /// Full-mode-only scenarios.
    static let fullOnly = ConditionTrait.enabled(if: ReliabilityMode.isFull, "DVP_RELIABILITY=full")

    /// Small batches so a fault lands between many batch cycles.
    static let smallBatches = ["--batch-size", "100"]

    /// Starts a live generator at `rate` and `count` long-running workers that have made progress.
    static func underLoad(_ run: ScenarioRun, workers count: Int, seed: Int, patients: Int = 40, days: Int = 5,
                          rate: Int = 1500, extra: [String] = smallBatches) async throws
        -> (ScenarioRun.Generator, [ScenarioWorker])
    {
        let generator = try run.startGenerator(patients: patients, days: days, seed: seed, rate: rate, extra: messy)
        var workers: [ScenarioWorker] = []
        for i in 0..<count { workers.append(try await run.startWorker("worker-\(i + 1)", extra: extra)) }
        let progressed = await workers[0].waitForConsumed(atLeast: 500)
        run.check(progressed, "no progress before the fault: \(workers[0].process.stderr.suffix(800))")
        return (generator, workers)
    }
}
