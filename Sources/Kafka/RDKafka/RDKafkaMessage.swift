import CKafka
#if canImport(Glibc)
import Glibc
#endif

/// Conversions from librdkafka's message, error and log representations to the wrapper's value types.
/// Everything is copied: nothing returned points into librdkafka memory.
enum RDKafkaMessage {
    /// Copies a consumed message (`err` must be `NO_ERROR`).
    static func message(_ message: UnsafePointer<rd_kafka_message_t>) -> KafkaMessage {
        let raw = message.pointee
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let timestamp = rd_kafka_message_timestamp(message, &timestampType)
        let type: KafkaMessage.TimestampType =
            switch timestampType {
            case RD_KAFKA_TIMESTAMP_CREATE_TIME: .createTime
            case RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME: .logAppendTime
            default: .notAvailable
            }
        return KafkaMessage(
            topic: topicName(message),
            partition: raw.partition,
            offset: raw.offset,
            key: raw.key.map { bytes($0, raw.key_len) },
            value: raw.payload.map { bytes($0, raw.len) } ?? [],
            headers: headers(message),
            timestampMs: type == .notAvailable ? nil : timestamp,
            timestampType: type,
            valueIsNull: raw.payload == nil)
    }

    /// The outcome of a delivery report.
    static func deliveryOutcome(_ message: UnsafePointer<rd_kafka_message_t>) -> RDKafkaDeliveryRegistry.Outcome {
        let raw = message.pointee
        guard raw.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            return .failure(
                KafkaError(
                    code: .init(raw.err),
                    message: "delivery to \(topicName(message)) failed: \(String(cString: rd_kafka_err2str(raw.err)))",
                    persistenceStatus: KafkaPersistenceStatus(rd_kafka_message_status(message))))
        }
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let timestamp = rd_kafka_message_timestamp(message, &timestampType)
        return .success(
            KafkaDeliveryReport(
                topic: topicName(message), partition: raw.partition, offset: raw.offset,
                timestampMs: timestampType == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nil : timestamp))
    }

    /// An error carried by a consumed message (`err != NO_ERROR`, other than partition EOF).
    static func consumerError(_ message: UnsafePointer<rd_kafka_message_t>) -> KafkaError {
        let raw = message.pointee
        var text = String(cString: rd_kafka_err2str(raw.err))
        if let payload = raw.payload, raw.len > 0 {
            text = String(decoding: bytes(payload, raw.len), as: UTF8.self)
        }
        if raw.rkt != nil { text = "\(topicName(message))[\(raw.partition)]: \(text)" }
        return KafkaError(code: .init(raw.err), message: text)
    }

    /// A client-level error from `error_cb`; for `_FATAL` the underlying fatal error is read.
    static func clientError(_ rk: OpaquePointer?, _ err: Int32, _ reason: UnsafePointer<CChar>?) -> KafkaError {
        let code = KafkaError.Code(rawValue: err)
        let text = reason.map { String(cString: $0) } ?? code.text
        if code == .fatal, let rk {
            var errstr = [CChar](repeating: 0, count: 512)
            let original = rd_kafka_fatal_error(rk, &errstr, errstr.count)
            return KafkaError(
                code: .init(original), message: String(cBuffer: errstr), isFatal: true,
                isRetriable: false)
        }
        return KafkaError(code: code, message: text)
    }

    /// A log line as the app sees it: `CONFWARN` lines (which quote configured values) with the values removed.
    static func logEntry(_ level: Int32, _ facility: UnsafePointer<CChar>?, _ text: UnsafePointer<CChar>?)
        -> KafkaLogEntry
    {
        let facility = facility.map { String(cString: $0) } ?? ""
        let message = text.map { String(cString: $0) } ?? ""
        return KafkaLogEntry(
            level: level, facility: facility,
            message: facility == "CONFWARN" ? RDKafkaConfig.removingQuotedValues(message) : message)
    }

    /// Hands `entry` to `handler`, or without one writes it to stderr as librdkafka would (`%LEVEL|FACILITY| …`):
    /// every client has a log callback from before its handle exists, so no raw, unfiltered line is printed.
    static func log(_ entry: KafkaLogEntry, to handler: (@Sendable (KafkaLogEntry) -> Void)?) {
        if let handler { return handler(entry) }
        let line = Array((entry.description + "\n").utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    // MARK: - Helpers

    static func topicName(_ message: UnsafePointer<rd_kafka_message_t>) -> String {
        guard let rkt = message.pointee.rkt else { return "" }
        return String(cString: rd_kafka_topic_name(rkt))
    }

    private static func bytes(_ pointer: UnsafeMutableRawPointer, _ count: Int) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func headers(_ message: UnsafePointer<rd_kafka_message_t>) -> [KafkaHeader] {
        var list: OpaquePointer?
        guard rd_kafka_message_headers(message, &list) == RD_KAFKA_RESP_ERR_NO_ERROR, let list else { return [] }
        var result: [KafkaHeader] = []
        var index = 0
        var name: UnsafePointer<CChar>?
        var value: UnsafeRawPointer?
        var size = 0
        while rd_kafka_header_get_all(list, index, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
            let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: size)) }
            result.append(KafkaHeader(key: name.map { String(cString: $0) } ?? "", value: bytes))
            index += 1
        }
        return result
    }
}
