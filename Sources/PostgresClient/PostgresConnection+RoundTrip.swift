import CPostgres
import Essentials

/// Bounded waits on libpq's asynchronous API.
///
/// Keepalives and `tcp_user_timeout` never fire against a frozen server process (its kernel still acknowledges),
/// and `statement_timeout` is enforced by the frozen backend itself; only a client-side deadline ends such a wait.
/// So nothing here calls a blocking libpq function: `PQconnectStartParams` / `PQconnectPoll` to connect; `PQsend*`,
/// `PQflush`, `PQconsumeInput`, `PQisBusy` and `PQgetResult` for a statement, with `poll(2)` on `PQsocket` for the
/// time left. The socket stays in non-blocking mode, so `PQfinish` never waits either.
extension PostgresConnection {
    // MARK: - Connecting

    /// Opens a connection with `parameters`, giving up after `timeout`.
    /// - Throws: ``PostgresError`` `connection` (refused, authentication, …) or `timeout`.
    static func connect(_ parameters: PostgresConnectionParameters, timeout: Duration) throws -> OpaquePointer {
        let started = ContinuousClock.now
        let deadline = started + timeout
        guard let connection = parameters.withCArrays({ PQconnectStartParams($0, $1, 0) }) else {
            throw PostgresError(.connection, "connecting to PostgreSQL: libpq is out of memory")
        }
        do {
            // libpq's protocol: start as if PQconnectPoll had asked for writing, then do what each call asks.
            var status = PQstatus(connection) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
            while status != PGRES_POLLING_OK {
                let event: SocketWait.Event
                switch status {
                case PGRES_POLLING_READING: event = .readable
                case PGRES_POLLING_WRITING: event = .writable
                default:
                    throw PostgresError(.connection, "connecting to PostgreSQL: \(trimmed(PQerrorMessage(connection)))")
                }
                guard try SocketWait.wait(PQsocket(connection), for: event, until: deadline) else {
                    throw PostgresError(
                        .timeout, "connecting to PostgreSQL: no connection within \(seconds(timeout)) s")
                }
                status = PQconnectPoll(connection)
            }
            guard PQsetnonblocking(connection, 1) == 0 else {
                throw PostgresError(.connection, "connecting to PostgreSQL: \(trimmed(PQerrorMessage(connection)))")
            }
            return connection
        } catch {
            PQfinish(connection)  // the handle must be finished even when connecting failed
            throw error
        }
    }

    // MARK: - Round trips

    /// Sends one request with `send` (a `PQsend*` call) and reads all its results, within the round-trip timeout.
    ///
    /// Like `PQexec`, returns the last result, or the first failed one (the server skips the rest of a script after
    /// an error).
    /// - Throws: ``PostgresError``: the statement's own error, `connection` when the connection failed, `timeout` when
    ///   the deadline passed (a cancel request is sent and the connection is marked broken).
    @discardableResult
    func roundTrip(_ context: String, _ send: () -> Int32) throws -> PostgresResult {
        guard !timedOut else {
            throw PostgresError(.timeout, "\(context): the connection was abandoned after an earlier timeout")
        }
        let deadline = ContinuousClock.now + options.roundTripTimeout
        guard send() == 1 else { throw failure(context) }
        try flush(context, until: deadline)
        var outcome: PostgresResult?
        while true {
            try awaitResult(context, until: deadline)
            guard let raw = PQgetResult(handle) else { break }
            let result = PostgresResult(raw)
            if outcome.map({ !Self.failed($0) }) ?? true { outcome = result }
        }
        guard let outcome else { throw failure(context) }
        return try check(outcome, context)
    }

    /// Sends what libpq buffered (a large batch may not fit the socket buffer), reading input meanwhile as libpq asks.
    private func flush(_ context: String, until deadline: ContinuousClock.Instant) throws {
        while true {
            let pending = PQflush(handle)
            if pending == 0 { return }
            guard pending > 0 else { throw failure(context) }
            guard try SocketWait.wait(PQsocket(handle), for: .readableOrWritable, until: deadline) else {
                throw timeOut(context)
            }
            guard PQconsumeInput(handle) == 1 else { throw failure(context) }
        }
    }

    /// Reads input until `PQgetResult` would not block.
    private func awaitResult(_ context: String, until deadline: ContinuousClock.Instant) throws {
        while PQisBusy(handle) == 1 {
            guard try SocketWait.wait(PQsocket(handle), for: .readable, until: deadline) else {
                throw timeOut(context)
            }
            guard PQconsumeInput(handle) == 1 else { throw failure(context) }
        }
    }

    /// Gives up on the statement in flight: asks the server to cancel it (bounded), marks the connection broken so
    /// that the store replaces it, and returns the retriable error to throw.
    private func timeOut(_ context: String) -> PostgresError {
        timedOut = true
        let cancel = PostgresCancelRequest.send(for: handle, timeout: options.cancelTimeout)
        return PostgresError(
            .timeout,
            "\(context): no answer within \(Self.seconds(options.roundTripTimeout)) s (\(cancel)); connection dropped")
    }

    private static func failed(_ result: PostgresResult) -> Bool {
        result.status != PGRES_COMMAND_OK && result.status != PGRES_TUPLES_OK
    }

    static func seconds(_ duration: Duration) -> String {
        let value = duration.seconds
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}
