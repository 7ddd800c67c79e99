import CommandLineOptions
import DailyValueContract
import Foundation
import ObservationMapping
import ObservationStores
import StoreCore

/// `dvp-test-tools upsert-bench`: upsert throughput of a store for new rows, replaces (higher versions) and
/// duplicates, straight through the store API (no Kafka, no mapping).
enum UpsertBench {
    static let usage = "upsert-bench --store S --records N --batch B"
    static let parser = CommandLineParser(
        [
            .value("--store", "S", help: "the store: a SQLite path or a postgresql:// URL"),
            .value("--records", "N", help: "records per pass"),
            .value("--batch", "B", help: "records per upsert"),
        ], repeats: .rejected)

    /// Runs the three passes and returns the exit status.
    static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        let location = try RaceWriter.storeLocation(arguments)
        let count = try arguments.requiredInteger("--records", in: 1...10_000_000)
        let batchSize = try arguments.requiredInteger("--batch", in: 1...100_000)
        let run = String(UUID().uuidString.prefix(8))
        func records(version: Int64) -> [ObservationRecord] { Self.records(count: count, version: version, prefix: run) }
        let store = try await makeObservationStore(location)
        do {
            for (label, version) in [("insert", Int64(1)), ("update", 2), ("unchanged", 2)] {
                let all = records(version: version)
                let start = ContinuousClock.now
                for offset in stride(from: 0, to: all.count, by: batchSize) {
                    _ = try await store.upsert(Array(all[offset..<min(offset + batchSize, all.count)]))
                }
                let seconds = (ContinuousClock.now - start) / .seconds(1)
                print(
                    "\(label): \(count) records in \(String(format: "%.2f", seconds)) s"
                        + " = \(Int(Double(count) / seconds)) records/s"
                )
            }
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        return 0
    }

    /// `count` small Observations of patients `bench-PREFIX-…` (ids `PREFIX-N`), all at `version`.
    static func records(count: Int, version: Int64, prefix: String) -> [ObservationRecord] {
        (0..<count).map { index in
            let identity = ObservationIdentity(
                patient: "bench-\(prefix)-\(index / 100)", metric: "heart_rate",
                day: String(format: "2026-%02d-%02d", 1 + (index % 100) / 28, 1 + index % 28))
            let id = "\(prefix)-\(index)".lowercased()
            return ObservationRecord(
                identity: identity, version: version, resourceID: id,
                resourceHead: #"{"resourceType":"Observation","id":"\#(id)","meta":{"#,
                resourceTail: #""source":"bench"},"status":"final","valueQuantity":{"value":\#(60 + index % 40),"#
                    + #""unit":"/min","system":"http://unitsofmeasure.org","code":"/min"}}"#
            )
        }
    }
}
