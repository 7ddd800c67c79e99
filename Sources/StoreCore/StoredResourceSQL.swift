/// The lifecycle's status decision as SQL (docs/LIFECYCLE.md), for PostgreSQL's set-based upsert; SQLite, which
/// decides under its write lock, applies the same rules in Swift (`SQLiteRowWriter.decidedStatus`).
package enum StoredResourceSQL {
    /// The status a version-guarded write stores (docs/LIFECYCLE.md), as an SQL expression over the stored row's
    /// `status` and `clinical_value` (NULL for a new row) and the incoming record's; NULL without a status slot.
    ///
    /// A stored final or amended day stays so: a different value makes it `amended`, an equal one keeps the stored
    /// status (a late `preliminary` never reopens it). Any other stored state (preliminary, entered-in-error, none)
    /// takes the incoming status.
    package static func decidedStatus(
        storedStatus: String, storedValue: String, incomingStatus: String, incomingValue: String
    ) -> String {
        """
        (CASE WHEN \(incomingStatus) IS NULL THEN NULL \
        WHEN \(storedStatus) IN ('final', 'amended') AND \(storedValue) IS DISTINCT FROM \(incomingValue) \
        THEN 'amended' \
        WHEN \(storedStatus) IN ('final', 'amended') THEN \(storedStatus) \
        ELSE \(incomingStatus) END)
        """
    }
}
