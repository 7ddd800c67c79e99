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

/// The version a day holds, and the digest of the clinical value held at that version.
public struct HeldVersion: Sendable, Hashable {
    public var version: Int64
    /// The 16-byte digest of the stored ``ObservationRecord/clinicalValue`` (what ``ObservationRecord`` compares);
    /// nil when no value holds the version (a retraction does: ledger only, or a row marked `entered-in-error`) or
    /// the row predates the column.
    public var clinicalDigest: [UInt8]?

    public init(version: Int64, clinicalDigest: [UInt8]?) {
        self.version = version
        self.clinicalDigest = clinicalDigest
    }
}
