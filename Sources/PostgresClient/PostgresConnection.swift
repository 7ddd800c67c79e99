import CPostgres
import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One libpq connection (`PGconn*`), finished in `deinit`.
///
/// Confined to the owning store's serial queue: a connection must not be shared by threads. Every wait is bounded:
/// connecting by `connect_timeout`, and every round trip by ``PostgresClientOptions/roundTripTimeout`` through
/// libpq's asynchronous API (see `PostgresConnection+RoundTrip.swift`). A round trip that misses its deadline leaves
/// the session in an unknown state, so the connection reports itself broken and the store replaces it.
///
/// Every value travels as a bound parameter (`PQsendQueryParams` / `PQsendQueryPrepared`); `executeScript` is for
/// constant SQL.
package final class PostgresConnection {
    let handle: OpaquePointer
    let options: PostgresClientOptions
    /// Names of the statements prepared on this session.
    private var prepared: Set<String> = []
    /// Set when a round trip missed its deadline: the statement's outcome is unknown and the session is never used
    /// again (a COMMIT cut off this way may or may not have committed; the caller retries the idempotent batch).
    var timedOut = false

    /// Connects with `parameters` (the user's connection string over the bounded defaults) and sets up the session:
    /// `synchronous_commit = on` (a returned COMMIT is durable whatever the server's default) and
    /// `client_min_messages = warning` (no NOTICE chatter on stderr from `IF NOT EXISTS`).
    /// - Throws: ``PostgresError`` `connection`, or `timeout` when connecting or the set-up took too long.
    package init(_ parameters: PostgresConnectionParameters, options: PostgresClientOptions) throws {
        self.options = options
        self.handle = try Self.connect(parameters, timeout: parameters.connectTimeout ?? options.roundTripTimeout)
        try executeScript("SET synchronous_commit = on; SET client_min_messages = warning")
    }

    /// Connects with `connectionString` (a URI or `key=value` pairs) merged over the defaults.
    /// - Throws: ``PostgresError`` `usage` for an unparsable string, else as ``init(_:options:)``.
    package convenience init(
        connectionString: String, options: PostgresClientOptions = PostgresClientOptions()
    ) throws {
        try self.init(
            PostgresConnectionParameters(connectionString: connectionString, applicationName: options.applicationName),
            options: options)
    }

    deinit { PQfinish(handle) }  // non-blocking mode: never waits on a dead peer

    /// True once the connection failed (server restart, network) or a round trip timed out; the store then
    /// replaces it.
    package var isBroken: Bool { timedOut || PQstatus(handle) != CONNECTION_OK }

    /// The process id of the server backend serving this connection (`pg_stat_activity.pid`).
    package var backendPID: Int32 { PQbackendPID(handle) }

    // MARK: - Statements

    /// Runs constant SQL, possibly several statements (schema, transaction control). Never pass values here.
    @discardableResult
    package func executeScript(_ sql: String) throws -> PostgresResult {
        try roundTrip("running \(sql.prefix(60))") { PQsendQuery(handle, sql) }
    }

    /// Runs one statement with `parameters` bound as text to `$1…$n`.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String] = []) throws -> PostgresResult {
        try withBound(parameters.map(PostgresParameter.text)) { values, lengths, formats in
            try roundTrip("running \(sql.prefix(60))") {
                PQsendQueryParams(handle, sql, Int32(values.count), nil, values, lengths, formats, 0)
            }
        }
    }

    /// Runs the statement `sql` prepared once per session under `name`, with `parameters` bound to `$1…$n`.
    package func executePrepared(
        _ name: String, _ sql: String, _ parameters: [PostgresParameter]
    ) throws -> PostgresResult {
        if !prepared.contains(name) {
            try roundTrip("preparing \(name)") { PQsendPrepare(handle, name, sql, Int32(parameters.count), nil) }
            prepared.insert(name)
        }
        return try withBound(parameters) { values, lengths, formats in
            try roundTrip("running \(name)") {
                PQsendQueryPrepared(handle, name, Int32(values.count), values, lengths, formats, 0)
            }
        }
    }

    // MARK: - Errors

    /// Throws a ``PostgresError`` unless `result` (the outcome of one round trip) succeeded.
    func check(_ result: PostgresResult, _ context: String) throws -> PostgresResult {
        switch result.status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            let sqlState = result.sqlState
            let message = result.errorMessage.trimmingWhitespace()
            let code = isBroken ? .connection : PostgresError.code(sqlState: sqlState)
            throw PostgresError(code, sqlState: sqlState, "\(context): \(message)")
        }
    }

    /// The error for a libpq call that failed without a result (send, flush or read failed).
    func failure(_ context: String) -> PostgresError {
        PostgresError(isBroken ? .connection : .query, "\(context): \(Self.trimmed(PQerrorMessage(handle)))")
    }

    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        return String(cString: message).trimmingWhitespace()
    }

    /// libpq's three parallel arrays for `parameters`: values (text NUL-terminated, binary as bytes, both borrowed
    /// in place, never copied), lengths (read for binary only) and formats (0 text, 1 binary), valid during `body`.
    private func withBound<Result>(
        _ parameters: [PostgresParameter],
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) throws -> Result
    ) rethrows -> Result {
        var values: [UnsafePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        return try bind(parameters[...], &values, &lengths, &formats, body)
    }

    /// Where an empty binary value points (never read: its length is 0).
    nonisolated(unsafe) private static let noBytes = UnsafePointer(UnsafeMutablePointer<CChar>.allocate(capacity: 1))

    private func bind<Result>(
        _ parameters: ArraySlice<PostgresParameter>, _ values: inout [UnsafePointer<CChar>?], _ lengths: inout [Int32],
        _ formats: inout [Int32], _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) throws -> Result
    ) rethrows -> Result {
        guard let parameter = parameters.first else { return try body(values, lengths, formats) }
        switch parameter {
        case .text(let text):
            return try text.withCString { pointer in
                values.append(pointer)
                lengths.append(0)
                formats.append(0)
                return try bind(parameters.dropFirst(), &values, &lengths, &formats, body)
            }
        case .binary(let bytes):
            return try bytes.withUnsafeBytes { raw in
                // A non-null pointer even for no bytes: libpq reads NULL as SQL NULL.
                values.append(raw.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) } ?? Self.noBytes)
                lengths.append(Int32(raw.count))
                formats.append(1)
                return try bind(parameters.dropFirst(), &values, &lengths, &formats, body)
            }
        }
    }
}

// MARK: - Transactions

/// `BEGIN` … `COMMIT`. A COMMIT whose outcome is unknown (the connection died or timed out during it) throws
/// `connection` or `timeout`, never success: the caller retries the batch on a new connection, and the version guard
/// makes applying it twice harmless.
extension PostgresConnection: TransactionalConnection {
    package func beginTransaction() throws { try executeScript("BEGIN") }

    package func commitTransaction() throws { try executeScript("COMMIT") }

    package func rollBackAfterFailure() {
        if !isBroken { _ = try? executeScript("ROLLBACK") }
    }
}
