import Essentials

/// The re-deliveries one identity gets besides its original event: a late recomputation, an exact duplicate, an
/// older version sent after the newer one and a retraction, each with a delay in days.
struct RedeliveryPlan {
    /// `(delay in days, emission)`, delay 0 meaning later on the same day.
    var emissions: [(Int, PopulationGenerator.Iterator.Emission)] = []
    /// The highest version among the valid events sent for the identity: what the store must end up with.
    var highestVersion: Int64

    init(base: EventDraft, configuration: GeneratorConfiguration, using random: inout SplitMix64) {
        highestVersion = base.version
        if random.chance(configuration.lateShare) {
            var late = Self.recomputed(base, growth: 1.02...1.25, using: &random)
            late.version = base.version + Int64(random.integer(in: 7_200_000...144_000_000))
            highestVersion = late.version
            emissions.append((random.integer(in: 1...3), .init(draft: late, kind: .late)))
        }
        if random.chance(configuration.duplicateShare) {
            emissions.append((random.integer(in: 0...2), .init(draft: base, kind: .duplicate)))
        }
        if random.chance(configuration.outOfOrderShare) {
            var older = Self.recomputed(base, growth: 0.5...0.9, using: &random)
            older.version = base.version - Int64(random.integer(in: 3_600_000...28_800_000))
            emissions.append((random.integer(in: 0...2), .init(draft: older, kind: .outOfOrder)))
        }
        // Drawn only when asked for, so that output without retractions stays byte-identical to earlier builds.
        if configuration.retractionShare > 0, random.chance(configuration.retractionShare) {
            var retraction = base
            retraction.retractionReason = "withdrawn on the phone"
            retraction.version = highestVersion + Int64(random.integer(in: 60_000...3_600_000))
            highestVersion = retraction.version
            emissions.append((random.integer(in: 1...3), .init(draft: retraction, kind: .retraction)))
        }
    }

    /// The same day computed at another time: cumulative sums scale by `growth`, other values wobble slightly.
    private static func recomputed(
        _ base: EventDraft, growth: ClosedRange<Double>, using random: inout SplitMix64
    ) -> EventDraft {
        var draft = base
        (draft.value, draft.min, draft.max) = recomputed(
            base.profile, base.value, base.min, base.max, growth: growth, using: &random)
        for index in draft.parts.indices {
            let part = draft.parts[index]
            (draft.parts[index].value, draft.parts[index].min, draft.parts[index].max) = recomputed(
                part.profile, part.value, part.min, part.max, growth: growth, using: &random)
        }
        return draft
    }

    private static func recomputed(
        _ profile: MetricProfile, _ value: Double, _ min: Double?, _ max: Double?, growth: ClosedRange<Double>,
        using random: inout SplitMix64
    ) -> (Double, Double?, Double?) {
        let new: Double
        switch profile.shape {
        case .cumulative: new = profile.clamp(value * random.uniform(growth))
        case .single, .meanWithRange: new = profile.clamp(random.normal(mean: value, deviation: profile.noise / 2))
        }
        return (new, min.map { Swift.min($0, new) }, max.map { Swift.max($0, new) })
    }
}
