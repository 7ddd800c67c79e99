import Testing

@testable import WorkerCore

@Suite("Version cache table")
struct VersionTableTests {
    /// Keys whose low bits are all equal: every one lands on the same slot and must be found by probing.
    private func colliding(_ n: Int) -> [VersionCache.Key] {
        (0..<n).map { VersionCache.Key(a: UInt64($0) << 40 | 7, b: UInt64($0)) }
    }

    @Test("Colliding keys are kept apart, each with its highest version")
    func probing() {
        var table = VersionTable(capacity: 100)
        let keys = colliding(50)
        for (i, key) in keys.enumerated() { table.raise(key, to: Int64(i)) }
        for (i, key) in keys.enumerated() { table.raise(key, to: Int64(i) - 1) }  // lower: ignored
        #expect(keys.map { table.version(of: $0) } == (0..<50).map { Int64($0) })
        table.raise(keys[3], to: 99)
        #expect(table.version(of: keys[3]) == 99)
        #expect(table.version(of: VersionCache.Key(a: 7, b: 12_345)) == nil)  // same slot, other key
        #expect(table.count == 50)
    }

    @Test("Keys that differ only in the second half are different identities")
    func secondHalf() {
        var table = VersionTable(capacity: 10)
        table.raise(VersionCache.Key(a: 1, b: 1), to: 5)
        #expect(table.version(of: VersionCache.Key(a: 1, b: 2)) == nil)
        #expect(table.version(of: VersionCache.Key(a: 1, b: 1)) == 5)
    }

    @Test("It grows past its first size and keeps every entry; at its limit it clears and goes on")
    func growthAndLimit() {
        var table = VersionTable(capacity: 5_000)
        let keys = (0..<5_000).map { VersionCache.Key(a: UInt64($0) &* 0x9E37_79B9_7F4A_7C15, b: UInt64($0)) }
        for (i, key) in keys.enumerated() { table.raise(key, to: Int64(i)) }
        #expect(table.count == 5_000)
        #expect(keys.allSatisfy { table.version(of: $0) != nil })
        table.raise(VersionCache.Key(a: 42, b: 42), to: 1)  // one over the limit: cleared first
        #expect(table.count == 1)
        #expect(table.version(of: keys[0]) == nil)
        #expect(table.version(of: VersionCache.Key(a: 42, b: 42)) == 1)
    }

    @Test("Against a dictionary model: random raises, capacities 1 to 5000, cleared when full and used again")
    func matchesAModel() {
        var random = SystemRandomNumberGenerator()
        for capacity in [1, 2, 3, 13, 100, 5_000] {
            var table = VersionTable(capacity: capacity)
            var model: [VersionCache.Key: Int64] = [:]
            for _ in 0..<20_000 {
                let n = UInt64.random(in: 0..<UInt64(capacity * 3), using: &random)
                let key = VersionCache.Key(a: n &* 0x9E37_79B9_7F4A_7C15 & 0xFFFF, b: n)  // some share `a`
                let version = Int64.random(in: 0..<1_000, using: &random)
                if model.count >= capacity { model.removeAll() }  // the table clears before any raise when full
                model[key] = max(model[key] ?? .min, version)
                table.raise(key, to: version)
            }
            #expect(table.count == model.count)
            #expect(model.allSatisfy { table.version(of: $0.key) == $0.value })
        }
    }

    @Test("A capacity above 4/5 of a power of two still fits (the table is sized for it)")
    func limitOfOddCapacity() {
        #expect(VersionTable(capacity: 200_000).limit == 200_000)  // 262,144 slots: 209,712 at 4/5
        #expect(VersionTable(capacity: 210_000).limit == 210_000)  // needs the next size
        #expect(VersionTable(capacity: 3).limit == 3)
    }
}
