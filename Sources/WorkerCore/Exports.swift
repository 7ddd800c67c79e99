// The logger, the metrics registry and the signal stream the worker is built on live in the shared Observability
// target (the ingest gateway uses them too); everything that imports WorkerCore sees them as before.
@_exported import Observability
