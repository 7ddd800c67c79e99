import SQLiteClient

extension StoreError {
    /// The store error for an SQLite client error: `busy` / `locked` are `busy` (retriable), a file that cannot be
    /// opened, read or written is `connection`; the native code is the extended result code.
    init(_ error: SQLiteError) {
        let code: Code =
            switch error.kind {
            case .busy: .busy
            case .unavailable: .connection
            case .statement: .query
            }
        self.init(code, nativeCode: String(error.resultCode), error.message)
    }

    /// Runs `body`, turning an ``SQLiteError`` it throws into the matching ``StoreError``.
    static func mappingSQLite<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw StoreError(error)
        }
    }
}
