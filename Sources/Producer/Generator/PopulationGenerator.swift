import Essentials
import Hashing

/// A deterministic, memory-bounded stream of realistic DailyValue events for a synthetic population.
///
/// Days are generated in order; within a day, people are processed in blocks of ``blockSize`` whose events are
/// interleaved at random while each person's own events keep their send order (the Kafka key is the person).
/// Re-deliveries scheduled for later days wait in a small pending queue, so memory grows with the block size and the
/// re-delivery shares, never with the total number of events. Every random draw comes from ``SplitMix64`` generators
/// seeded by the configuration's seed and the coordinates of the draw, so the output is a pure function of the
/// configuration.
public struct PopulationGenerator: Sequence, Sendable {
    /// People per interleaving block.
    public static let blockSize = 2_048
    /// The longest delay, in days, of a late, duplicate or out-of-order re-delivery.
    static let maxDelayDays = 3

    public let configuration: GeneratorConfiguration

    /// - Throws: ``ProducerConfigurationError`` when the configuration is out of range.
    public init(configuration: GeneratorConfiguration) throws(ProducerConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
    }

    public func makeIterator() -> Iterator {
        Iterator(configuration: configuration)
    }

    /// The patient id for a 0-based index: `p-000001` for index 0.
    public static func patientID(_ index: Int) -> String {
        let digits = String(index + 1)
        return "p-" + String(repeating: "0", count: Swift.max(0, 6 - digits.count)) + digits
    }

    // MARK: - Seeding

    /// Mixes the seed with coordinates into an independent generator.
    static func random(_ seed: UInt64, _ parts: UInt64...) -> SplitMix64 {
        var state = SplitMix64(seed: seed)
        var hash = state.next()
        for part in parts {
            var mixer = SplitMix64(seed: hash ^ part)
            hash = mixer.next()
        }
        return SplitMix64(seed: hash)
    }

    /// FNV-1a of a metric key, so a person's traits for a metric do not depend on which metrics are selected.
    static func keyHash(_ key: String) -> UInt64 { FNV1a.hash(key.utf8) }
}
