import DailyValueContract
import Foundation
import Kafka
import ObservationMapping
import ObservationStores
import StoreCore
import TestSupport
import Testing

@testable import WorkerCore

/// Retractions through the worker's batch processor into a real store (docs/LIFECYCLE.md): decoded, mapped to the
/// day's record, marked entered-in-error; a redelivered older value does not bring the day back, a newer one does.
/// On each SQL store.
@Suite(.timeLimit(.minutes(2))) struct RetractionPipelineTests {
    static let value = #"{"schema":1,"patient":"p-1","metric":"steps","day":"2026-11-20","utcOffset":"+01:00","#

    @Test(arguments: SQLStoreKind.allCases)
    func aRetractionStaysUntilAHigherVersion(kind: SQLStoreKind) async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-retraction")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await makeObservationStore(StoreLocation(parsing: try await kind.freshLocation(in: directory)))
        let processor = try BatchProcessor.forTests()
        var offset: Int64 = 0
        func run(_ event: String) async throws -> [UpsertResult] {
            offset += 1
            var output = processor.decode([
                KafkaMessage(
                    topic: "t", partition: 0, offset: offset, key: nil, value: Array(event.utf8), headers: [],
                    timestampMs: 1_764_000_000_000, timestampType: .createTime)
            ])
            #expect(output.deadLetters.isEmpty, "\(event)")
            processor.map(&output, storedAtLeast: [nil])
            return try await store.upsert(output.mapped.map(\.record))
        }
        func status() async throws -> String? {
            let stored = try await store.observation(
                for: ObservationIdentity(patient: "p-1", metric: "steps", day: "2026-11-20"))
            let json = try stored.map { try JSONSerialization.jsonObject(with: Data($0.resource.utf8)) }
            return (json as? [String: Any])?["status"] as? String
        }
        let retraction =
            #"{"schema":1,"kind":"retraction","patient":"p-1","metric":"steps","day":"2026-11-20","version":2,"#
            + #""reason":"wrong sample"}"#

        #expect(try await run(Self.value + #""value":5,"version":1,"status":"final"}"#) == [.inserted])
        #expect(try await run(retraction) == [.retracted])
        #expect(try await status() == "entered-in-error")
        #expect(try await run(Self.value + #""value":5,"version":1,"status":"final"}"#) == [.stale])
        #expect(try await run(retraction) == [.unchanged])
        #expect(try await status() == "entered-in-error")
        #expect(try await run(Self.value + #""value":6,"version":3,"status":"final"}"#) == [.updated])
        #expect(try await status() == "final")
        await store.close()
    }
}
