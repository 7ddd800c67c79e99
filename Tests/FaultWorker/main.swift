import TestSupport
import WorkerCore

// dvp-fault-worker: the worker with the reliability suite's crash points (`DVP_CRASH_AT`, see ``CrashPoint``) and
// a hold before the configuration is read (`DVP_HOLD_AT_START`, see ``StartupHold``).
// Built with the package for the tests only: not a product, not in the image.

MallocTuning.apply()
await WorkerProcess.run(
    Array(CommandLine.arguments.dropFirst()),
    faults: WorkerFaults(
        beforeConfiguration: { StartupHold.fromEnvironment()?.hold() },
        onRevoke: { CrashPoint.insideRevoke.reach() },
        wrapStore: { CrashingStore(store: $0) }))
