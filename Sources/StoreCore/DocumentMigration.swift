/// A store whose rows of an older shape are rewritten into the current one by `storectl migrate`
/// (docs/STORAGE.md): online, in batches, resumable (a run picks up whatever is still in the old shape).
public protocol DocumentMigrating: Sendable {
    /// Rewrites rows still in the older shape, `batchSize` rows per short transaction in key order, calling
    /// `progress` after each batch. Where rows are locked one by one (PostgreSQL) a row a writer holds is skipped
    /// (left to the next run), never waited for; where the database has one write lock (SQLite) a batch waits for
    /// it, and a writer for one batch at most. The stored values, `meta.versionId`, `meta.lastUpdated` and status do
    /// not change.
    /// - Returns: the final progress; `left` counts rows still in the older shape after the run.
    func migrateDocuments(batchSize: Int, progress: @escaping @Sendable (DocumentMigrationProgress) -> Void)
        async throws
        -> DocumentMigrationProgress
}

/// How far a document migration has come.
public struct DocumentMigrationProgress: Sendable, Hashable {
    /// Rows in the older shape when the run started.
    public var total: Int
    /// Rows rewritten so far.
    public var rewritten: Int
    /// Rows that could not be rewritten (their resource is not a JSON object): they stay in the older shape,
    /// readable whole.
    public var kept: Int
    /// After the run: rows still in the older shape (skipped while a writer held them, written by a pod of an older
    /// build meanwhile, or kept).
    public var left: Int

    public init(total: Int, rewritten: Int = 0, kept: Int = 0, left: Int = 0) {
        self.total = total
        self.rewritten = rewritten
        self.kept = kept
        self.left = left
    }
}
