import FHIRServerStore
import Foundation
import ObservationMapping
import StoreCore
import TestSupport
import Testing

/// A batch of more records than one Bundle holds is split into Bundles that go at once, at most
/// ``FHIRStoreConfiguration/bundlesInFlight`` (`--fhir-bundles-in-flight`), against the FHIR double, which counts the
/// Bundles it answers at the same time. A failing Bundle loses nothing of the others.
@Suite(.timeLimit(.minutes(2)))
struct FHIRBundlesInFlightTests {
    /// 40 distinct identities: patients p-1…p-8, days 1…5.
    static func batch(version: Int64) throws -> [ObservationRecord] {
        try (1...8).flatMap { patient in
            try (1...5).map { try FHIRStoreFaultTests.mapped("p-\(patient)", day: $0, version: version) }
        }
    }

    @Test(arguments: [1, 4])
    func bundlesOfOneBatchGoAtOnceUpToTheBound(inFlight: Int) async throws {
        let double = try await FHIRDouble()
        // Each Bundle is held 300 ms, so Bundles sent one after the other never overlap and parallel ones always do.
        try await double.set(["delay_ms": 300])
        let store = try await FHIRStoreFaultTests.open(double) {
            $0.batchSize = 10
            $0.bundlesInFlight = inFlight
        }
        let batch = try Self.batch(version: 5)
        #expect(try await store.upsert(batch) == Array(repeating: .inserted, count: 40))
        let stats = try await double.stats()
        #expect(stats["bundles"] == 8)  // 4 Bundles of reads, 4 of writes
        #expect(stats["max_bundles_in_flight"] == inFlight, "\(stats)")
        #expect(try await store.allVersions() == Dictionary(uniqueKeysWithValues: batch.map { ($0.identity, 5) }))
        await store.close()
    }

    @Test func aFailingBundleLosesNothingOfTheOthersAndTheRetryConverges() async throws {
        let double = try await FHIRDouble()
        let store = try await FHIRStoreFaultTests.open(double) {
            $0.batchSize = 10
            $0.bundlesInFlight = 4
        }
        let batch = try Self.batch(version: 5)
        try await double.set(["fail": 1, "fail_status": 502])  // one of the four first reads
        let error = await #expect(throws: StoreError.self) { try await store.upsert(batch) }
        #expect(error?.code == .connection && error?.isRetriable == true)
        // The three other Bundles were written; the failed one's ten records were not.
        #expect(try await store.allVersions().count == 30)
        let outcomes = try await store.upsert(batch)
        #expect(outcomes.filter { $0 == .unchanged }.count == 30 && outcomes.filter { $0 == .inserted }.count == 10)
        #expect(try await store.allVersions() == Dictionary(uniqueKeysWithValues: batch.map { ($0.identity, 5) }))
        await store.close()
    }
}
