import CPostgres
import Foundation

/// One libpq connection (`PGconn*`), finished in `deinit`.
///
/// Confined to the owning store's serial queue: libpq calls block, and a connection must not be shared by threads.
/// Every value travels as a bound parameter (`PQexecParams` / `PQexecPrepared`); `executeScript` is for constant SQL.
final class PostgresConnection {
    private let handle: OpaquePointer
    /// Names of the statements prepared on this session.
    private var prepared: Set<String> = []

    /// Connects with `connectionString` as given (a URI or `key=value` pairs; `sslmode` etc. pass through) and sets
    /// up the session: UTF-8, `synchronous_commit = on` (a returned COMMIT is durable whatever the server's default)
    /// and `client_min_messages = warning` (no NOTICE chatter on stderr from `IF NOT EXISTS`).
    /// - Throws: ``StoreError`` with code `connection`.
    init(connectionString: String) throws {
        guard let connection = PQconnectdb(connectionString) else {
            throw StoreError(.connection, "connecting to PostgreSQL: libpq is out of memory")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)  // the handle must be finished even when connecting failed
            throw StoreError(.connection, "connecting to PostgreSQL: \(message)")
        }
        self.handle = connection
        guard PQsetClientEncoding(connection, "UTF8") == 0 else {
            throw StoreError(.connection, "setting client_encoding UTF8: \(Self.trimmed(PQerrorMessage(connection)))")
        }
        try executeScript("SET synchronous_commit = on; SET client_min_messages = warning")
    }

    deinit { PQfinish(handle) }

    /// True once libpq has seen the connection fail (server restart, network); the store then reconnects.
    var isBroken: Bool { PQstatus(handle) != CONNECTION_OK }

    // MARK: - Statements

    /// Runs constant SQL, possibly several statements (schema, transaction control). Never pass values here.
    @discardableResult
    func executeScript(_ sql: String) throws -> PostgresResult {
        try check(PQexec(handle, sql), "running \(sql.prefix(60))")
    }

    /// Runs one statement with `parameters` bound as text to `$1…$n`.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String] = []) throws -> PostgresResult {
        try withCStrings(parameters) { values in
            try check(
                PQexecParams(handle, sql, Int32(values.count), nil, values, nil, nil, 0), "running \(sql.prefix(60))")
        }
    }

    /// Runs the statement `sql` prepared once per session under `name`, with `parameters` bound as text.
    func executePrepared(_ name: String, _ sql: String, _ parameters: [String]) throws -> PostgresResult {
        if !prepared.contains(name) {
            _ = try check(PQprepare(handle, name, sql, Int32(parameters.count), nil), "preparing \(name)")
            prepared.insert(name)
        }
        return try withCStrings(parameters) { values in
            try check(PQexecPrepared(handle, name, Int32(values.count), values, nil, nil, 0), "running \(name)")
        }
    }

    /// Runs `body` between `BEGIN` and `COMMIT`; rolls back when it throws.
    ///
    /// A COMMIT whose outcome is unknown (the connection died during it) throws `connection`: the caller retries the
    /// batch, and the version guard makes applying it twice harmless.
    func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try executeScript("BEGIN")
        do {
            let result = try body()
            try executeScript("COMMIT")
            return result
        } catch {
            if !isBroken { _ = try? executeScript("ROLLBACK") }
            throw error
        }
    }

    // MARK: - Errors

    /// Wraps a result, throwing a ``StoreError`` unless the statement succeeded.
    private func check(_ raw: OpaquePointer?, _ context: String) throws -> PostgresResult {
        guard let raw else {
            throw StoreError(
                isBroken ? .connection : .query, "\(context): \(Self.trimmed(PQerrorMessage(handle)))")
        }
        let result = PostgresResult(raw)
        switch result.status {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return result
        default:
            let sqlState = result.sqlState
            let message = Self.trimmed(PQresultErrorMessage(raw))
            let code = isBroken ? .connection : Self.code(sqlState: sqlState)
            throw StoreError(code, nativeCode: sqlState, "\(context): \(message)")
        }
    }

    /// Maps an SQLSTATE to a store error code: connection failures and shutdowns are `connection`; serialization
    /// failures, deadlocks and lock timeouts are `busy` (both retriable); anything else is a `query` bug.
    static func code(sqlState: String?) -> StoreError.Code {
        guard let sqlState else { return .query }
        if sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState) { return .connection }
        if ["40001", "40P01", "55P03"].contains(sqlState) { return .busy }
        return .query
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> Result
    ) rethrows -> Result {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        return try body(copies.map { UnsafePointer($0) })
    }
}
