/// What a winning retraction does to a stored day (docs/LIFECYCLE.md); the retraction ledger records it either way,
/// so an equal or lower version never brings the day back and a higher one restores it.
public enum RetractionMode: String, Sendable, Hashable, CaseIterable {
    /// The resource stays, marked `entered-in-error` (status, `meta.versionId` + 1, `meta.lastUpdated`): readers see
    /// that the day was withdrawn. The default.
    case enteredInError = "entered-in-error"
    /// The stored row is deleted: readers no longer find the day. A higher version later stores it anew
    /// (`inserted`, the status it carries), its `meta.versionId` continuing from the deleted row's (kept in the
    /// ledger's `version_id`), so no earlier ETag matches the new content.
    case delete
}
