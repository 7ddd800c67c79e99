import CSQLite
import Essentials

/// One open SQLite database (`sqlite3*`) with its cache of prepared statements; closed in `deinit`.
///
/// Confined to the owning store's serial queue (see ``QueueConfined``), so it is opened with `SQLITE_OPEN_NOMUTEX`.
package final class SQLiteConnection {
    private let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if missing) the database at `path` and configures the connection.
    ///
    /// `journal_mode = WAL`: readers (export, reads by identity) never block the writer nor it them, and a commit
    /// appends its pages to the WAL instead of rewriting the database file.
    ///
    /// `synchronous = FULL`, chosen deliberately. In WAL mode `FULL` syncs the WAL at every commit (once per batch
    /// here), so a transaction that returned is on disk: it survives a crash of the process and a power loss.
    /// `NORMAL` syncs only at checkpoints: a commit survives a crash of the process but a power loss (or kernel
    /// panic) may roll back the last commits. The worker stores its Kafka offsets as soon as an upsert returns and
    /// librdkafka commits them to the broker within a second, so with `NORMAL` a power loss could lose batches whose
    /// offsets the group has already committed: values never stored and never read again. `NORMAL` would lose
    /// nothing only if the offsets were written in the same SQLite transaction and the consumer resumed from them;
    /// the worker keeps its offsets in Kafka, so `FULL` it is (one fsync per batch of up to 1000 records).
    ///
    /// `wal_autocheckpoint` of ``walCheckpointPages`` instead of 1000: with the default a batch's pages were copied
    /// back into the database file (and synced) at almost every commit; a longer WAL copies a page dirtied by several
    /// batches once. The WAL file then stays up to ~32 MB (plus one batch); `journal_size_limit` truncates it back
    /// to that after a larger burst.
    ///
    /// `secure_delete=ON`: deleted and replaced content is overwritten with zeros, so an erased person's bytes do not
    /// outlive their rows in the file (docs/PRIVACY.md). Debian's SQLite is built with it on by default; this makes
    /// every build behave the same.
    /// - Throws: ``SQLiteError`` (`unavailable` when the database cannot be opened).
    package init(path: String, busyTimeoutMilliseconds: Int32) throws {
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let error =
                db.map { SQLiteError.last($0, code, "opening \(path)") }
                ?? SQLiteError(resultCode: code, "opening \(path): out of memory")
            sqlite3_close_v2(db)  // the handle must be closed even when opening failed
            throw SQLiteError(resultCode: error.resultCode, kind: .unavailable, error.message)
        }
        self.handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
        try execute("PRAGMA wal_autocheckpoint = \(Self.walCheckpointPages)")
        try execute("PRAGMA journal_size_limit = \(Self.walCheckpointPages * 4096)")
        try execute("PRAGMA secure_delete = ON")
    }

    /// WAL pages after which a commit copies the WAL back into the database file (SQLite's default is 1000).
    package static let walCheckpointPages = 8000

    deinit {
        statements.removeAll()  // finalize every statement before closing
        sqlite3_close_v2(handle)
    }

    // MARK: - Statements

    /// Runs constant SQL (schema, pragmas, transaction control). Never pass values here: bind them.
    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            throw SQLiteError(resultCode: sqlite3_extended_errcode(handle), "\(text) (running \(sql))")
        }
    }

    /// The cached prepared statement for `sql`, prepared on first use.
    package func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] { return cached }
        let statement = try SQLiteStatement(connection: handle, sql: sql)
        statements[sql] = statement
        return statement
    }
}

// MARK: - Transactions

/// `BEGIN IMMEDIATE` … `COMMIT`: the write lock is taken up front, so `SQLITE_BUSY` surfaces at `BEGIN` rather than
/// half-way through a batch.
extension SQLiteConnection: TransactionalConnection {
    package func beginTransaction() throws { try execute("BEGIN IMMEDIATE") }

    package func commitTransaction() throws { try execute("COMMIT") }

    package func rollBackAfterFailure() {
        if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
    }

    /// Runs `body`'s reads in one deferred (read) transaction: one snapshot and one round of file and WAL locks for
    /// all of them, where each statement outside a transaction takes and drops its own (measured on a replay's
    /// version reads: a quarter of the worker's CPU in the kernel, most of it `fcntl` locking). A WAL reader waits
    /// for no writer and no writer waits for it.
    package func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try transaction(beginning: { try execute("BEGIN DEFERRED") }, body)
    }
}
