import DailyValueContract
import Kafka
import StoreCore

/// The store's erasure ledger as the worker reads it outside a batch's transaction (docs/PRIVACY.md), for the two
/// decisions the worker makes before the store sees a record:
/// - the version cache answers no record of a refused person: the store must see it, to decide it `erased`;
/// - no invalid record of a refused person is dead-lettered: it is dropped and counted, its content kept nowhere.
///
/// The store stays the authority for what is written (it checks the ledger under its lock); a record checked here
/// just before an erasure is at worst sent to the store, which refuses it.
struct ErasureCheck: Sendable {
    /// The store's ledger; nil when the store keeps none.
    let ledger: (any ObservationErasing)?
    /// The refused set per ledger generation, with the worker's key.
    let refusedPersons: ErasureGuard

    /// For each of `count` persons (`person(i)`, read only when the ledger refuses anyone), whether the ledger
    /// refuses them; nil when it refuses none of them.
    /// - Throws: ``StoreError`` when the ledger cannot be read or was written under another key.
    func refused(count: Int, person: (Int) -> String) async throws -> [Bool]? {
        guard let ledger, count > 0 else { return nil }
        let generation = try await ledger.ledgerGeneration()
        let load = { try await ledger.refusedPseudonyms() }
        guard try await refusedPersons.refusesAnyone(generation: generation, load: load) else { return nil }
        return try await refusedPersons.refusedMask((0..<count).map(person), generation: generation, load: load)
    }

    /// For each of `messages`, whether a person it names (payload `patient` or key) is refused; nil when none is.
    func refused(_ messages: [KafkaMessage]) async throws -> [Bool]? {
        guard ledger != nil, !messages.isEmpty else { return nil }
        let candidates = messages.map { EventPerson.candidates(payload: $0.value, key: $0.key) }
        let names = candidates.flatMap { $0 }
        guard let mask = try await refused(count: names.count, person: { names[$0] }) else { return nil }
        var position = 0
        return candidates.map { names in
            defer { position += names.count }
            return mask[position..<position + names.count].contains(true)
        }
    }
}
