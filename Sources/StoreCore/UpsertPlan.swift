import DailyValueContract
import ObservationMapping

/// The within-batch half of the upsert contract, shared by every store.
///
/// Per identity the record with the highest version wins (the first one on ties); only winners reach the database.
/// Every other record of that identity is compared with the version the identity holds after the batch: equal →
/// `unchanged` (or `conflict` when its clinical value differs from the one held), lower → `stale`. Winners are
/// ordered by identity so that concurrent writers lock rows in one order.
package struct UpsertPlan {
    /// Batch indices of the winning records, sorted by identity.
    package let winners: [Int]
    /// For a winning retraction, the batch index of its identity's highest value in the batch (the first on ties):
    /// the store writes it before the retraction, so that the result does not depend on how events fall into
    /// batches (a retraction after a value in its own batch marks the stored day, as it would one batch later).
    package let valuesBeneath: [Int: Int]
    /// For every batch index, the batch index of its identity's winner.
    private let winnerOf: [Int]

    package init(_ batch: [ObservationRecord]) {
        // One hash of each identity: it names a group; the rest is array indexing.
        var groupOfIdentity: [ObservationIdentity: Int] = [:]
        groupOfIdentity.reserveCapacity(batch.count)
        var groupOf: [Int] = []
        groupOf.reserveCapacity(batch.count)
        var winnerOfGroup: [Int] = []
        var valueOfGroup: [Int?] = []
        // Each record's identity read once (each read of `record.identity` copies three strings).
        let identities = batch.map(\.identity)
        for (index, record) in batch.enumerated() {
            let next = winnerOfGroup.count
            let group = Self.group(of: identities[index], in: &groupOfIdentity, next: next)
            groupOf.append(group)
            let isValue = record.retractionReason == nil
            if group == next {
                winnerOfGroup.append(index)
                valueOfGroup.append(isValue ? index : nil)
                continue
            }
            if isValue, valueOfGroup[group].map({ batch[$0].version < record.version }) ?? true {
                valueOfGroup[group] = index
            }
            if batch[winnerOfGroup[group]].version < record.version { winnerOfGroup[group] = index }
        }
        winners = winnerOfGroup.sorted { identities[$0] < identities[$1] }
        winnerOf = groupOf.map { winnerOfGroup[$0] }
        var beneath: [Int: Int] = [:]
        for group in winnerOfGroup.indices where batch[winnerOfGroup[group]].retractionReason != nil {
            // Only a lower value lies beneath: one of the retraction's own version lost the tie to it (it came
            // later), and written first it would make the retraction `unchanged` (one by one it is `unchanged`).
            let retraction = winnerOfGroup[group]
            if let value = valueOfGroup[group], batch[value].version < batch[retraction].version {
                beneath[retraction] = value
            }
        }
        valuesBeneath = beneath
    }

    /// The group number of `identity`, `next` (and recorded) when it has none yet: one hash lookup either way.
    private static func group(
        of identity: ObservationIdentity, in groups: inout [ObservationIdentity: Int], next: Int
    ) -> Int {
        func read(_ slot: inout Int) -> Int { slot }
        return read(&groups[identity, default: next])
    }

    /// The batch index of the winner of `index`'s identity.
    package func winner(of index: Int) -> Int { winnerOf[index] }

    /// One outcome per batch record, given the database's outcome for every winner (and value beneath one), and
    /// for each winner whose version a stored value held (`unchanged` or `conflict`), that value's digest.
    ///
    /// A record of its winner's version is compared with the value the day holds at that version after the batch:
    /// the stored one, else the winner's own (written) — a different value is a `conflict`, the first stored wins.
    package func outcomes(
        for batch: [ObservationRecord], winnerOutcomes: [Int: UpsertOutcome], heldValues: [Int: [UInt8]] = [:]
    ) -> [UpsertOutcome] {
        batch.indices.map { index in
            if let own = winnerOutcomes[index] { return own }
            let winner = winnerOf[index]
            guard let winnerOutcome = winnerOutcomes[winner] else {
                preconditionFailure("no database outcome for winner \(batch[winner].identity)")
            }
            if winner == index { return winnerOutcome }
            // A stale winner means the stored version is above every record of this identity in the batch.
            if winnerOutcome == .stale || batch[index].version != batch[winner].version { return .stale }
            if let held = heldValues[winner] { return Self.equalVersion(batch[index], held: held[...]) }
            let written = winnerOutcome == .inserted || winnerOutcome == .updated
            return Self.equalVersion(batch[index], held: written ? batch[winner].clinicalDigest[...] : nil)
        }
    }

    /// The outcome of `record` against a day that holds its version: `conflict` when a value holds it (`held`) and
    /// the record is a value with a different clinical value, else `unchanged` (a retraction of an equal version, or a
    /// value against a retraction's version, is `unchanged` as before: docs/LIFECYCLE.md).
    package static func equalVersion(_ record: ObservationRecord, held: ArraySlice<UInt8>?) -> UpsertOutcome {
        guard record.retractionReason == nil, let held, !held.elementsEqual(record.clinicalDigest) else {
            return .unchanged
        }
        return .conflict
    }

    /// Outcome totals per metric for the counters table, sorted by metric and outcome (a stable lock order).
    package static func counts(of batch: [ObservationRecord], outcomes: [UpsertOutcome]) -> [MetricOutcomeCount] {
        var totals: [MetricOutcomeKey: Int64] = [:]
        for (record, outcome) in zip(batch, outcomes) {
            totals[MetricOutcomeKey(metric: record.identity.metric, outcome: outcome), default: 0] += 1
        }
        return totals.map { MetricOutcomeCount(metric: $0.key.metric, outcome: $0.key.outcome, count: $0.value) }
            .sorted { ($0.metric, $0.outcome.rawValue) < ($1.metric, $1.outcome.rawValue) }
    }

    private struct MetricOutcomeKey: Hashable {
        package var metric: String
        package var outcome: UpsertOutcome
    }
}
