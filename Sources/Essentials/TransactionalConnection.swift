/// A database connection that can run a body between `BEGIN` and `COMMIT`: the one transaction wrapper of the
/// SQLite and PostgreSQL clients. Each client says how it begins, commits and rolls back; the order is shared.
package protocol TransactionalConnection {
    /// Starts a transaction.
    func beginTransaction() throws
    /// Commits the open transaction.
    func commitTransaction() throws
    /// Rolls back after a failure, when a transaction is still open on a usable connection; errors are ignored
    /// (the failure that caused the rollback is the one to report).
    func rollBackAfterFailure()
}

extension TransactionalConnection {
    /// Runs `body` inside a transaction: commits when it returns, rolls back when anything throws.
    package func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try transaction(beginning: beginTransaction, body)
    }

    /// ``transaction(_:)`` opened by `begin` instead of ``beginTransaction()`` (e.g. a read-only transaction).
    package func transaction<Result>(beginning begin: () throws -> Void, _ body: () throws -> Result) throws
        -> Result
    {
        try begin()
        do {
            let result = try body()
            try commitTransaction()
            return result
        } catch {
            rollBackAfterFailure()
            throw error
        }
    }
}
