import ObservationUpsert
import Synchronization

/// A bounded cache of lower bounds of stored versions, per identity.
///
/// A stored version only ever grows, so "the store holds at least version v" stays true forever. An incoming event
/// whose version is not greater than the cached bound cannot change anything (it would be `unchanged` or `stale`)
/// and is dropped without asking the database — the fast path for replays and backfills. Keys are 128-bit hashes
/// of the identity (collisions are negligible: ~2⁻⁸⁸ at a million entries); when full, the cache is cleared, which
/// only costs speed, never correctness.
///
/// The table is open addressing over the keys' own bits (linear probing, at most 4/5 full): a key is already a
/// seeded hash, so a lookup costs no further hashing — three per event with `Dictionary` were ~5 % of the worker's
/// CPU on a first load (`perf`).
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

    private let table: Mutex<VersionTable>
    let isEnabled: Bool

    /// - Parameter capacity: identities kept before the cache clears itself; 0 disables it.
    init(capacity: Int) {
        isEnabled = capacity > 0
        table = Mutex(VersionTable(capacity: capacity))
    }

    /// The known lower bound of the stored version, if cached.
    func storedAtLeast(_ keys: [Key]) -> [Int64?] {
        guard isEnabled else { return Array(repeating: nil, count: keys.count) }
        return table.withLock { t in keys.map { t.version(of: $0) } }
    }

    /// ``storedAtLeast(_:)-([Key])`` by identity.
    func storedAtLeast(_ identities: [ObservationIdentity]) -> [Int64?] {
        guard isEnabled else { return Array(repeating: nil, count: identities.count) }
        return storedAtLeast(identities.map(Key.init))
    }

    /// Raises the bounds after a durable upsert: `atLeast` is a version the store is known to hold or exceed.
    func record(_ bounds: [(Key, Int64)]) {
        guard isEnabled else { return }
        table.withLock { t in
            // A batch's bounds go in together when they fit (``VersionTable/raise(_:to:)`` clears it when full).
            if t.count + bounds.count > t.limit { t.removeAll() }
            for (key, version) in bounds { t.raise(key, to: version) }
        }
    }

    /// ``record(_:)-([(Key,Int64)])`` by identity.
    func record(_ bounds: [(ObservationIdentity, Int64)]) {
        guard isEnabled else { return }
        record(bounds.map { (Key($0.0), $0.1) })
    }
}
