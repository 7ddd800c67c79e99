import Essentials
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A dead-letter record read back: its error context from the headers, and the original event's parts.
///
/// Header values are read as UTF-8; a header given twice counts by its last occurrence (the latest attempt).
public struct DeadLetterView: Sendable {
    /// The dead-letter record as read from the topic.
    public let record: KafkaMessage
    private let headers: [String: String]

    public init(_ record: KafkaMessage) {
        self.record = record
        var headers: [String: String] = [:]
        for header in record.headers {
            headers[header.key] = header.value.map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        self.headers = headers
    }

    /// The value of header `name`, if present.
    public func header(_ name: String) -> String? { headers[name] }

    /// The topic the event came from.
    public var originTopic: String? { header(DeadLetterHeaders.originTopic).flatMap { $0.isEmpty ? nil : $0 } }
    /// The partition the event came from.
    public var originPartition: Int32? { header(DeadLetterHeaders.originPartition).flatMap { Int32($0) } }
    /// The stage that rejected the event (`unknown` when absent).
    public var stage: String { header(DeadLetterHeaders.stage) ?? "unknown" }
    /// The error class (`unknown` when absent).
    public var errorClass: String { header(DeadLetterHeaders.errorClass) ?? "unknown" }
    /// The worker version that dead-lettered it (`unknown` when absent).
    public var workerVersion: String { header(DeadLetterHeaders.workerVersion) ?? "unknown" }
    /// How many times the event was redriven before this dead letter (0 when never).
    public var redriveCount: Int { header(DeadLetterHeaders.redriveCount).flatMap { Int($0) } ?? 0 }

    /// When the event was dead-lettered: `x-dlq.failed-at`, else the record's timestamp.
    public var failedAt: Date? {
        if let text = header(DeadLetterHeaders.failedAt), let date = Self.parseInstant(text) { return date }
        return record.timestampMs.map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The original record's timestamp (the dead letter keeps it as its own).
    public var originalTimestampMs: Int64? {
        header(DeadLetterHeaders.originalTimestamp).flatMap { Int64($0) } ?? record.timestampMs
    }

    /// Why the original event cannot be restored from this record (a part was replaced by a summary), or nil.
    public var unrestorableReason: String? {
        if let parts = header(DeadLetterHeaders.summarized), !parts.isEmpty { return "summarized \(parts)" }
        if header(DeadLetterHeaders.payloadSHA256) != nil { return "summarized value" }
        return nil
    }

    /// An RFC 3339 instant, with or without fractional seconds.
    public static func parseInstant(_ text: String) -> Date? {
        RFC3339.parse(text)
    }
}
