import CommandLineOptions
import DailyValueContract
import FHIRServerStore
import HTTPClient
import PostgresClient
import PostgresStore
import SQLiteStore
import StoreCore

/// Opens the store at `location`, creating or migrating its schema (or, for a FHIR server, reading `/metadata`).
/// - Parameters:
///   - postgres: client-side bounds and name of a PostgreSQL store's connection (ignored for the others).
///   - fhir: a FHIR store's settings; its `baseURL` is replaced by the location's (ignored for the others).
///   - retractions: what a winning retraction does to a stored day in SQLite and PostgreSQL (the FHIR store refuses
///     retractions in either mode).
///   - connections: PostgreSQL connections writing each batch's lanes at once (``LanedPostgresStore``; 1: one
///     ``PostgresObservationStore``). The other stores have one writer: more than 1 is a `usage` error.
///   - erasureKey: the key events' persons are hashed with for the erasure ledger (the worker's id key or erasure
///     key); nil: the store refuses to write while its ledger has entries. (FHIR store: replaces `fhir.erasureKey`
///     when given.)
/// - Throws: ``StoreError`` (`connection`, `timeout`, `schema`, `busy`, …) when the database cannot be opened or
///   migrated.
public func makeObservationStore(
    _ location: StoreLocation, postgres: PostgresClientOptions = PostgresClientOptions(),
    fhir: FHIRStoreConfiguration = FHIRStoreConfiguration(baseURL: ""),
    retractions: RetractionMode = .enteredInError, erasureKey: ErasureKey? = nil, connections: Int = 1
) async throws -> any ObservationStore {
    if connections > 1 {
        guard case .postgres = location else {
            throw StoreError(.usage, "\(connections) store connections: only a PostgreSQL store writes on several")
        }
    }
    switch location {
    case .sqlite(let path):
        return try await SQLiteObservationStore(path: path, retractionMode: retractions, erasureKey: erasureKey)
    case .postgres(let connectionString) where connections > 1:
        return try await LanedPostgresStore(
            connectionString: connectionString, connections: connections, options: postgres,
            retractionMode: retractions, erasureKey: erasureKey)
    case .postgres(let connectionString):
        return try await PostgresObservationStore(
            connectionString: connectionString, options: postgres, retractionMode: retractions,
            erasureKey: erasureKey)
    case .fhir(let baseURL):
        var configuration = fhir
        configuration.baseURL = baseURL
        if let erasureKey { configuration.erasureKey = erasureKey }
        return try await FHIRObservationStore(configuration: configuration)
    }
}
