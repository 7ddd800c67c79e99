import Foundation
import ObservationUpsert

/// `storectl _race`: one of several concurrent writer processes in the store race tests.
///
/// Identity `i` (of `--identities`) gets versions `1...(top - i % 3)`, where `top` is `--versions`; writer `w` of
/// `--writers` sends the versions `v` with `v % writers == w`, and every writer sends the multiples of 3 (so equal
/// versions race too), shuffled with a per-writer seed, in batches of
/// `--batch`. After all writers finish, every identity must hold its highest version. Retriable store errors are
/// retried (as the worker does); the program prints the outcome totals.
enum RaceWriter {
    static let usage =
        "_race [--store S] --writer W --writers N --identities K --versions V --batch B"
    static let options: Set<String> = ["store", "writer", "writers", "identities", "versions", "batch"]

    /// The identity and the highest version of race identity `index` (shared with the tests' oracle).
    static func identity(_ index: Int) -> ObservationIdentity {
        ObservationIdentity(
            patient: "race-p\(index / 20)", metric: index % 2 == 0 ? "heart_rate" : "step_count",
            day: String(format: "2026-01-%02d", 1 + (index / 2) % 10))
    }

    @Sendable static func run(_ arguments: Arguments) async throws -> Int32 {
        try arguments.expectPositionals(0, "")
        let writers = try arguments.integer("writers", in: 1...64)
        let writer = try arguments.integer("writer", in: 0...(writers - 1))
        let identities = try arguments.integer("identities", in: 1...1_000_000)
        let top = try arguments.integer("versions", in: 3...1_000_000)
        let batchSize = try arguments.integer("batch", in: 1...100_000)

        var records: [ObservationRecord] = []
        for index in 0..<identities {
            for version in 1...(top - index % 3) where version % writers == writer || version % 3 == 0 {
                records.append(
                    ObservationRecord(
                        identity: identity(index), version: Int64(version), resourceID: "race-\(index)",
                        resource:
                            #"{"resourceType":"Observation","id":"race-\#(index)","#
                            + #""meta":{"source":"writer-\#(writer)"},"valueQuantity":{"value":\#(version)}}"#
                    ))
            }
        }
        var generator = SplitMix64(seed: UInt64(writer + 1))
        records.shuffle(using: &generator)

        var totals: [UpsertOutcome: Int] = [:]
        var retries = 0
        try await StoreCtl.withStore(arguments) { store in
            for start in stride(from: 0, to: records.count, by: batchSize) {
                let batch = Array(records[start..<min(start + batchSize, records.count)])
                while true {
                    do {
                        for outcome in try await store.upsert(batch) { totals[outcome, default: 0] += 1 }
                        break
                    } catch let error as StoreError where error.isRetriable && retries < 1000 {
                        retries += 1
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
        }
        let summary = UpsertOutcome.allCases.map { "\($0.rawValue)=\(totals[$0] ?? 0)" }.joined(separator: " ")
        print("writer \(writer): \(summary) retries=\(retries)")
        return 0
    }
}

/// A small seeded random generator (SplitMix64) so each writer's order is reproducible.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
