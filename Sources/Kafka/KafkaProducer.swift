import Essentials
import Synchronization

/// A Kafka producer whose `send` returns after the broker acknowledged the record (the delivery report).
///
/// A dedicated poll thread serves delivery reports (`rd_kafka_poll`). All methods are thread-safe. Do not call
/// methods after ``close(timeout:)``; they throw a ``KafkaError/Kind/state`` error.
public final class KafkaProducer: Sendable {
    private let client: RDKafkaClient
    private let deliveries: RDKafkaDeliveryRegistry
    private let poller: RDKafkaPollThread
    private let closed = Mutex(false)

    /// Creates the producer; every configuration error is thrown before the client exists.
    /// - Parameters:
    ///   - errorHandler: client-level errors (`error_cb`, on the poll thread), e.g. brokers down or a fatal
    ///     idempotence error (``KafkaError/isFatal``: recreate the producer). `nil` lets librdkafka log them.
    ///   - logHandler: librdkafka log lines (from librdkafka's threads; keep it quick). `nil` writes them to stderr
    ///     in librdkafka's format, `CONFWARN` values removed.
    /// - Throws: ``KafkaError`` of kind ``KafkaError/Kind/configuration`` naming the property.
    public init(
        configuration: KafkaProducerConfiguration,
        errorHandler: (@Sendable (KafkaError) -> Void)? = nil,
        logHandler: (@Sendable (KafkaLogEntry) -> Void)? = nil
    ) throws(KafkaError) {
        let deliveries = RDKafkaDeliveryRegistry(errorHandler: errorHandler, logHandler: logHandler)
        let client = try RDKafkaClient(
            kind: .producer, properties: configuration.properties(), context: deliveries
        ) { conf in
            RDKafkaClient.installProducerCallbacks(on: conf, errors: errorHandler != nil)
        }
        self.client = client
        self.deliveries = deliveries
        self.poller = RDKafkaPollThread(name: "kafka-producer-poll") { client.poll(timeoutMs: 100) }
    }

    deinit {
        poller.stop(timeout: .seconds(5))
    }

    // MARK: - Sending

    /// Sends one record and waits for the broker's delivery report. A full local queue is waited out (never
    /// dropped). Cancelling the task does not withdraw the record.
    /// - Returns: where the record was written.
    /// - Throws: ``KafkaError`` for a failed delivery (e.g. ``KafkaError/Kind/messageTimedOut`` after
    ///   `message.timeout.ms`, with ``KafkaError/persistenceStatus``) or when the record cannot be queued.
    public func send(_ message: KafkaOutgoingMessage) async throws(KafkaError) -> KafkaDeliveryReport {
        let id = try await enqueue(message)
        return try await deliveries.outcome(of: id).get()
    }

    /// Enqueues every record first (waiting out a full queue), then awaits every delivery report.
    /// - Returns: one result per record, in the order given.
    public func send(_ messages: [KafkaOutgoingMessage]) async -> [Result<KafkaDeliveryReport, KafkaError>] {
        await enqueueEach(messages.count) { index, id in client.produce(messages[index], msgOpaque: id) }
    }

    /// Enqueues every record at once, never waiting, and calls `completion` once with one result per record, in the
    /// order given, when the last delivery report arrived: for callers that must not wait on a thread or a task
    /// (an HTTP server answering later). A full local queue is not waited out: that record fails with
    /// ``KafkaError/Code/queueFull``. `completion` runs on the producer's poll thread (keep it quick), or on the
    /// caller's thread before this returns when no record could be enqueued.
    public func send(
        _ messages: [KafkaOutgoingMessage],
        completion: @escaping @Sendable ([Result<KafkaDeliveryReport, KafkaError>]) -> Void
    ) {
        enqueueAll(messages.count, completion: completion) { index, id in
            client.produce(messages[index], msgOpaque: id)
        }
    }

    /// ``send(_:completion:)`` for a batch whose records share their buffers (``KafkaRecordBatch``).
    public func send(
        _ batch: KafkaRecordBatch, completion: @escaping @Sendable ([Result<KafkaDeliveryReport, KafkaError>]) -> Void
    ) {
        enqueueAll(batch.count, completion: completion) { index, id in
            client.produce(batch, at: index, msgOpaque: id)
        }
    }

    /// Enqueues every record of a batch (waiting out a full queue), then awaits every delivery report.
    /// - Returns: one result per record, in the order of the batch.
    public func send(_ batch: KafkaRecordBatch) async -> [Result<KafkaDeliveryReport, KafkaError>] {
        await enqueueEach(batch.count) { index, id in client.produce(batch, at: index, msgOpaque: id) }
    }

