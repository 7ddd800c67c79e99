import DailyValueContract
import Essentials
import PostgresClient

/// The shared store for many workers on many hosts: PostgreSQL through libpq, one connection on a serial queue.
///
/// Every call is bounded (``PostgresClientOptions``; the connection's libpq defaults are listed at
/// ``PostgresConnectionParameters``). A lost connection (server restart, network) fails the call in progress with a
/// retriable ``StoreError`` (`connection`); a server that does not answer in time (frozen, half-open connection)
/// fails it with `timeout`. Either way the next call opens a replacement connection. The caller retries the batch;
/// the version guard makes that safe, including after a COMMIT whose outcome is unknown.
public final class PostgresObservationStore: ObservationStore, ObservationStoreMaintenance {
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

    /// Connects with `connectionString` (a libpq URI or `key=value` pairs, merged over bounded defaults) and creates
    /// or migrates the schema.
    /// - Parameter retractionMode: mark a retracted day `entered-in-error` (default) or delete its row.
    /// - Throws: ``StoreError`` (`usage` for an unparsable connection string, `connection` or `timeout` when the
    ///   server is unreachable, `schema` when migration fails).
    public init(
        connectionString: String, options: PostgresClientOptions = PostgresClientOptions(),
        retractionMode: RetractionMode = .enteredInError
    ) async throws {
        let parameters = try StoreError.mapping {
            try PostgresConnectionParameters(
                connectionString: connectionString, applicationName: options.applicationName)
        }
        self.parameters = parameters
        self.options = options
        self.counterShard = Int16.random(in: 0..<16)
        self.retractionMode = retractionMode
        state = QueueConfined(label: "dvp.postgres-store", State())
        try await state.run { state in
            try StoreError.mapping {
                let connection = try PostgresConnection(parameters, options: options)
                try SchemaMigrator.migrate(PostgresSchema.migrations, on: connection)
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

    public func upsert(_ batch: [ObservationRecord]) async throws -> [UpsertOutcome] {
        guard !batch.isEmpty else { return [] }
        let (shard, mode) = (counterShard, retractionMode)
        return try await withConnection { connection in
            try connection.transaction {
                try PostgresUpsert.run(batch, counterShard: shard, retractionMode: mode, on: connection)
            }
        }
    }

    public func observation(for identity: ObservationIdentity) async throws -> StoredObservation? {
        try await withConnection { connection in
            let result = try connection.execute(
                Self.selectColumns + " WHERE patient = $1 AND metric = $2 AND day = $3",
                [identity.patient, identity.metric, identity.day])
            return try result.rows { try Self.stored(result, $0) }.first
        }
    }

    public func observations(patient: String) async throws -> [StoredObservation] {
        try await withConnection { connection in
            let result = try connection.execute(
                Self.selectColumns + #" WHERE patient = $1 ORDER BY metric COLLATE "C", day"#, [patient])
            return try result.rows { try Self.stored(result, $0) }
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

    /// The resource is read with `meta.versionId`/`meta.lastUpdated` set from the columns, which are authoritative:
    /// the upsert writes both into the resource too, but a row written by an older build (before an upgrade, or by a
    /// pod still running the old image during a rolling update) has them only in the columns. No row is rewritten.
    private static let selectColumns = """
        SELECT patient, metric, day, version, resource_id,
            jsonb_set(resource, '{meta}', coalesce(resource -> 'meta', '{}') || jsonb_build_object(
                'versionId', version_id::text, 'lastUpdated', \(PostgresUpsert.lastUpdatedText("last_updated"))))::text,
            version_id, \(PostgresUpsert.lastUpdatedText("last_updated"))
        FROM observation
        """

    private static func stored(_ result: PostgresResult, _ row: Int) throws -> StoredObservation {
        try StoredObservation(
            identity: ObservationIdentity(
                patient: result.text(row, 0), metric: result.text(row, 1), day: result.text(row, 2)),
            version: result.integer(row, 3), resourceID: result.text(row, 4),
            resource: JSONWhitespace.removed(from: result.text(row, 5)), versionId: result.integer(row, 6),
            lastUpdated: result.text(row, 7))
    }
}
