import CSQLite

/// A value bound to an SQLite statement parameter.
package enum SQLiteValue {
    case text(String)
    /// Text given as its UTF-8 bytes (e.g. a slice of a larger buffer), bound with its length: no `String` made.
    case utf8(ArraySlice<UInt8>)
    case integer(Int64)
    case blob([UInt8])
    case null
}

/// One prepared SQLite statement (`sqlite3_stmt*`), finalized in `deinit`.
///
/// Used only on its connection's queue; the connection caches it and finalizes it before closing the database.
package final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    package let sql: String

    /// `SQLITE_TRANSIENT`: SQLite copies bound text before `sqlite3_bind_text` returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(connection: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw SQLiteError.last(connection, code, "preparing \(sql)")
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: - Running

    /// Resets the statement and binds `values` to parameters 1…n.
    package func bind(_ values: [SQLiteValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, Self.transient)
            case .utf8(let bytes):
                code = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { chars in
                        // An empty slice may have no address, and a null pointer would bind NULL, not ''.
                        chars.baseAddress.map { sqlite3_bind_text(handle, index, $0, Int32(chars.count), Self.transient) }
                            ?? sqlite3_bind_text(handle, index, "", 0, Self.transient)
                    }
                }
            case .integer(let integer): code = sqlite3_bind_int64(handle, index, integer)
            case .blob(let bytes):
                // A zero-length blob with a null pointer would bind NULL: give it a pointer to nothing.
                code = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob(
                        handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count),
                        Self.transient)
                }
            case .null: code = sqlite3_bind_null(handle, index)
            }
            guard code == SQLITE_OK else {
                throw SQLiteError.last(connection, code, "binding parameter \(index) of \(sql)")
            }
        }
    }

    /// Steps once; true when a row is available.
    package func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let error = SQLiteError.last(connection, code, "running \(sql)")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds `values`, runs the statement to completion and returns every row mapped by `row`.
    package func query<Row>(_ values: [SQLiteValue] = [], row: (SQLiteStatement) -> Row) throws -> [Row] {
        try bind(values)
        defer { sqlite3_reset(handle) }
        var rows: [Row] = []
        while try step() { rows.append(row(self)) }
        return rows
    }

    /// Binds `values` and runs a statement that returns no rows.
    package func run(_ values: [SQLiteValue]) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    // MARK: - Columns

    package func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        return String(cString: bytes)
    }

    package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column's blob bytes, nil for NULL.
    package func blob(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// True when the column is NULL.
    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column's text as UTF-8 bytes, nil for NULL.
    package func bytes(_ column: Int32) -> [UInt8]? {
        guard sqlite3_column_type(handle, column) != SQLITE_NULL, let text = sqlite3_column_text(handle, column) else {
            return nil
        }
        return Array(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column))))
    }
}
