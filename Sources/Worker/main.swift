import WorkerCore

// The worker executable: set up malloc, then parse, run and exit (``WorkerProcess``), with no fault hooks.

MallocTuning.apply()
await WorkerProcess.run(Array(CommandLine.arguments.dropFirst()))