    /// Enqueues records `0..<count` one by one with `produce(index, id)`, each waiting out a full queue, then awaits
    /// every delivery report, in order.
    private func enqueueEach(_ count: Int, produce: (Int, UInt) -> KafkaError?) async
        -> [Result<KafkaDeliveryReport, KafkaError>]
    {
        var ids: [Result<UInt, KafkaError>] = []
        ids.reserveCapacity(count)
        for index in 0..<count {
            do throws(KafkaError) {
                ids.append(.success(try await enqueue { id in produce(index, id) }))
            } catch {
                ids.append(.failure(error))
            }
        }
        var results: [Result<KafkaDeliveryReport, KafkaError>] = []
        results.reserveCapacity(count)
        for id in ids {
            switch id {
            case .success(let id): results.append(await deliveries.outcome(of: id))
            case .failure(let error): results.append(.failure(error))
            }
        }
        return results
    }

    /// Registers and produces records `0..<count` with `produce(index, id)`, settling each in one
    /// ``RDKafkaDeliveryBatch`` that calls `completion` when the last one settled.
    private func enqueueAll(
        _ count: Int, completion: @escaping @Sendable ([Result<KafkaDeliveryReport, KafkaError>]) -> Void,
        produce: (Int, UInt) -> KafkaError?
    ) {
        guard count > 0 else { return completion([]) }
        let batch = RDKafkaDeliveryBatch(count: count, completion: completion)
        for index in 0..<count {
            do throws(KafkaError) {
                try client.checkOpen("send")
                let id = try deliveries.register(batch, index: index)
                if let error = produce(index, id) {
                    deliveries.cancel(id)
                    batch.settle(index, .failure(error))
                }
            } catch {
                batch.settle(index, .failure(error))
            }
        }
    }

    private func enqueue(_ message: KafkaOutgoingMessage) async throws(KafkaError) -> UInt {
        try await enqueue { id in client.produce(message, msgOpaque: id) }
    }

    /// Registers an id and produces with it, waiting out a full local queue.
    private func enqueue(_ produce: (UInt) -> KafkaError?) async throws(KafkaError) -> UInt {
        try client.checkOpen("send")
        let id = try deliveries.register()
        var backoffMs: UInt64 = 1
        while true {
            guard let error = produce(id) else { return id }
            // A cancelled caller gives up instead of spinning (a cancelled sleep returns at once).
            guard error.code == .queueFull, !client.isDestroyed, !Task.isCancelled else {
                deliveries.cancel(id)
                throw error
            }
            // The poll thread drains the queue as reports arrive; wait without blocking a thread.
            try? await Task.sleep(for: .milliseconds(backoffMs))
            backoffMs = min(backoffMs * 2, 100)
        }
    }

    // MARK: - Flush and close

    /// Waits until every queued record was delivered or failed (`rd_kafka_flush`, on its own thread).
    /// - Throws: ``KafkaError/Kind/timedOut`` when records are still outstanding after `timeout`.
    public func flush(timeout: Duration) async throws(KafkaError) {
        try client.checkOpen("flush")
        let client = self.client
        let result: Result<Void, KafkaError> = await RDKafkaBlocking.run("kafka-producer-flush") {
            do throws(KafkaError) {
                return .success(try client.flush(timeoutMs: Self.milliseconds(timeout), describing: timeout))
            } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Flushes (bounded by `timeout`), stops the poll thread and destroys the handle. Records still
    /// undelivered fail with `_DESTROY`. Calling it again returns ``KafkaCloseResult/closed``.
    @discardableResult
    public func close(timeout: Duration) async -> KafkaCloseResult {
        guard
            closed.withLock({ done in
                defer { done = true }; return !done
            })
        else { return .closed }
        var result = KafkaCloseResult.closed
        do throws(KafkaError) { try await flush(timeout: timeout) } catch { result = .failed(error) }
        let (client, poller, deliveries) = (self.client, self.poller, self.deliveries)
        let finished = await RDKafkaBlocking.run("kafka-producer-close", deadline: timeout + .seconds(5)) {
            poller.stop(timeout: .seconds(5))
            client.destroy()
            deliveries.failAll(KafkaError(code: .destroy, message: "the producer was closed before delivery"))
            return true
        }
        return finished == nil ? .timedOut : result
    }

    /// The number of records queued or in flight.
    public var outstandingCount: Int { client.outqueueLength }

    /// The partition count of `topic` from broker metadata (asked on its own thread): a probe that the brokers
    /// answer and know the topic.
    /// - Throws: ``KafkaError`` when no broker answers within `timeout` or the topic is unknown.
    public func partitionCount(topic: String, timeout: Duration) async throws(KafkaError) -> Int {
        try await client.partitionCount(topic: topic, timeout: timeout)
    }

    /// The fatal error that made this producer unusable (idempotence broken), nil while it is usable.
    public var fatalError: KafkaError? { client.fatalError() }

    static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: max(duration.milliseconds, 0))
    }
}
