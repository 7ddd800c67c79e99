import IngestGateway

// The ingest gateway executable: parse, wire, run and exit (``IngestProcess``).

await IngestProcess.run(Array(CommandLine.arguments.dropFirst()))
