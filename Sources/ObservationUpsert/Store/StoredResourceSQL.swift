/// The SQL both stores use to write a record's resource whole: the mapped head and tail with the `meta.versionId`
/// and `meta.lastUpdated` the upsert decided between them (see ``ObservationRecord``).
///
/// Concatenation, not a JSON function: PostgreSQL's `jsonb_set` rebuilds the whole document (measured: +60 % on a
/// 100k-row insert of ~1.8 KB resources), SQLite's `json_set` parses it again.
enum StoredResourceSQL {
    /// A text expression for the whole resource. Each argument is an SQL expression: `head` and `tail` evaluate to
    /// the record's parts, `versionId` to the decided version as text, `lastUpdated` to the RFC 3339 instant.
    static func compose(head: String, tail: String, versionId: String, lastUpdated: String) -> String {
        #"(\#(head) || '"versionId":"' || \#(versionId) || '","lastUpdated":"' || \#(lastUpdated) || '",' || \#(tail))"#
    }
}
