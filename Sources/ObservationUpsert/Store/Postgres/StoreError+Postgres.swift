import PostgresClient

extension StoreError {
    /// The store error for a PostgreSQL client error: the same class, the SQLSTATE as the native code.
    init(_ error: PostgresError) {
        let code: Code =
            switch error.code {
            case .connection: .connection
            case .busy: .busy
            case .timeout: .timeout
            case .query: .query
            case .usage: .usage
            }
        self.init(code, nativeCode: error.sqlState, error.message)
    }

    /// Runs `body`, turning a ``PostgresError`` it throws into the matching ``StoreError``.
    static func mappingPostgres<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as PostgresError {
            throw StoreError(error)
        }
    }
}
