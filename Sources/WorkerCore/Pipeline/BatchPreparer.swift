import DailyValueContract
import Kafka
import StoreCore

/// The decode/map stage (pure CPU plus at most one read of stored versions): validates a batch's records
/// (``BatchProcessor/decode(_:)``), maps those whose version the store may not hold yet (known stored versions:
/// the ``VersionCache``, pre-warmed with one read when it pays, see ``VersionPrewarm``) and compresses their stored
/// documents.
struct BatchPreparer: Sendable {
    /// A batch decoded and mapped, waiting for its turn to be made durable. It carries its fence: the partitions
    /// and offsets the consumer stores once the batch is durable.
    struct Prepared: Sendable {
        var fence: KafkaBatchFence
        var output: BatchProcessor.Output

        /// Drops the partitions revoked while the batch waited (already released from `fence` by the consumer).
        mutating func remove(partitions: Set<KafkaTopicPartition>) {
            output.remove(partitions: partitions)
        }
    }

    let processor: BatchProcessor
    let versionCache: VersionCache
    /// The store's cheap version read, when it has one.
    let versionReader: (any ObservationVersionReader)?
    let prewarm = VersionPrewarm()
    /// The store's erasure ledger: a refused person's records are never answered by the cache (the store decides
    /// them `erased`).
    let erasure: ErasureCheck
    /// The store's document encoder, when it keeps compressed documents: a batch's are made here, beside the
    /// writes of the batches before it, instead of on the store's serial connection path.
    var documentEncoder: StoredDocumentEncoder? = nil

    /// Decodes and maps the records of `batch`.
    func prepare(_ batch: KafkaBatch) async -> Prepared {
        var output = processor.decode(batch.messages)
        let bounds = await withoutRefusedPersons(output.decoded, await versionBounds(output.decoded))
        processor.map(&output, storedAtLeast: bounds)
        documentEncoder?.encode(&output.mapped, at: \.record)
        return Prepared(fence: batch.fence, output: output)
    }

    /// `bounds` without those of persons the erasure ledger refuses; none at all when the ledger cannot be read (every
    /// record then goes to the store, which decides).
    private func withoutRefusedPersons(
        _ decoded: [BatchProcessor.Decoded], _ bounds: [VersionCache.Bound?]
    ) async -> [VersionCache.Bound?] {
        guard bounds.contains(where: { $0 != nil }) else { return bounds }
        do {
            let refused = try await erasure.refused(count: decoded.count) { decoded[$0].event.identity.patient }
            guard let refused else { return bounds }
            return zip(bounds, refused).map { $1 ? nil : $0 }
        } catch {
            return [VersionCache.Bound?](repeating: nil, count: bounds.count)
        }
    }

    /// The version cache's bounds, pre-warmed first (when it pays, see ``VersionPrewarm``) with one read of the
    /// stored versions of the identities it does not know. A failed read only costs the shortcut.
    func versionBounds(_ decoded: [BatchProcessor.Decoded]) async -> [VersionCache.Bound?] {
        let keys = decoded.map(\.versionKey)
        let bounds = versionCache.storedAtLeast(keys)
        guard versionCache.isEnabled, let versionReader else { return bounds }
        let unknownIndices = bounds.indices.filter { bounds[$0] == nil }
        let unknown = unknownIndices.map { decoded[$0].event.identity }
        guard unknown.count * 4 >= decoded.count, prewarm.shouldRead(),
            let stored = try? await versionReader.storedVersions(for: unknown)
        else { return bounds }
        let settled = unknownIndices.count { index in
            (stored[decoded[index].event.identity]?.version ?? .min) >= decoded[index].version
        }
        prewarm.observe(settled: settled, of: unknown.count)
        guard !stored.isEmpty else { return bounds }
        versionCache.record(
            stored.map { identity, held in
                (.init(identity), held.version, held.clinicalDigest.map { VersionCache.valueHash($0[...]) } ?? 0)
            })
        return versionCache.storedAtLeast(keys)
    }
}
