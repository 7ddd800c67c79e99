import CommandLineOptions
import DLQCommands
import IngestGateway
import ObservationStores
import StoreCtlCommands
import WorkerCore

#if canImport(Glibc)
    import Glibc
#endif

// dvp: the worker, the ingest gateway, storectl and dlq in one binary, run as the name it was started by (the image
// links `worker`, `ingest`, `storectl` and `dlq` to it), or as `dvp NAME ARGS…`. Each behaves exactly as its own
// executable: the same entry points, options, help and exit statuses.

var arguments = CommandLine.arguments
var name = String(arguments.removeFirst().split(separator: "/").last ?? "dvp")
if name == "dvp", let first = arguments.first {
    name = first
    arguments.removeFirst()
}
switch name {
case "worker":
    MallocTuning.apply()
    await WorkerProcess.run(arguments)
case "ingest":
    await IngestProcess.run(arguments) { try await makeObservationStore($0) }
case "storectl":
    exit(await StoreCtl.run(arguments))
case "dlq":
    exit(await DLQ.run(arguments))
default:
    StandardError.print("usage: dvp worker|ingest|storectl|dlq [ARGS…] (or run it as one of those names)")
    exit(2)
}
