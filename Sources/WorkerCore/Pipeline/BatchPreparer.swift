import Kafka
import ObservationUpsert

/// The decode/map stage (pure CPU plus at most one read of stored versions): keeps a batch's records still in their
/// partition's current generation, validates them (``BatchProcessor/decode(_:)``), and maps those whose version the
/// store may not hold yet (known stored versions: the ``VersionCache``, pre-warmed with one read when it pays).
struct BatchPreparer: Sendable {
    /// A batch decoded and mapped, waiting for its turn to be made durable.
    struct Prepared: Sendable {
        /// The batch's records still in their partition's current generation when it was prepared.
        var messages: [KafkaMessage]
        var output: BatchProcessor.Output
    }

    let processor: BatchProcessor
    let tracker: PartitionTracker
    let versionCache: VersionCache
    /// The store's cheap version read, when it has one.
    let versionReader: (any ObservationVersionReader)?
    let prewarm = VersionPrewarm()

    /// Decodes and maps the records of `pending` still in their partition's current generation.
    func prepare(_ pending: [KafkaMessage]) async -> Prepared {
        let messages = tracker.current(pending)
        var output = processor.decode(messages)
        let bounds = await versionBounds(output.decoded)
        processor.map(&output, storedAtLeast: bounds)
        return Prepared(messages: messages, output: output)
    }

    /// The version cache's bounds, pre-warmed first (when it pays, see ``VersionPrewarm``) with one read of the
    /// stored versions of the identities it does not know. A failed read only costs the shortcut.
    private func versionBounds(_ decoded: [BatchProcessor.Decoded]) async -> [VersionCache.Bound?] {
        let keys = decoded.map(\.versionKey)
        let bounds = versionCache.storedAtLeast(keys)
        guard versionCache.isEnabled, let versionReader else { return bounds }
        let unknown = zip(decoded, bounds).compactMap { $1 == nil ? $0.event.identity : nil }
        guard unknown.count * 4 >= decoded.count, prewarm.shouldRead(),
            let stored = try? await versionReader.storedVersions(for: unknown)
        else { return bounds }
        prewarm.observe(found: stored.count, of: unknown.count)
        guard !stored.isEmpty else { return bounds }
        versionCache.record(
            stored.map { identity, held in
                (.init(identity), held.version, held.clinicalValue.map { VersionCache.valueHash($0[...]) } ?? 0)
            })
        return versionCache.storedAtLeast(keys)
    }
}
