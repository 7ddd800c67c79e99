import CKafka
import Synchronization

/// Owns one `rd_kafka_t` (producer or consumer) and the callback context librdkafka calls back into.
///
/// Lifetime rule for callbacks: the context object is registered with `rd_kafka_conf_set_opaque` *unretained*;
/// this class keeps it alive with a strong reference and destroys the handle (in ``destroy()`` or `deinit`)
/// before that reference is released, so every callback librdkafka makes sees a live context. A handle given up with
/// ``abandon()`` is never destroyed, and its context is then kept alive for the rest of the process.
/// `@unchecked Sendable`: librdkafka handles are thread-safe; the only mutable state is the `Mutex`.
final class RDKafkaClient: @unchecked Sendable {
    enum Kind {
        case producer, consumer
    }

    /// The `rd_kafka_t *`. Valid until ``destroy()``.
    let handle: OpaquePointer
    let kind: Kind
    private let context: (any AnyObject & Sendable)?
    private let destroyed = Mutex(false)

    /// Creates the client. Every property is applied with `rd_kafka_conf_set` first; the first rejected one is
    /// thrown as a configuration error naming it, before any client exists.
    /// - Parameters:
    ///   - context: object passed as the opaque to every callback (see the lifetime rule above).
    ///   - configure: installs callbacks on the `rd_kafka_conf_t *` (must not take ownership of it).
    init(
        kind: Kind,
        properties: [(key: String, value: String)],
        context: (any AnyObject & Sendable)?,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws(KafkaError) {
        let conf = try RDKafkaConfig.make(properties)
        if let context {
            rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(context).toOpaque())
        }
        configure(conf)
        var errstr = [CChar](repeating: 0, count: 512)
        let type = kind == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER
        guard let rk = rd_kafka_new(type, conf, &errstr, errstr.count) else {
            rd_kafka_conf_destroy(conf)  // rd_kafka_new frees the conf only on success
            let message = RDKafkaConfig.creationError(String(cBuffer: errstr), properties: properties)
            throw KafkaError(
                code: .invalidArgument, message: "creating the client failed: \(message)", kind: .configuration,
                isRetriable: false, property: RDKafkaConfig.propertyNamed(in: message, among: properties))
        }
        self.handle = rk
        self.kind = kind
        self.context = context
    }

    deinit {
        if !destroyed.withLock({ $0 }) { rd_kafka_destroy(handle) }
    }

    // MARK: - Lifecycle

    var isDestroyed: Bool { destroyed.withLock { $0 } }

    /// Destroys the handle (blocking: a consumer must have been closed first). Safe to call more than once.
    func destroy() {
        let first = destroyed.withLock { done in
            defer { done = true }
            return !done
        }
        if first { rd_kafka_destroy(handle) }
    }

    /// Gives the handle up without `rd_kafka_destroy` (when destroying would abort, see `KafkaConsumerCloseState`):
    /// marks it destroyed so nothing uses or destroys it later, and keeps the context alive for the rest of the
    /// process, because librdkafka's threads keep running and may still call back (logs).
    func abandon() {
        let first = destroyed.withLock { done in
            defer { done = true }
            return !done
        }
        if first, let context { _ = Unmanaged.passRetained(context as AnyObject) }
    }

    /// Throws a state error when the handle was destroyed (the client was closed).
    func checkOpen(_ operation: String) throws(KafkaError) {
        if isDestroyed { throw .state("\(operation): the client is closed") }
    }

    // MARK: - Queries

    /// The fatal error that made the client unusable, if any (`rd_kafka_fatal_error`).
    func fatalError() -> KafkaError? {
        var errstr = [CChar](repeating: 0, count: 512)
        let err = rd_kafka_fatal_error(handle, &errstr, errstr.count)
        guard err != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return KafkaError(code: .init(err), message: String(cBuffer: errstr), isFatal: true, isRetriable: false)
    }

    /// Cached low/high watermarks (`rd_kafka_get_watermark_offsets`): never blocks, never talks to a broker.
    /// The high watermark is updated by fetches, the low one by statistics; `-1001` when unknown.
    func cachedWatermarks(topic: String, partition: Int32) throws(KafkaError) -> (low: Int64, high: Int64) {
        var low: Int64 = -1001
        var high: Int64 = -1001
        let err = rd_kafka_get_watermark_offsets(handle, topic, partition, &low, &high)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err) }
        return (low, high)
    }

    /// Asks the partition leader for the watermarks. BLOCKING, and in 2.0.2 it can ignore its timeout while the
    /// leader is down (#4460): call only from a thread of its own, never from a poll thread.
    func queryWatermarks(topic: String, partition: Int32, timeoutMs: Int32) throws(KafkaError) -> (Int64, Int64) {
        var low: Int64 = -1
        var high: Int64 = -1
        let err = rd_kafka_query_watermark_offsets(handle, topic, partition, &low, &high, timeoutMs)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else { throw KafkaError(err) }
        return (low, high)
    }

    /// ``partitionCount(topic:timeoutMs:)`` on a thread of its own (never the cooperative pool).
    func partitionCount(topic: String, timeout: Duration) async throws(KafkaError) -> Int {
        try checkOpen("partitionCount")
        let result: Result<Int, KafkaError> = await RDKafkaBlocking.run("kafka-metadata") {
            do throws(KafkaError) {
                return .success(try self.partitionCount(topic: topic, timeoutMs: KafkaProducer.milliseconds(timeout)))
            } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The number of partitions of `topic` from broker metadata. BLOCKING (up to `timeoutMs`).
    func partitionCount(topic: String, timeoutMs: Int32) throws(KafkaError) -> Int {
        guard let rkt = rd_kafka_topic_new(handle, topic, nil) else {
            throw KafkaError(rd_kafka_last_error(), "cannot create a topic handle for '\(topic)'")
        }
        defer { rd_kafka_topic_destroy(rkt) }
        var metadata: UnsafePointer<rd_kafka_metadata>?
        let err = rd_kafka_metadata(handle, 0, rkt, &metadata, timeoutMs)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else { throw KafkaError(err) }
        defer { rd_kafka_metadata_destroy(metadata) }
        guard metadata.pointee.topic_cnt > 0 else { throw KafkaError(code: .unknownTopicOrPartition) }
        let topicMetadata = metadata.pointee.topics[0]
        guard topicMetadata.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw KafkaError(topicMetadata.err, "metadata for topic '\(topic)'")
        }
        return Int(topicMetadata.partition_cnt)
    }
}
