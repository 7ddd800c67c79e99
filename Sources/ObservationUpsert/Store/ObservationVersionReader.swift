import DailyValueContract

/// A store that reads the stored versions of many identities in one cheap query (keys and versions only, no
/// resources), so that a worker can skip upserts that cannot change anything before paying for them.
///
/// A stored version only ever grows, so every version read stays a valid lower bound of the stored one: an
/// incoming record whose version is below it would be `stale`; one of an equal version is `unchanged` when its clinical
/// value is the one held, else `conflict`.
public protocol ObservationVersionReader: Sendable {
    /// The version each of `identities` holds, if any (identities without one are absent).
    /// - Throws: ``StoreError``.
    func storedVersions(for identities: [ObservationIdentity]) async throws -> [ObservationIdentity: HeldVersion]
}

/// The version a day holds, and the clinical value held at that version.
public struct HeldVersion: Sendable, Hashable {
    public var version: Int64
    /// The stored ``ObservationRecord/clinicalValue`` as UTF-8; nil when no value holds the version (a retraction
    /// does: ledger only, or a row marked `entered-in-error`) or the row predates the column.
    public var clinicalValue: [UInt8]?

    public init(version: Int64, clinicalValue: [UInt8]?) {
        self.version = version
        self.clinicalValue = clinicalValue
    }
}
