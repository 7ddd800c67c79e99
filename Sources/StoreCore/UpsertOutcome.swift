import DailyValueContract

/// What a version-guarded upsert did with one record.
public enum UpsertOutcome: String, Sendable, Hashable, CaseIterable, Codable {
    /// No Observation existed for the identity; it was stored.
    case inserted
    /// The incoming version was greater than the stored one; the Observation was replaced and `meta.versionId` grew.
    case updated
    /// The incoming version equals the stored one (duplicate delivery, replay, retry); nothing was rewritten.
    case unchanged
    /// The incoming version is lower than the stored one; it was ignored so that newer data never regresses.
    case stale
    /// A retraction with a version above the stored one: the day is `entered-in-error` or deleted
    /// (``RetractionMode``), and in the ledger (a day never stored only there), until a higher version restores it.
    case retracted
    /// The incoming version equals the stored one but its clinical value differs (a correction sent under a reused
    /// version). The sync-version rule holds (the first stored wins, nothing is rewritten); the outcome tells it apart
    /// from a true duplicate (`unchanged`), so that it does not disappear without a signal.
    case conflict
    /// The day is before the store's retention horizon (`storectl retention`, docs/PARTITIONING.md): its month was
    /// or will be dropped, so nothing is written (no partition is re-created for it) and the event is counted.
    case expired
    /// The person is erased or has withdrawn consent (the store's erasure ledger, `storectl erase`): nothing was
    /// written, and the event is counted without its content.
    case erased
}
