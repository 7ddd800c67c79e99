import CSQLite

/// A failed SQLite call: the extended result code and SQLite's message, with what the call was doing.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure the result code is.
    public enum Kind: Sendable, Equatable {
        /// `SQLITE_BUSY` / `SQLITE_LOCKED` (any extended code): another connection holds a lock; worth retrying.
        case busy
        /// `SQLITE_CANTOPEN`, `SQLITE_IOERR`, `SQLITE_FULL`, or any failure to open the database: the file cannot
        /// be opened, read or written.
        case unavailable
        /// Any other failure (a constraint, malformed SQL, misuse).
        case statement
    }

    /// The extended result code (`sqlite3_extended_errcode`), or the primary one when SQLite gave no extended code.
    public var resultCode: Int32
    /// SQLite's message and the context of the call, e.g. `database is locked (running BEGIN IMMEDIATE)`.
    public var message: String
    public var kind: Kind

    /// - Parameter kind: the kind, when the call decides it (opening); else derived from the result code.
    public init(resultCode: Int32, kind: Kind? = nil, _ message: String) {
        self.resultCode = resultCode
        self.message = message
        self.kind = kind ?? Self.kind(of: resultCode)
    }

    public static func kind(of resultCode: Int32) -> Kind {
        switch resultCode & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_CANTOPEN, SQLITE_IOERR, SQLITE_FULL: .unavailable
        default: .statement
        }
    }

    public var description: String { "SQLite error \(resultCode): \(message)" }

    /// The error of a failed call on `db`: SQLite's message, and its extended code when it belongs to `code`.
    static func last(_ db: OpaquePointer, _ code: Int32, _ context: String) -> SQLiteError {
        let extended = sqlite3_extended_errcode(db)
        let message = String(cString: sqlite3_errmsg(db))
        return SQLiteError(resultCode: extended & 0xff == code & 0xff ? extended : code, "\(message) (\(context))")
    }
}
