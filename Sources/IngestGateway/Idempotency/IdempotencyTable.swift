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

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Kept receipts in the order they were kept (= the order they expire): key and serial.
        var order: [(key: Key, serial: UInt64)] = []
        var orderStart = 0
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
            state.order.append((key, serial))
            state.keptKeys += 1
            state.keptRecords += receipt.count
            var evicted = 0
            while state.keptKeys > maxKeys || state.keptRecords > maxRecords, state.orderStart < state.order.count {
                if Self.dropOldest(&state) { evicted += 1 }
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
        while state.orderStart < state.order.count {
            let (key, serial) = state.order[state.orderStart]
            if case .kept(_, _, let expires, serial)? = state.entries[key], expires > now { break }
            _ = dropOldest(&state)
        }
    }

    /// Drops the oldest entry of the order; true when it still held a kept receipt (not replaced since).
    private static func dropOldest(_ state: inout State) -> Bool {
        let (key, serial) = state.order[state.orderStart]
        state.orderStart += 1
        if state.orderStart > 1024, state.orderStart * 2 > state.order.count {
            state.order.removeFirst(state.orderStart)
            state.orderStart = 0
        }
        guard case .kept(_, let receipt, _, serial)? = state.entries[key] else { return false }
        state.entries[key] = nil
        state.keptKeys -= 1
        state.keptRecords -= receipt.count
        return true
    }
}
