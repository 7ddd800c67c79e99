import IngestGateway
import ObservationStores

// The ingest gateway executable: parse, wire, run and exit (``IngestProcess``); `--erasure-store` is opened with the
// stores' one opener.

await IngestProcess.run(Array(CommandLine.arguments.dropFirst())) { try await makeObservationStore($0) }
