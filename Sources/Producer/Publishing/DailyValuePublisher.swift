import DailyValueContract
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Publishes DailyValue events to Kafka for a Swift backend: validates every event with the same decoder the workers
/// use *before* anything is sent, keys each record by patient id (per-person ordering) and waits for every delivery
/// report.
///
/// ```swift
/// let publisher = try DailyValuePublisher(configuration: .init(producer: .init(bootstrapServers: "kafka:9092")))
/// let results = await publisher.publish(events)   // one PublishResult per event, in order
/// ```
///
/// Calls may overlap, but records from one call are enqueued in order; to keep a person's events in order across
/// calls, await one call before starting the next for the same person.
public final class DailyValuePublisher: Sendable {
    public let configuration: DailyValuePublisherConfiguration
    private let producer: KafkaProducer

    /// Creates the Kafka producer; every configuration error is thrown before the client exists.
    ///
    /// - Parameters:
    ///   - errorHandler: client-level Kafka errors (brokers down, fatal idempotence errors); `nil` lets
    ///     librdkafka log them.
    ///   - logHandler: librdkafka's log lines (from its threads; keep it quick); `nil` writes them to stderr.
    /// - Throws: ``KafkaError`` of kind ``KafkaError/Kind/configuration`` naming the property.
    public init(
        configuration: DailyValuePublisherConfiguration, errorHandler: (@Sendable (KafkaError) -> Void)? = nil,
        logHandler: (@Sendable (KafkaLogEntry) -> Void)? = nil
    ) throws(KafkaError) {
        self.configuration = configuration
        producer = try KafkaProducer(
            configuration: configuration.producer, errorHandler: errorHandler, logHandler: logHandler)
    }

    // MARK: - Publishing

    /// Validates and publishes typed events; the record value is the event's canonical JSON.
    ///
    /// Each event is encoded and decoded again with the workers' decoder, so an event a worker would dead-letter
    /// is ``PublishResult/rejected(_:)`` here and never sent.
    /// - Returns: one result per event, in order.
    public func publish(_ events: [DailyValue]) async -> [PublishResult] {
        await publish(lines: events.map { Array($0.jsonLine(catalog: configuration.decoder.catalog).utf8) })
    }

    /// Validates and publishes retractions (docs/LIFECYCLE.md), keyed by patient like the values they withdraw.
    /// - Returns: one result per retraction, in order.
    public func publish(_ retractions: [DailyValueRetraction]) async -> [PublishResult] {
        await publish(lines: retractions.map { Array($0.jsonLine().utf8) })
    }

    /// Validates raw JSON messages (values or retractions) and publishes the *original bytes* of the valid ones.
    ///
    /// - Returns: one result per line, in order: invalid lines are ``PublishResult/rejected(_:)`` and not sent.
    public func publish(lines: [[UInt8]]) async -> [PublishResult] {
        await send(prepare(lines: lines))
    }

    /// Validates lines without sending anything yet; see ``send(_:)``.
    public func prepare(lines: [[UInt8]]) -> PreparedBatch {
        let timestampMs = Self.nowMilliseconds()
        var batch = PreparedBatch(
            rejections: [], records: KafkaRecordBatch(topic: configuration.topic, timestampMs: timestampMs),
            positions: [])
        batch.rejections.reserveCapacity(lines.count)
        batch.records.reserveCapacity(records: lines.count)
        batch.positions.reserveCapacity(lines.count)
        for (position, line) in lines.enumerated() {
            switch validate(line, recordTimestampMs: timestampMs) {
            case .success(let event):
                batch.rejections.append(nil)
                batch.records.append(copying: line, key: event.patient.utf8)
                batch.positions.append(position)
            case .failure(let error):
                batch.rejections.append(.rejected(error))
            }
        }
        return batch
    }

    /// Sends a prepared batch and waits for every delivery report.
    ///
    /// - Returns: one result per line of the batch, in order.
    public func send(_ batch: PreparedBatch) async -> [PublishResult] {
        let delivered = batch.records.count == 0 ? [] : await producer.send(batch.records).map(Self.result)
        return Self.results(of: batch, delivered: delivered)
    }

