import DailyValueContract

/// A store that reads the stored versions of many identities in one cheap query (keys and versions only, no
/// resources), so that a worker can skip upserts that cannot change anything before paying for them.
///
/// A stored version only ever grows, so every version read stays a valid lower bound of the stored one: an
/// incoming record whose version is not above it would be `unchanged` (equal) or `stale` (lower).
public protocol ObservationVersionReader: Sendable {
    /// The stored version of each of `identities` that has a stored row (identities without one are absent).
    /// - Throws: ``StoreError``.
    func storedVersions(for identities: [ObservationIdentity]) async throws -> [ObservationIdentity: Int64]
}
