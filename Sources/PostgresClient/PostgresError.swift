/// A failed PostgreSQL call: what kind of failure, the server's SQLSTATE when it sent one, and the message with the
/// context of the call.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Could not connect, or the connection was lost (server restart, network, SQLSTATE class 08, shutdown).
        case connection
        /// A serialization failure, deadlock, lock timeout or cancelled statement (`40001`, `40P01`, `55P03`,
        /// `57014`).
        case busy
        /// The server did not answer within the client's deadline; the connection is abandoned.
        case timeout
        /// The statement failed for another reason (or a result held a value of an unexpected form).
        case query
        /// The connection string could not be parsed.
        case usage
    }

    public var code: Code
    /// The SQLSTATE (`PG_DIAG_SQLSTATE`) of a statement the server rejected.
    public var sqlState: String?
    public var message: String

    public init(_ code: Code, sqlState: String? = nil, _ message: String) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
    }

    /// True for failures worth retrying on a (new) connection: connection lost, busy, timeouts.
    public var isRetriable: Bool { code == .connection || code == .busy || code == .timeout }

    public var description: String {
        "PostgreSQL \(code.rawValue) error" + (sqlState.map { " [\($0)]" } ?? "") + ": \(message)"
    }

    /// The class of a server error: connection failures, shutdowns and a standby's read-only refusal are
    /// `connection`; serialization failures, deadlocks, lock timeouts, cancelled statements (`statement_timeout`, a
    /// cancel request), exhausted resources (class 53) and I/O errors (class 58) are `busy` (both retriable); anything
    /// else (a SQL error, a missing privilege such as 42501) is `query`, which no retry cures.
    public static func code(sqlState: String?) -> Code {
        guard let sqlState else { return .query }
        // 25006: a read-only transaction, i.e. connected to a standby (a failover promoted another node): reconnect.
        if sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "25006"].contains(sqlState) { return .connection }
        // Class 53 (out of disk, memory or connections) and 58 (I/O errors) pass; so do serialization failures,
        // deadlocks, lock timeouts and cancelled statements.
        if sqlState.hasPrefix("53") || sqlState.hasPrefix("58") || ["40001", "40P01", "55P03", "57014"].contains(sqlState) {
            return .busy
        }
        return .query
    }
}
