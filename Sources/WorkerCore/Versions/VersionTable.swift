/// The ``VersionCache``'s storage: an open-addressing table of 128-bit keys, versions and clinical-value hashes,
/// indexed by the key's low bits with linear probing, never more than 4/5 full. It starts small and doubles as it
/// fills (so a large `--version-cache` costs memory only when used), up to the power of two that holds `capacity`
/// entries (32 bytes a slot: 8.4 MB for the default 200,000).
struct VersionTable {
    private struct Slot {
        var a: UInt64
        var b: UInt64
        /// `Int64.min` marks an empty slot (no stored version is that low).
        var version: Int64
        /// ``VersionCache/valueHash(_:)`` of a clinical value known `unchanged` at `version`; 0 when unknown.
        var valueHash: UInt64
    }

    private static let empty = Slot(a: 0, b: 0, version: .min, valueHash: 0)
    private static let initialSlots = 1024
    private var slots: [Slot] = []
    private let maxSlots: Int
    /// Entries held before the cache must be cleared: `capacity`, or 4/5 of the largest table if that is fewer.
    let limit: Int
    private(set) var count = 0

    init(capacity: Int) {
        var size = 16
        while size / 5 * 4 < capacity && size < 1 << 40 { size *= 2 }
        maxSlots = size
        limit = Swift.min(capacity, size / 5 * 4)
    }

    func version(of key: VersionCache.Key) -> Int64? { bound(of: key)?.version }

    func bound(of key: VersionCache.Key) -> VersionCache.Bound? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: key.a) & mask
        while true {
            let slot = slots[index]
            if slot.version == .min { return nil }
            if slot.a == key.a && slot.b == key.b {
                return VersionCache.Bound(version: slot.version, valueHash: slot.valueHash)
            }
            index = (index + 1) & mask
        }
    }

    /// Sets the key's version to `version` (and its value hash to `valueHash`) unless it already holds a higher one;
    /// at an equal version an unknown value hash becomes known. Clears the table first when it holds ``limit``
    /// entries.
    mutating func raise(_ key: VersionCache.Key, to version: Int64, valueHash: UInt64 = 0) {
        precondition(version > .min, "Int64.min marks an empty slot")
        if count >= limit { removeAll() }
        if (count + 1) * 5 > slots.count * 4 { grow() }
        let mask = slots.count - 1
        var index = Int(truncatingIfNeeded: key.a) & mask
        while true {
            let slot = slots[index]
            if slot.version == .min {
                slots[index] = Slot(a: key.a, b: key.b, version: version, valueHash: valueHash)
                count += 1
                return
            }
            if slot.a == key.a && slot.b == key.b {
                if slot.version < version || (slot.version == version && slot.valueHash == 0) {
                    slots[index].version = version
                    slots[index].valueHash = valueHash
                }
                return
            }
            index = (index + 1) & mask
        }
    }

    mutating func removeAll() {
        guard count > 0 else { return }
        for index in slots.indices { slots[index] = Self.empty }
        count = 0
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Self.empty, count: Swift.min(Swift.max(old.count * 2, Self.initialSlots), maxSlots))
        count = 0
        for slot in old where slot.version != .min {
            raise(VersionCache.Key(a: slot.a, b: slot.b), to: slot.version, valueHash: slot.valueHash)
        }
    }
}
