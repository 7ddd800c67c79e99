import DailyValueContract

/// A failure of an ``ObservationStore``, with the database's own code and message.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Could not connect, or the connection was lost (server restart, network).
        case connection
        /// The database is busy or locked, or a serialization/deadlock conflict occurred.
        case busy
        /// The database did not answer within the client's deadline (a frozen server or a half-open connection).
        /// Whether the interrupted statement took effect is unknown; the connection is replaced.
        case timeout
        /// Creating or migrating the schema failed.
        case schema
        /// A statement failed for another reason.
        case query
        /// The server refused the store's credentials (HTTP 401/403): not ready until they are fixed or refreshed.
        case unauthorized
        /// The store was closed or misconfigured.
        case usage
    }

    public var code: Code
    /// SQLite extended result code, PostgreSQL SQLSTATE or HTTP status, when the store's backend gave one.
    public var nativeCode: String?
    public var message: String

    public init(_ code: Code, nativeCode: String? = nil, _ message: String) {
        self.code = code
        self.nativeCode = nativeCode
        self.message = message
    }

    /// True for infrastructure failures worth retrying with backoff (connection lost, busy, conflicts, timeouts,
    /// refused credentials that a token refresh or a fixed secret cures).
    public var isRetriable: Bool { [.connection, .busy, .timeout, .unauthorized].contains(code) }

    public var description: String {
        "store \(code.rawValue) error" + (nativeCode.map { " [\($0)]" } ?? "") + ": \(message)"
    }
}
