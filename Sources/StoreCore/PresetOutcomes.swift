import ObservationMapping

/// Runs a store's decision on the records that get no outcome beforehand (erased persons, expired days).
package enum PresetOutcomes {
    /// `preset[i]` when set, else the outcome `decide` gives record `i`; `decide` sees only the others, in order
    /// (the whole batch when `preset` is nil).
    package static func merge(
        _ batch: [ObservationRecord], preset: [UpsertOutcome?]?,
        decide: ([ObservationRecord]) throws -> [UpsertOutcome]
    ) rethrows -> [UpsertOutcome] {
        guard let preset else { return try decide(batch) }
        let open = batch.indices.filter { preset[$0] == nil }
        guard open.count < batch.count else { return try decide(batch) }
        var merged = preset
        let decided = open.isEmpty ? [] : try decide(open.map { batch[$0] })
        for (index, outcome) in zip(open, decided) { merged[index] = outcome }
        return merged.map { $0! }
    }

    /// The preset of an erasure mask (``ErasureGuard/refusedMask(_:generation:load:)``): `erased` where refused.
    package static func erased(_ mask: [Bool]?) -> [UpsertOutcome?]? {
        mask.map { $0.map { $0 ? .erased : nil } }
    }
}
