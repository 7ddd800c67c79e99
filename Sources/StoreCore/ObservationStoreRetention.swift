/// Retention of a partitioned store (`storectl retention`, docs/PARTITIONING.md): whole months are dropped, never
/// rows one by one.
public protocol ObservationStoreRetention: Sendable {
    /// Moves the retention horizon forward to the first day of `keepFrom`'s month (`keepFrom` is a `YYYY-MM-DD` day; a
    /// horizon already later stays) and drops every partition whose days are all before it. Whole months, so an
    /// expired day is never one still stored. From then on an event of an earlier day is `expired`: not written,
    /// counted, and its month never re-created. With `dryRun`, changes nothing and says what it would do.
    func applyRetention(keepFrom: String, dryRun: Bool) async throws -> RetentionReport
}

/// What a retention run did (or would do, in a dry run).
public struct RetentionReport: Sendable, Hashable {
    /// A partition of `observation`: its name, its days (`from` nil: from the earliest), and its size.
    public struct Partition: Sendable, Hashable {
        public var name: String
        public var from: String?
        public var to: String
        /// The planner's estimate (`reltuples`; -1 before the first VACUUM or ANALYZE).
        public var estimatedRows: Int64
        public var bytes: Int64

        public init(name: String, from: String?, to: String, estimatedRows: Int64, bytes: Int64) {
            self.name = name
            self.from = from
            self.to = to
            self.estimatedRows = estimatedRows
            self.bytes = bytes
        }
    }

    /// The horizon in force afterwards: days before it are expired.
    public var horizon: String
    /// Dropped (or, in a dry run, to drop): every day before the horizon.
    public var dropped: [Partition]
    /// Kept, with days before the horizon (only the table of an older schema, `observation_legacy`): they go when
    /// the whole partition is before it.
    public var straddling: [Partition]
    /// Expired but not dropped: another session (e.g. a long export) held the table past the lock timeout. The
    /// horizon is in force; a later run drops them.
    public var busy: [Partition]

    public init(horizon: String, dropped: [Partition], straddling: [Partition], busy: [Partition]) {
        self.horizon = horizon
        self.dropped = dropped
        self.straddling = straddling
        self.busy = busy
    }
}
