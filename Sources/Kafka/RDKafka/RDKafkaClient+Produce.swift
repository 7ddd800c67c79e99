import CKafka

/// A non-null pointer used for empty (but not null) values and header values: librdkafka treats a NULL
/// pointer as a null value. Never written, never freed.
private nonisolated(unsafe) let emptyBytes = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

extension RDKafkaClient {
    /// Enqueues one message with `rd_kafka_produceva` (the variadic `producev` does not import into Swift).
    /// Key, value and headers are copied (`RD_KAFKA_MSG_F_COPY`), so nothing must outlive the call.
    /// `msgOpaque` comes back in the delivery report as `rkmessage->_private`.
    /// - Returns: the queueing error (`_QUEUE_FULL`, `_UNKNOWN_PARTITION`…), `nil` when enqueued.
    func produce(_ message: KafkaOutgoingMessage, msgOpaque: UInt) -> KafkaError? {
        message.topic.withCString { topic in
            message.value.withUnsafeBytes { value in
                withOptionalBytes(message.key) { key in
                    produce(
                        topic: topic, key: key, value: value, partition: message.partition,
                        timestampMs: message.timestampMs, headers: message.headers, msgOpaque: msgOpaque)
                }
            }
        }
    }

    /// Enqueues the record at `index` of `batch`, as ``produce(_:msgOpaque:)`` does a message.
    func produce(_ batch: KafkaRecordBatch, at index: Int, msgOpaque: UInt) -> KafkaError? {
        batch.topic.withCString { topic in
            batch.key(at: index).withUnsafeBytes { key in
                batch.value(at: index).withUnsafeBytes { value in
                    produce(
                        topic: topic, key: key, value: value, partition: nil, timestampMs: batch.timestampMs,
                        headers: [], msgOpaque: msgOpaque)
                }
            }
        }
    }

    /// The one `rd_kafka_produceva` call; a headers list is made only when there are headers.
    private func produce(
        topic: UnsafePointer<CChar>, key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer, partition: Int32?,
        timestampMs: Int64?, headers: [KafkaHeader], msgOpaque: UInt
    ) -> KafkaError? {
        let list = headers.isEmpty ? nil : Self.headerList(headers)
        let error: OpaquePointer? = withUnsafeTemporaryAllocation(of: rd_kafka_vu_t.self, capacity: 8) { vus in
            var count = 0
            func add(_ type: rd_kafka_vtype_t, _ set: (inout rd_kafka_vu_t.__Unnamed_union_u) -> Void) {
                precondition(count < vus.count, "more produce arguments than room for them")
                vus.initializeElement(at: count, to: vu(type, set))
                count += 1
            }
            add(RD_KAFKA_VTYPE_TOPIC) { $0.cstr = topic }
            add(RD_KAFKA_VTYPE_MSGFLAGS) { $0.i = RD_KAFKA_MSG_F_COPY }
            add(RD_KAFKA_VTYPE_VALUE) {
                $0.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress) ?? emptyBytes
                $0.mem.size = value.count
            }
            if let key {
                add(RD_KAFKA_VTYPE_KEY) {
                    $0.mem.ptr = UnsafeMutableRawPointer(mutating: key.baseAddress) ?? emptyBytes
                    $0.mem.size = key.count
                }
            }
            if let partition { add(RD_KAFKA_VTYPE_PARTITION) { $0.i32 = partition } }
            if let timestampMs { add(RD_KAFKA_VTYPE_TIMESTAMP) { $0.i64 = timestampMs } }
            if let list { add(RD_KAFKA_VTYPE_HEADERS) { $0.headers = list } }
            add(RD_KAFKA_VTYPE_OPAQUE) { $0.ptr = UnsafeMutableRawPointer(bitPattern: msgOpaque) }
            return rd_kafka_produceva(handle, vus.baseAddress, count)
        }
        guard let error else { return nil }  // librdkafka now owns `list`
        if let list { rd_kafka_headers_destroy(list) }
        return KafkaError(consuming: error)
    }

    /// A new librdkafka headers list holding `headers` (values copied); the caller owns it.
    private static func headerList(_ headers: [KafkaHeader]) -> OpaquePointer {
        let list = rd_kafka_headers_new(headers.count)!
        for header in headers {
            if let value = header.value {
                value.withUnsafeBytes { buffer in
                    _ = rd_kafka_header_add(
                        list, header.key, -1, buffer.baseAddress ?? UnsafeRawPointer(emptyBytes), buffer.count)
                }
            } else {
                _ = rd_kafka_header_add(list, header.key, -1, nil, 0)
            }
        }
        return list
    }

    private func vu(_ type: rd_kafka_vtype_t, _ set: (inout rd_kafka_vu_t.__Unnamed_union_u) -> Void) -> rd_kafka_vu_t {
        var value = rd_kafka_vu_t()
        value.vtype = type
        set(&value.u)
        return value
    }

    private func withOptionalBytes<T>(_ bytes: [UInt8]?, _ body: (UnsafeRawBufferPointer?) -> T) -> T {
        guard let bytes else { return body(nil) }
        return bytes.withUnsafeBytes { body($0) }
    }
}
