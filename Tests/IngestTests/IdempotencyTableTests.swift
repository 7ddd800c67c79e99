import IngestAuth
import Testing

@testable import IngestGateway

/// The `Idempotency-Key` table on its own: in flight → 409, another body → 422, answered → the same receipt within
/// the TTL, nothing kept for a request that did not end in 202, and memory bounded by keys and by records (the
/// oldest go first).
@Suite struct IdempotencyTableTests {
    static func receipt(_ count: Int) -> IngestReceipt {
        IngestReceipt(topic: "t", partitions: Array(repeating: 1, count: count), offsets: (0..<count).map(Int64.init))
    }

    static func key(_ name: String, tenant: String = "a") -> IdempotencyTable.Key {
        IdempotencyTable.Key(scope: IngestScope(tenant: tenant, patientPrefix: ""), key: name)
    }

    /// What `start` decided, as a word (and the receipt of a replay).
    static func start(
        _ table: IdempotencyTable, _ key: String, _ fingerprint: UInt8, tenant: String = "a",
        now: ContinuousClock.Instant = .now
    ) -> (String, IngestReceipt?) {
        switch table.start(Self.key(key, tenant: tenant), fingerprint: [fingerprint], now: now) {
        case .fresh: ("fresh", nil)
        case .inFlight: ("in-flight", nil)
        case .differentBody: ("different-body", nil)
        case .replay(let receipt): ("replay", receipt)
        }
    }

    @Test func lifecycle() {
        let table = IdempotencyTable(ttl: .seconds(60), maxKeys: 10, maxRecords: 100)
        let now = ContinuousClock.now
        #expect(Self.start(table, "k", 1, now: now).0 == "fresh")
        #expect(Self.start(table, "k", 1, now: now).0 == "in-flight")
        #expect(Self.start(table, "k", 2, now: now).0 == "different-body")
        #expect(Self.start(table, "k", 1, tenant: "b", now: now).0 == "fresh", "another tenant's key")
        table.complete(Self.key("k"), fingerprint: [1], receipt: Self.receipt(3), now: now)
        let replay = Self.start(table, "k", 1, now: now + .seconds(59))
        #expect(replay.0 == "replay" && replay.1 == Self.receipt(3))
        #expect(Self.start(table, "k", 2, now: now + .seconds(59)).0 == "different-body")
        #expect(Self.start(table, "k", 1, now: now + .seconds(61)).0 == "fresh", "expired after the TTL")
        table.abandon(Self.key("k"))
        #expect(Self.start(table, "k", 2, now: now + .seconds(61)).0 == "fresh", "an abandoned request leaves no trace")
    }

    @Test func boundedByKeysAndRecords() {
        let table = IdempotencyTable(ttl: .seconds(3600), maxKeys: 3, maxRecords: 10)
        var evicted = 0
        for index in 0..<5 {
            #expect(Self.start(table, "k\(index)", UInt8(index)).0 == "fresh")
            evicted += table.complete(Self.key("k\(index)"), fingerprint: [UInt8(index)], receipt: Self.receipt(2))
        }
        #expect(table.kept.keys == 3 && evicted == 2, "the oldest two went")
        #expect(Self.start(table, "k0", 0).0 == "fresh", "k0 was evicted")
        #expect(Self.start(table, "k4", 4).0 == "replay", "k4 is kept")
        evicted = table.complete(Self.key("k0"), fingerprint: [0], receipt: Self.receipt(9))
        #expect(table.kept.records <= 10 && table.kept.keys == 1, "9 + 2 records pass 10: only the newest stays")
        #expect(evicted == 3)
        table.complete(Self.key("big"), fingerprint: [9], receipt: Self.receipt(11))
        #expect(Self.start(table, "big", 9).0 == "fresh", "a receipt over the record bound is not kept")
    }

    @Test(
        "One tenant flooding keys drops its own receipts, never those of a tenant holding fewer; alone it may use all")
    func tenantsShareTheBounds() {
        let table = IdempotencyTable(ttl: .seconds(600), maxKeys: 10, maxRecords: 1_000)
        let now = ContinuousClock.now
        func keep(_ name: String, tenant: String, records: Int = 1) -> Int {
            _ = Self.start(table, name, 1, tenant: tenant, now: now)
            return table.complete(
                Self.key(name, tenant: tenant), fingerprint: [1], receipt: Self.receipt(records), now: now)
        }
        // Alone, a tenant uses every slot.
        for n in 0..<10 { #expect(keep("a\(n)", tenant: "a") == 0) }
        // Another tenant arrives: the bigger one gives way, one receipt per new key.
        for n in 0..<4 { #expect(keep("b\(n)", tenant: "b") == 1) }
        #expect((0..<4).allSatisfy { Self.start(table, "a\($0)", 1, tenant: "a", now: now).0 == "fresh" })
        #expect((4..<10).allSatisfy { Self.start(table, "a\($0)", 1, tenant: "a", now: now).0 == "replay" })
        // b floods: a gives way down to an even split (5 each), then b drops its own oldest receipts, never a's.
        for n in 4..<100 { #expect(keep("b\(n)", tenant: "b") == 1) }
        #expect(Self.start(table, "a4", 1, tenant: "a", now: now).0 == "fresh")
        #expect((5..<10).allSatisfy { Self.start(table, "a\($0)", 1, tenant: "a", now: now).0 == "replay" })
        #expect(table.kept.keys == 10)
        #expect((95..<100).allSatisfy { Self.start(table, "b\($0)", 1, tenant: "b", now: now).0 == "replay" })
        #expect(Self.start(table, "b94", 1, tenant: "b", now: now).0 == "fresh")
        // The record bound the same way: a tenant holding the most records gives way first.
        let records = IdempotencyTable(ttl: .seconds(600), maxKeys: 100, maxRecords: 100)
        _ = Self.start(records, "small", 1, tenant: "c", now: now)
        records.complete(Self.key("small", tenant: "c"), fingerprint: [1], receipt: Self.receipt(10), now: now)
        for n in 0..<20 {
            _ = Self.start(records, "big\(n)", 1, tenant: "d", now: now)
            records.complete(Self.key("big\(n)", tenant: "d"), fingerprint: [1], receipt: Self.receipt(30), now: now)
        }
        #expect(Self.start(records, "small", 1, tenant: "c", now: now).0 == "replay", "c's receipt survives d's flood")
        #expect(records.kept.records <= 100)
    }
}