    /// Sends a prepared batch without waiting: `completion` gets one result per line of the batch, in order, once
    /// every delivery report arrived (on the producer's poll thread: keep it quick; at once when nothing was sent).
    /// A full local producer queue is not waited out: those records are ``PublishResult/failed(_:)``.
    /// The records' bytes are librdkafka's copies from here on: the completion keeps only where each result goes,
    /// never the records themselves.
    public func send(_ batch: PreparedBatch, completion: @escaping @Sendable ([PublishResult]) -> Void) {
        let rejections = batch.rejections
        let positions = batch.positions
        producer.send(batch.records) { reports in
            completion(Self.results(rejections, positions, delivered: reports.map(Self.result)))
        }
    }

    /// Publishes records exactly as given, without validation: for tests and tools that must put poison messages
    /// on the topic. Never use it for real data.
    ///
    /// - Returns: one result per record, in order (never ``PublishResult/rejected(_:)``).
    public func publishUnvalidated(_ records: [(key: [UInt8]?, value: [UInt8])]) async -> [PublishResult] {
        let timestampMs = Self.nowMilliseconds()
        return await deliver(records.map { message(key: $0.key, value: $0.value, timestampMs: timestampMs) })
    }

    /// Checks one message (a value or a retraction) against the event contract exactly as a worker will.
    public func validate(_ bytes: [UInt8], recordTimestampMs: Int64) -> Result<DailyEvent, DailyValueError> {
        do throws(DailyValueError) {
            return .success(try configuration.decoder.validateEvent(bytes, recordTimestampMs: recordTimestampMs))
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Lifecycle

    /// The partition count of the topic from broker metadata: a probe that the brokers answer and know the topic.
    /// - Throws: ``KafkaError`` when no broker answers within `timeout` or the topic is unknown.
    public func topicPartitionCount(timeout: Duration) async throws(KafkaError) -> Int {
        try await producer.partitionCount(topic: configuration.topic, timeout: timeout)
    }

    /// The fatal producer error that makes this publisher unusable (recreate it), nil while it is usable.
    public var fatalError: KafkaError? { producer.fatalError }

    /// Waits until every record handed over so far is delivered or failed.
    /// - Throws: ``KafkaError`` of kind ``KafkaError/Kind/timedOut`` when records are still outstanding.
    public func flush(timeout: Duration) async throws(KafkaError) {
        try await producer.flush(timeout: timeout)
    }

    /// Flushes within `timeout` and closes the producer; later calls fail.
    @discardableResult
    public func close(timeout: Duration) async -> KafkaCloseResult {
        await producer.close(timeout: timeout)
    }

    // MARK: - Helpers

    private func message(key: [UInt8]?, value: [UInt8], timestampMs: Int64) -> KafkaOutgoingMessage {
        KafkaOutgoingMessage(topic: configuration.topic, key: key, value: value, timestampMs: timestampMs)
    }

    private func deliver(_ messages: [KafkaOutgoingMessage]) async -> [PublishResult] {
        guard !messages.isEmpty else { return [] }
        return await producer.send(messages).map(Self.result)
    }

    private static func result(_ report: Result<KafkaDeliveryReport, KafkaError>) -> PublishResult {
        switch report {
        case .success(let report): .acknowledged(partition: report.partition, offset: report.offset)
        case .failure(let error): .failed(error)
        }
    }

    /// The batch's rejections with the delivery results of its records put in their positions.
    private static func results(of batch: PreparedBatch, delivered: [PublishResult]) -> [PublishResult] {
        results(batch.rejections, batch.positions, delivered: delivered)
    }

    /// `rejections` with the delivery results put in their `positions`.
    private static func results(
        _ rejections: [PublishResult?], _ positions: [Int], delivered: [PublishResult]
    ) -> [PublishResult] {
        var results = rejections
        for (position, result) in zip(positions, delivered) {
            results[position] = result
        }
        return results.map { $0! }
    }

    /// Now in milliseconds since the Unix epoch: the record timestamp this publisher gives its records.
    public static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1_000).rounded())
    }
}
