import StoreCore

/// What both SQL stores offer besides upserts: finalize, the version audit and a schema version (the contract tests
/// call them directly).
typealias SQLStore = ObservationStore & ObservationFinalizing & VersionAuditing & SchemaVersioning
