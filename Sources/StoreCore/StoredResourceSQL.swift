/// The SQL both stores use to write a record's resource whole: the mapped parts with the `meta.versionId`,
/// `meta.lastUpdated` and status the upsert decided between them (see ``ObservationRecord``).
///
/// Concatenation, not a JSON function: PostgreSQL's `jsonb_set` rebuilds the whole document, SQLite's `json_set`
/// parses it again.
package enum StoredResourceSQL {
    /// A text expression for the whole resource. Each argument is an SQL expression: `head`, `tail` and
    /// `afterStatus` evaluate to the record's parts, `versionId` to the decided version as text, `lastUpdated` to the
    /// RFC 3339 instant, `status` to the decided status (NULL when the record has no status slot).
    package static func compose(
        head: String, tail: String, versionId: String, lastUpdated: String, status: String, afterStatus: String
    ) -> String {
        #"(\#(head) || '"versionId":"' || \#(versionId) || '","lastUpdated":"' || \#(lastUpdated) || '",' || \#(tail)"#
            + #" || coalesce('"' || \#(status) || '"', '') || \#(afterStatus))"#
    }

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
