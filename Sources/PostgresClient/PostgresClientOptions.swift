/// Client-side settings of the PostgreSQL store that are not libpq connection parameters.
///
/// libpq's own timeouts (`connect_timeout`, keepalives, `tcp_user_timeout`) and the server's (`statement_timeout`,
/// `lock_timeout`) do not end a wait on a server process that is frozen (SIGSTOP, a hung host under a live kernel):
/// the kernel still acknowledges, and the frozen backend enforces its timeouts itself. These client deadlines do.
public struct PostgresClientOptions: Sendable, Hashable {
    /// Sent as `fallback_application_name`: shown in `pg_stat_activity` unless the connection string (or
    /// `PGAPPNAME`) sets `application_name`.
    public var applicationName: String
    /// Bound on one round trip (sending a statement and reading all its results). When it passes, a cancel request
    /// is sent, the call throws ``PostgresError`` `timeout` (retriable) and the connection is replaced on the next call.
    /// Default 40 s, above the default `statement_timeout` (30 s) so that the server normally answers first.
    public var roundTripTimeout: Duration
    /// Bound on the cancel request sent after a round trip timed out (it opens a connection of its own). Default 5 s.
    public var cancelTimeout: Duration

    public init(
        applicationName: String = "daily-values-pipeline", roundTripTimeout: Duration = .seconds(40),
        cancelTimeout: Duration = .seconds(5)
    ) {
        self.applicationName = applicationName
        self.roundTripTimeout = roundTripTimeout
        self.cancelTimeout = cancelTimeout
    }
}
