import CommandLineOptions
import DailyValueContract
import Essentials
import Foundation
import ObservationMapping
import ObservationStores
import StoreCore

/// `dvp-test-tools race`: one of several concurrent writer processes in the store race tests.
///
/// Identity `i` (of `--identities`) gets versions `1...(top - i % 3)`, where `top` is `--versions`; writer `w` of
/// `--writers` sends the versions `v` with `v % writers == w`, and every writer sends the multiples of 3 (so equal
/// versions race too), shuffled with a per-writer seed, in batches of `--batch`. After all writers finish, every
/// identity must hold its highest version. Retriable store errors are retried (as the worker does); the program
/// prints the outcome totals.
enum RaceWriter {
    static let usage = "race --store S --writer W --writers N --identities K --versions V --batch B"

    static let parser = CommandLineParser(
        [
            .value("--store", "LOCATION", environment: "DVP_STORE", help: "the store"),
            .value("--writer", "W", help: "this writer's number, 0..<N"),
            .value("--writers", "N", help: "how many writers race"),
            .value("--identities", "K", help: "identities written"),
            .value("--versions", "V", help: "the highest version"),
            .value("--batch", "B", help: "records per upsert"),
        ], repeats: .rejected)

    /// The identity of race identity `index` (the tests' oracle mirrors it).
    static func identity(_ index: Int) -> ObservationIdentity {
        ObservationIdentity(
            patient: "race-p\(index / 20)", metric: index % 2 == 0 ? "heart_rate" : "step_count",
            day: String(format: "2026-01-%02d", 1 + (index / 2) % 10))
    }

    /// The required `--store` of a test tool.
    static func storeLocation(_ arguments: ParsedCommandLine) throws -> StoreLocation {
        guard let text = arguments.value("--store") else { throw UsageError(option: "--store", "missing --store") }
        do { return try StoreLocation(parsing: text) } catch let error as StoreError {
            throw UsageError.invalid("--store", error.message)
        }
    }

    /// Runs one writer and returns its exit status.
    static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        let writers = try arguments.requiredInteger("--writers", in: 1...64)
        let writer = try arguments.requiredInteger("--writer", in: 0...(writers - 1))
        let identities = try arguments.requiredInteger("--identities", in: 1...1_000_000)
        let top = try arguments.requiredInteger("--versions", in: 3...1_000_000)
        let batchSize = try arguments.requiredInteger("--batch", in: 1...100_000)
        let location = try storeLocation(arguments)

        var records: [ObservationRecord] = []
        for index in 0..<identities {
            for version in 1...(top - index % 3) where version % writers == writer || version % 3 == 0 {
                records.append(
                    ObservationRecord(
                        identity: identity(index), version: Int64(version), resourceID: "race-\(index)",
                        resourceHead: #"{"resourceType":"Observation","id":"race-\#(index)","meta":{"#,
                        resourceTail: #""source":"writer-\#(writer)"},"valueQuantity":{"value":\#(version)}}"#
                    ))
            }
        }
        var generator = SplitMix64(seed: UInt64(writer + 1))
        records.shuffle(using: &generator)

        var totals: [UpsertOutcome: Int] = [:]
        var retries = 0
        let store = try await makeObservationStore(location)
        do {
            for start in stride(from: 0, to: records.count, by: batchSize) {
                let batch = Array(records[start..<min(start + batchSize, records.count)])
                while true {
                    do {
                        for result in try await store.upsert(batch) {
                            // SQL stores decide every record; a refusal would be a defect of the store.
                            guard let outcome = result.outcome else { throw StoreError(.usage, "refused: \(result)") }
                            totals[outcome, default: 0] += 1
                        }
                        break
                    } catch let error as StoreError where error.isRetriable && retries < 1000 {
                        retries += 1
                        try await Task.sleep(for: .milliseconds(5))
                    }
                }
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        let summary = UpsertOutcome.allCases.map { "\($0.rawValue)=\(totals[$0] ?? 0)" }.joined(separator: " ")
        print("writer \(writer): \(summary) retries=\(retries)")
        return 0
    }
}
