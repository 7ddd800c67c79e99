import DailyValueContract
import ObservationMapping
import StoreCore
import Synchronization

/// A bounded cache of lower bounds of stored versions, per identity, each with a hash of the clinical value known
/// `unchanged` at that version (when known).
///
/// A stored version only ever grows, so "the store holds at least version v" stays true forever. An incoming event
/// whose version is below the cached bound cannot change anything (`stale`), nor can a retraction of the bound's
/// version, nor a value of that version whose clinical value hashes to the cached one (`unchanged`): those are
/// dropped without asking the database — the fast path for replays and backfills. A value of the bound's version
/// with another (or an unknown) clinical value goes to the store, which tells a duplicate from a `conflict` (a
/// correction under a reused version must not be counted `unchanged` here). Keys are 128-bit hashes
/// of the identity (collisions are negligible: ~2⁻⁸⁸ at a million entries); when full, the cache is cleared, which
/// only costs speed, never correctness.
///
/// The table is open addressing over the keys' own bits (linear probing, at most 4/5 full): a key is already a
/// seeded hash, so a lookup costs no further hashing (a `Dictionary` would hash each key again, three times per
/// event).
final class VersionCache: Sendable {
    /// The cache key of one identity: computed once per event (``BatchProcessor/Decoded/versionKey``) and reused by
    /// every lookup and update of that event.
    struct Key: Hashable, Sendable {
        let a: UInt64
        let b: UInt64

        init(_ identity: ObservationIdentity) {
            var h1 = Hasher()
            var h2 = Hasher()
            h1.combine(identity.patient)
            h1.combine(identity.metric)
            h1.combine(identity.day)
            h2.combine(0x9E37_79B9_7F4A_7C15 as UInt64)
            h2.combine(identity.day)
            h2.combine(identity.metric)
            h2.combine(identity.patient)
            a = UInt64(bitPattern: Int64(h1.finalize()))
            b = UInt64(bitPattern: Int64(h2.finalize()))
        }

        /// A key read back from the table.
        init(a: UInt64, b: UInt64) {
            self.a = a
            self.b = b
        }

        /// `a` is already a hash of the identity: the table needs no more.
        func hash(into hasher: inout Hasher) { hasher.combine(a) }
    }

    /// A cached bound: the version the store holds at least, and ``valueHash(_:)`` of the clinical value known
    /// `unchanged` at that version (0: unknown).
    struct Bound: Sendable, Equatable {
        let version: Int64
        let valueHash: UInt64

        /// What an event of `version` is known to be before it is mapped: `stale` below the bound, `unchanged` for a
        /// retraction at it (a retraction never conflicts); nil when it must be mapped.
        func outcome(of version: Int64, isRetraction: Bool) -> UpsertOutcome? {
            if version < self.version { return .stale }
            return version == self.version && isRetraction ? .unchanged : nil
        }

        /// What a mapped record is known to be: the above, or `unchanged` for a value at the bound's version whose
        /// clinical value is the one known there; nil when the store must decide.
        func outcome(of record: ObservationRecord) -> UpsertOutcome? {
            if let known = outcome(of: record.version, isRetraction: record.retractionReason != nil) { return known }
            let isKnownValue =
                record.version == version && valueHash != 0 && VersionCache.valueHash(record) == valueHash
            return isKnownValue ? .unchanged : nil
        }
    }

    /// A non-zero hash of a clinical value's digest (``ClinicalDigest``, what the stores hold) for this process.
    static func valueHash(_ utf8: ArraySlice<UInt8>) -> UInt64 {
        var hasher = Hasher()
        utf8.withUnsafeBytes { hasher.combine(bytes: $0) }
        return Swift.max(1, UInt64(bitPattern: Int64(hasher.finalize())))
    }

    /// ``valueHash(_:)`` of a value record's clinical digest; 0 for a retraction.
    static func valueHash(_ record: ObservationRecord) -> UInt64 {
        record.retractionReason == nil ? valueHash(record.clinicalDigest[...]) : 0
    }

    private let table: Mutex<VersionTable>
    let isEnabled: Bool

    /// - Parameter capacity: identities kept before the cache clears itself; 0 disables it.
    init(capacity: Int) {
        isEnabled = capacity > 0
        table = Mutex(VersionTable(capacity: capacity))
    }

    /// The known lower bound of the stored version, if cached.
    func storedAtLeast(_ keys: [Key]) -> [Bound?] {
        guard isEnabled else { return Array(repeating: nil, count: keys.count) }
        return table.withLock { t in keys.map { t.bound(of: $0) } }
    }

    /// ``storedAtLeast(_:)-([Key])`` by identity.
    func storedAtLeast(_ identities: [ObservationIdentity]) -> [Bound?] {
        guard isEnabled else { return Array(repeating: nil, count: identities.count) }
        return storedAtLeast(identities.map(Key.init))
    }

    /// Raises the bounds after a durable upsert: each a version the store is known to hold or exceed, with the
    /// ``valueHash(_:)`` of a clinical value known `unchanged` at it (0: none known).
    func record(_ bounds: [(Key, Int64, UInt64)]) {
        guard isEnabled else { return }
        table.withLock { t in
            // A batch's bounds go in together when they fit (``VersionTable/raise(_:to:)`` clears it when full).
            if t.count + bounds.count > t.limit { t.removeAll() }
            for (key, version, valueHash) in bounds { t.raise(key, to: version, valueHash: valueHash) }
        }
    }

    /// ``record(_:)-([(Key,Int64,UInt64)])`` by identity, without value hashes.
    func record(_ bounds: [(ObservationIdentity, Int64)]) {
        guard isEnabled else { return }
        record(bounds.map { (Key($0.0), $0.1, 0) })
    }
}
