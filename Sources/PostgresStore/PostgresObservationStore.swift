import DailyValueContract
import DocumentCompression
import Essentials
import Hashing
import JSON
import ObservationMapping
import PostgresClient
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The shared store for many workers on many hosts: PostgreSQL through libpq, one connection on a serial queue.
///
/// Every call is bounded (``PostgresClientOptions``; the connection's libpq defaults are listed at
/// ``PostgresConnectionParameters``). A lost connection (server restart, network) fails the call in progress with a
/// retriable ``StoreError`` (`connection`); a server that does not answer in time (frozen, half-open connection)
/// fails it with `timeout`. Either way the next call opens a replacement connection. The caller retries the batch;
/// the version guard makes that safe, including after a COMMIT whose outcome is unknown.
public final class PostgresObservationStore: ObservationStore, ObservationFinalizing, VersionAuditing, SchemaVersioning {
    struct State {
        var connection: PostgresConnection?
        var isClosed = false
    }

    private let state: QueueConfined<State>
    private let parameters: PostgresConnectionParameters
    private let options: PostgresClientOptions
    /// The `outcome_count` shard this store's connection adds to (spreads counter-row contention between workers).
    let counterShard: Int16
    /// What a winning retraction does to a stored day.
    public let retractionMode: RetractionMode
    /// The erasure ledger as batches check it.
    let erasure: ErasureGuard
    /// The document compressor and decompressor, used only on the state's queue (inside ``withConnection(_:)``).
    let codecs = DocumentCodecs()
    /// The documents of a batch made ahead, by the worker (``StoreCapabilities/documentEncoder``).
    let documentEncoder = StoredDocumentEncoder()

    /// Connects with `connectionString` (a libpq URI or `key=value` pairs, merged over bounded defaults) and creates
    /// or migrates the schema.
    /// - Parameters:
    ///   - retractionMode: mark a retracted day `entered-in-error` (default) or delete its row.
    ///   - erasureKey: the key persons are hashed with in the erasure ledger (the worker's id key); without one the
    ///     store refuses to write while its ledger has entries.
    ///   - counterShard: the `outcome_count` shard this connection adds to (0-15; default random), distinct per
    ///     connection of one process so that their counter rows never wait for each other.
    /// - Throws: ``StoreError`` (`usage` for an unparsable connection string, `connection` or `timeout` when the
    ///   server is unreachable, `schema` when migration fails).
    public init(
        connectionString: String, options: PostgresClientOptions = PostgresClientOptions(),
        retractionMode: RetractionMode = .enteredInError, erasureKey: ErasureKey? = nil, counterShard: Int16? = nil
    ) async throws {
        let parameters = try StoreError.mapping {
            try PostgresConnectionParameters(
                connectionString: connectionString, applicationName: options.applicationName)
        }
        self.parameters = parameters
        self.options = options
        self.counterShard = counterShard ?? Int16.random(in: 0..<16)
        self.retractionMode = retractionMode
        erasure = ErasureGuard(key: erasureKey)
        state = QueueConfined(label: "dvp.postgres-store", State())
        try await state.run { state in
            try StoreError.mapping {
                let connection = try PostgresConnection(parameters, options: options)
                try SchemaMigrator.migrate(PostgresSchema.migrations, on: connection)
                try PostgresPartitions.ensure(days: PostgresPartitions.monthsAround(Date()), on: connection)
                state.connection = connection
            }
        }
    }

