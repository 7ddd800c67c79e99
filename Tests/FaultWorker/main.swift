import MallocTuning
import TestSupport
import WorkerCore

// dvp-fault-worker: the worker with the reliability suite's crash points (`DVP_CRASH_AT`, see ``CrashPoint``).
// Built with the package for the tests only: not a product, not in the image.

MallocTuning.apply()
await WorkerProcess.run(
    Array(CommandLine.arguments.dropFirst()),
    faults: WorkerFaults(
        onRevoke: { CrashPoint.insideRevoke.reach() },
        wrapStore: { CrashingStore(store: $0) }))
