import Kafka

/// The stages after batch assembly, one way: prepare (decode/map) → write (upsert + dead letters) → store offsets.
///
/// At most one batch is being made durable while the next one is prepared; batches become durable, and store
/// offsets, in order.
struct BatchPipeline: Sendable {
    let preparer: BatchPreparer
    let writer: BatchWriter
    private var inFlight: Task<Void, Never>?

    init(preparer: BatchPreparer, writer: BatchWriter) {
        self.preparer = preparer
        self.writer = writer
    }

    /// True when no batch is being made durable.
    var isIdle: Bool { inFlight == nil }

    /// Prepares `pending` while the previous batch is still in flight, waits for that one to be durable, then
    /// starts making this one durable.
    mutating func submit(_ pending: [KafkaMessage]) async {
        let prepared = await preparer.prepare(pending)
        await inFlight?.value
        let writer = self.writer
        inFlight = Task { await writer.write(prepared) }
    }

    /// Waits until the batch in flight (if any) is durable or abandoned.
    mutating func drain() async {
        await inFlight?.value
        inFlight = nil
    }
}