    /// Runs `body` on the store's queue with a live connection, replacing the last one first when it broke or
    /// timed out (a timed-out connection is dropped, never reused: its session state is unknown).
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> Result
    ) async throws -> Result {
        let (parameters, options) = (self.parameters, self.options)
        return try await state.run { state in
            guard !state.isClosed else { throw StoreError(.usage, "the PostgreSQL store is closed") }
            return try StoreError.mapping {
                let connection: PostgresConnection
                if let live = state.connection, !live.isBroken {
                    connection = live
                } else {
                    state.connection = nil
                    connection = try PostgresConnection(parameters, options: options)
                    state.connection = connection
                }
                do {
                    return try body(connection)
                } catch {
                    if connection.isBroken { state.connection = nil }
                    throw error
                }
            }
        }
    }

    // MARK: - ObservationStore

    public var capabilities: StoreCapabilities {
        StoreCapabilities(
            versionReader: self, finalize: self, retention: self, export: self, schema: self, migrate: self,
            audit: self, erasure: self, documentEncoder: documentEncoder)
    }

    public func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertResult] {
        guard !batch.isEmpty else { return [] }
        let (shard, mode, codecs, erasure) = (counterShard, retractionMode, codecs, erasure)
        return try await withConnection { connection in
            let write = {
                try connection.transaction {
                    try PostgresUpsert.run(
                        batch, counterShard: shard, retractionMode: mode, compressor: codecs.compressor,
                        erasure: erasure, on: connection)
                }
            }
            do {
                return try write()
            } catch where PostgresPartitions.isMissingPartition(error) {
                // A day of a month without a partition (a backfill, a new month): create it, write again once.
                try PostgresPartitions.ensure(days: batch.map(\.identity.day), on: connection)
                return try write()
            }
        }.map(UpsertResult.init)
    }

    public func observation(for identity: ObservationIdentity) async throws -> StoredObservation? {
        let codecs = codecs
        return try await withConnection { connection in
            let result = try connection.execute(
                Self.selectColumns + " WHERE patient = $1 AND metric = $2 AND day = $3",
                [identity.patient, identity.metric, identity.day])
            return try result.rows { try Self.stored(result, $0, codecs.decompressor) }.first
        }
    }

    public func observations(patient: String) async throws -> [StoredObservation] {
        let codecs = codecs
        return try await withConnection { connection in
            let result = try connection.execute(
                Self.selectColumns + #" WHERE patient = $1 ORDER BY metric COLLATE "C", day"#, [patient])
            return try result.rows { try Self.stored(result, $0, codecs.decompressor) }
        }
    }

    public func outcomeCounts() async throws -> [MetricOutcomeCount] {
        try await withConnection { connection in
            let result = try connection.execute(
                """
                SELECT metric, outcome, sum(count)::bigint FROM outcome_count
                GROUP BY metric, outcome ORDER BY metric COLLATE "C", outcome COLLATE "C"
                """)
            return try result.rows { row in
                MetricOutcomeCount(
                    metric: result.text(row, 0), outcome: UpsertOutcome(rawValue: result.text(row, 1)) ?? .stale,
                    count: try result.integer(row, 2))
            }
        }
    }

    public func allVersions() async throws -> [ObservationIdentity: Int64] {
        let rows = try await withConnection { connection in
            let result = try connection.execute("SELECT patient, metric, day, version FROM observation")
            return try result.rows { row in
                (
                    ObservationIdentity(
                        patient: result.text(row, 0), metric: result.text(row, 1), day: result.text(row, 2)),
                    try result.integer(row, 3)
                )
            }
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    public func close() async {
        _ = try? await state.run { state in
            state.connection = nil
            state.isClosed = true
        }
    }

    public func schemaVersion() async throws -> Int {
        try await withConnection { try $0.schemaVersion() }
    }

    // MARK: - Rows

    /// A row of schema 4 is its document (hex) with `meta.versionId`, `meta.lastUpdated` and the status from the
    /// columns (``StoredDocument``). A row with a `resource` is of schema 3 — not migrated yet, or last written by a
    /// pod of the older build during a rolling update (its document, if any, is then stale) — and is read with the
    /// same three set from the columns, which are authoritative: status changes since schema 4 write the columns
    /// only, and a row written by an older build has its meta only there.
    static let selectColumns = """
        SELECT patient, metric, day, version, resource_id,
            CASE WHEN resource IS NOT NULL THEN (jsonb_set(resource, '{meta}', coalesce(resource -> 'meta', '{}')
                || jsonb_build_object('versionId', version_id::text,
                    'lastUpdated', \(PostgresUpsert.lastUpdatedText("last_updated"))))
                || CASE WHEN status IS NULL THEN '{}' ELSE jsonb_build_object('status', status) END)::text END,
            CASE WHEN resource IS NULL THEN encode(document, 'hex') END, version_id,
            \(PostgresUpsert.lastUpdatedText("last_updated")), status
        FROM observation
        """

    static func stored(
        _ result: PostgresResult, _ row: Int, _ decompressor: DocumentDecompressor
    ) throws -> StoredObservation {
        let (versionId, lastUpdated) = (try result.integer(row, 7), result.text(row, 8))
        let resource: String
        if let hex = result.bytes(row, 6) {
            guard let document = Hex.bytes(String(decoding: hex, as: UTF8.self)) else {
                throw StoreError(.query, "a stored document is not hex")
            }
            let (content, parts) = try StoreError.mapping { try decompressor.parts(of: document) }
            resource = StoredDocument.resource(
                content, parts: parts, versionId: versionId, lastUpdated: lastUpdated,
                status: result.bytes(row, 9).map { String(decoding: $0, as: UTF8.self) })
        } else {
            resource = JSONWhitespace.removed(from: result.text(row, 5))
        }
        return try StoredObservation(
            identity: ObservationIdentity(
                patient: result.text(row, 0), metric: result.text(row, 1), day: result.text(row, 2)),
            version: result.integer(row, 3), resourceID: result.text(row, 4), resource: resource,
            versionId: versionId, lastUpdated: lastUpdated)
    }
}
