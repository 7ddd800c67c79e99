import DailyValueContract
import Foundation
import Kafka
import ObservationMapping
import ObservationStores
import StoreCore
import Synchronization
import TestSupport
import Testing

@testable import WorkerCore

/// When the worker reads stored versions before a batch's upsert (``VersionPrewarm``), on each SQL store: on an exact
/// replay every read settles its records, so every batch reads; on a load of higher versions every row is stored but
/// older, the read settles nothing (each record is written anyway), so after one read the next 16 batches skip it.
@Suite(.timeLimit(.minutes(2))) struct VersionPrewarmTests {
    static let batches = VersionPrewarm.pauseAfterMiss + 2
    static let perBatch = 10
    static let erasureKey = try! ErasureKey(key: Array("prewarm-test-key-0123456789abcdef".utf8))

    /// The real store's reader, counting its reads.
    final class CountingReader: ObservationVersionReader {
        let reader: any ObservationVersionReader
        let reads = Mutex(0)
        init(_ reader: any ObservationVersionReader) { self.reader = reader }
        func storedVersions(for identities: [ObservationIdentity]) async throws -> [ObservationIdentity: HeldVersion] {
            reads.withLock { $0 += 1 }
            return try await reader.storedVersions(for: identities)
        }
    }

    static func message(batch: Int, index: Int, version: Int64) -> KafkaMessage {
        let event = #"{"schema":1,"patient":"p-\#(batch)-\#(index)","metric":"steps","day":"2026-11-20","#
            + #""utcOffset":"+01:00","value":\#(100 + index),"version":\#(version)}"#
        return KafkaMessage(
            topic: "t", partition: 0, offset: Int64(batch * perBatch + index), key: nil, value: Array(event.utf8),
            headers: [], timestampMs: 1_764_000_000_000, timestampType: .createTime)
    }

    @Test(arguments: SQLStoreKind.allCases)
    func readsOnlyWhileTheyPay(kind: SQLStoreKind) async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-prewarm")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await makeObservationStore(StoreLocation(parsing: try await kind.freshLocation(in: directory)))
        let processor = try BatchProcessor.forTests()
        func decoded(_ batch: Int, version: Int64) -> [BatchProcessor.Decoded] {
            let messages = (0..<Self.perBatch).map { Self.message(batch: batch, index: $0, version: version) }
            let output = processor.decode(messages)
            #expect(output.deadLetters.isEmpty)
            return output.decoded
        }
        // Every identity of every batch stored at version 5.
        for batch in 0..<Self.batches {
            var output = processor.decode((0..<Self.perBatch).map { Self.message(batch: batch, index: $0, version: 5) })
            processor.map(&output, storedAtLeast: Array(repeating: nil, count: Self.perBatch))
            _ = try await store.upsert(output.mapped.map(\.record))
        }
        let storeReader = try #require(store.capabilities.versionReader)
        func preparer(_ reader: CountingReader) -> BatchPreparer {
            BatchPreparer(
                processor: processor, versionCache: VersionCache(capacity: 10_000), versionReader: reader,
                erasure: ErasureCheck(ledger: nil, refusedPersons: ErasureGuard(key: Self.erasureKey)))
        }

        // Exact replay: each read finds every record stored at its version.
        let replayReader = CountingReader(storeReader)
        let replay = preparer(replayReader)
        for batch in 0..<Self.batches {
            let bounds = await replay.versionBounds(decoded(batch, version: 5))
            #expect(bounds.allSatisfy { $0?.version == 5 }, "batch \(batch): every version known from the read")
        }
        #expect(replayReader.reads.withLock { $0 } == Self.batches)

        // Higher versions: the first read settles nothing, the next 16 batches skip it, the one after reads again.
        let higherReader = CountingReader(storeReader)
        let higher = preparer(higherReader)
        for batch in 0..<Self.batches {
            let bounds = await higher.versionBounds(decoded(batch, version: 6))
            #expect(bounds.allSatisfy { ($0?.version ?? 5) == 5 }, "batch \(batch)")
        }
        #expect(higherReader.reads.withLock { $0 } == 2)
        await store.close()
    }
}
