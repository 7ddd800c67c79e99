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
        let headers = rd_kafka_headers_new(message.headers.count)!
        for header in message.headers {
            if let value = header.value {
                value.withUnsafeBytes { buffer in
                    _ = rd_kafka_header_add(
                        headers, header.key, -1, buffer.baseAddress ?? UnsafeRawPointer(emptyBytes),
                        buffer.count)
                }
            } else {
                _ = rd_kafka_header_add(headers, header.key, -1, nil, 0)
            }
        }
        let error: OpaquePointer? = message.topic.withCString { topic in
            message.value.withUnsafeBytes { value in
                withOptionalBytes(message.key) { key in
                    var vus: [rd_kafka_vu_t] = []
                    vus.append(vu(RD_KAFKA_VTYPE_TOPIC) { $0.cstr = topic })
                    vus.append(vu(RD_KAFKA_VTYPE_MSGFLAGS) { $0.i = RD_KAFKA_MSG_F_COPY })
                    vus.append(
                        vu(RD_KAFKA_VTYPE_VALUE) {
                            $0.mem.ptr = UnsafeMutableRawPointer(mutating: value.baseAddress) ?? emptyBytes
                            $0.mem.size = value.count
                        })
                    if let key {
                        vus.append(
                            vu(RD_KAFKA_VTYPE_KEY) {
                                $0.mem.ptr = UnsafeMutableRawPointer(mutating: key.baseAddress) ?? emptyBytes
                                $0.mem.size = key.count
                            })
                    }
                    if let partition = message.partition {
                        vus.append(vu(RD_KAFKA_VTYPE_PARTITION) { $0.i32 = partition })
                    }
                    if let timestamp = message.timestampMs {
                        vus.append(vu(RD_KAFKA_VTYPE_TIMESTAMP) { $0.i64 = timestamp })
                    }
                    vus.append(vu(RD_KAFKA_VTYPE_HEADERS) { $0.headers = headers })
                    vus.append(vu(RD_KAFKA_VTYPE_OPAQUE) { $0.ptr = UnsafeMutableRawPointer(bitPattern: msgOpaque) })
                    return rd_kafka_produceva(handle, vus, vus.count)
                }
            }
        }
        guard let error else { return nil }  // librdkafka now owns `headers`
        rd_kafka_headers_destroy(headers)
        return KafkaError(consuming: error)
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
