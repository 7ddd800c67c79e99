import StoreCore
import TestSupport
import Testing

/// `dvp-test-tools upsert-bench` (a throughput tool, kept out of the shipped `storectl`) runs its three passes
/// through the real store: every record inserted, then replaced, then found unchanged.
@Suite(.timeLimit(.minutes(2)))
struct UpsertBenchToolTests {
    @Test(arguments: StoreKind.databases)
    func threePassesThroughTheStore(kind: StoreKind) async throws {
        try await TestStores.withFreshLocation(kind) { location in
            let result = try await ChildProcess.testTools(
                ["upsert-bench", "--store", StoreRaceTests.text(location), "--records", "300", "--batch", "100"])
            let labels = result.standardOutput.split(separator: "\n").map { $0.prefix { $0 != ":" } }
            #expect(labels == ["insert", "update", "unchanged"], "\(result.standardOutput)")

            let store = try await TestStores.open(location)
            let counts = try await store.outcomeCounts()
            await store.close()
            let totals = Dictionary(counts.map { ($0.outcome, $0.count) }, uniquingKeysWith: +)
            #expect(totals == [.inserted: 300, .updated: 300, .unchanged: 300])
        }
    }
}
