import IngestAuth
import Synchronization

/// The requests with an `Idempotency-Key`, per credential scope: those in flight, and the receipts of those answered
/// 202 (kept for a TTL, within a bound on keys and on records, the oldest dropped first).
///
/// The same key and body: while the first is in flight → 409; after its 202, within the TTL → the same receipt,
/// nothing published again. The same key with another body → 422. A request that did not end in 202 leaves no
/// trace: its retry runs anew.
///
/// A key space is a whole scope — tenant *and* patient-id prefix — not a tenant: two credentials of one tenant with
/// different prefixes (two backends of a clinic) never see each other's receipts, nor learn through a 409 or a 422
/// which keys the other used. Credentials with the same scope share one space, so a retry still replays after its
/// backend moved to a rotated key of that scope.
///
/// The bounds are shared fairly between tenants: to make room, the receipt dropped is the oldest of the tenant that
/// holds the most (keys, or records for the record bound; on a tie, the tenant making room), so a tenant sending many
/// keys drops its own receipts once it holds its even share, never those of a tenant holding fewer. One tenant alone
/// may use every slot.
final class IdempotencyTable: Sendable {
    /// A key as one scope sent it (scopes never see each other's keys).
    struct Key: Hashable, Sendable {
        var scope: IngestScope
        var key: String
    }

    /// What a request with a key does.
    enum Start: Sendable {
        /// Go on; ``complete(_:fingerprint:receipt:)`` or ``abandon(_:)`` ends the reservation.
        case fresh
        /// The same key and body is in flight: 409.
        case inFlight
        /// The key was used with another body: 422.
        case differentBody
        /// Answered before: this receipt again.
        case replay(IngestReceipt)
    }

    private enum Entry {
        case inFlight(fingerprint: [UInt8])
        case kept(fingerprint: [UInt8], receipt: IngestReceipt, expires: ContinuousClock.Instant, serial: UInt64)
    }

    /// Kept receipts in the order they were kept: key and serial (an entry replaced since is skipped).
    private struct Queue {
        var items: [(key: Key, serial: UInt64)] = []
        var start = 0

        var isEmpty: Bool { start >= items.count }

        mutating func popFirst() -> (key: Key, serial: UInt64)? {
            guard start < items.count else { return nil }
            defer {
                start += 1
                if start > 1024, start * 2 > items.count {
                    items.removeFirst(start)
                    start = 0
                }
            }
            return items[start]
        }

        func first() -> (key: Key, serial: UInt64)? { start < items.count ? items[start] : nil }
    }

    /// What one tenant holds of the kept receipts.
    private struct Share {
        var order = Queue()
        var keys = 0
        var records = 0
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Every kept receipt, in the order they were kept (= the order they expire).
        var order = Queue()
        /// Each tenant's kept receipts, in the same order.
        var tenants: [String: Share] = [:]
        var nextSerial: UInt64 = 0
        var keptKeys = 0
        var keptRecords = 0
    }

    private let ttl: Duration
    private let maxKeys: Int
    private let maxRecords: Int
    private let state = Mutex(State())

    init(ttl: Duration, maxKeys: Int, maxRecords: Int) {
        self.ttl = ttl
        self.maxKeys = maxKeys
        self.maxRecords = maxRecords
    }

    /// Starts a request with `key` whose body has `fingerprint`.
    func start(_ key: Key, fingerprint: [UInt8], now: ContinuousClock.Instant = .now) -> Start {
        state.withLock { state in
            Self.expire(&state, now: now)
            switch state.entries[key] {
            case nil:
                state.entries[key] = .inFlight(fingerprint: fingerprint)
                return .fresh
            case .inFlight(let other)?:
                return other == fingerprint ? .inFlight : .differentBody
            case .kept(let other, let receipt, _, _)?:
                return other == fingerprint ? .replay(receipt) : .differentBody
            }
        }
    }

    /// Keeps the receipt of a request that was answered 202.
    /// - Returns: how many older receipts were dropped before their TTL to make room.
    @discardableResult
    func complete(_ key: Key, fingerprint: [UInt8], receipt: IngestReceipt, now: ContinuousClock.Instant = .now)
        -> Int
    {
        state.withLock { state in
            guard receipt.count <= maxRecords, maxKeys > 0 else {
                state.entries[key] = nil
                return 0
            }
            let serial = state.nextSerial
            state.nextSerial += 1
            state.entries[key] = .kept(fingerprint: fingerprint, receipt: receipt, expires: now + ttl, serial: serial)
            state.order.items.append((key, serial))
            state.tenants[key.scope.tenant, default: Share()].order.items.append((key, serial))
            Self.count(&state, key, keys: 1, records: receipt.count)
            var evicted = 0
            while state.keptKeys > maxKeys || state.keptRecords > maxRecords {
                // The tenant holding the most of what is over its bound gives up its oldest receipt; on a tie, the
                // tenant of the receipt just kept.
                let byRecords = state.keptKeys <= maxKeys
                let held = { (share: Share) in byRecords ? share.records : share.keys }
                guard let most = state.tenants.values.map(held).max() else { break }
                let own = key.scope.tenant
                let tenant =
                    state.tenants[own].map(held) == most ? own : state.tenants.first { held($0.value) == most }!.key
                if Self.dropOldest(&state, of: tenant) { evicted += 1 }
            }
            return evicted
        }
    }

    /// Forgets a request that did not end in 202.
    func abandon(_ key: Key) {
        state.withLock { state in
            if case .inFlight? = state.entries[key] { state.entries[key] = nil }
        }
    }

    /// Kept receipts and the records in them.
    var kept: (keys: Int, records: Int) {
        state.withLock { ($0.keptKeys, $0.keptRecords) }
    }

    // MARK: - Expiry

    /// Drops the receipts past their TTL (they are at the front of the order).
    private static func expire(_ state: inout State, now: ContinuousClock.Instant) {
        while let (key, serial) = state.order.first() {
            if case .kept(_, _, let expires, serial)? = state.entries[key], expires > now { break }
            _ = state.order.popFirst()
            drop(&state, key, serial: serial)
        }
    }

    /// Drops the oldest receipt `tenant` still holds; true when one was dropped.
    private static func dropOldest(_ state: inout State, of tenant: String) -> Bool {
        while let (key, serial) = state.tenants[tenant]?.order.popFirst() {
            if drop(&state, key, serial: serial) { return true }
        }
        state.tenants[tenant] = nil
        return false
    }

    /// Drops the receipt of `key` if it is still the one kept with `serial`; true when it was.
    @discardableResult
    private static func drop(_ state: inout State, _ key: Key, serial: UInt64) -> Bool {
        guard case .kept(_, let receipt, _, serial)? = state.entries[key] else { return false }
        state.entries[key] = nil
        count(&state, key, keys: -1, records: -receipt.count)
        return true
    }

    /// Adds to the counts of every tenant and of `key`'s; a tenant that holds nothing any more is forgotten.
    private static func count(_ state: inout State, _ key: Key, keys: Int, records: Int) {
        state.keptKeys += keys
        state.keptRecords += records
        let tenant = key.scope.tenant
        state.tenants[tenant, default: Share()].keys += keys
        state.tenants[tenant, default: Share()].records += records
        if state.tenants[tenant]?.keys == 0 { state.tenants[tenant] = nil }
    }
}
