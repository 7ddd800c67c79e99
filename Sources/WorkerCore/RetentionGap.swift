import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A partition whose consumer position had fallen behind the log start: the records in between were removed by
/// retention before this group read them.
///
/// librdkafka (2.0.2) repairs such a position with `auto.offset.reset` and reports it only as a LOG_WARNING
/// `OFFSET` line ("`daily-values [3]: offset reset (at offset 100) to cached BEGINNING offset 280: … Offset out of
/// range`"), never as a consumer error; the worker turns that line into a metric and an error log.
struct RetentionGap: Sendable, Equatable {
    var topic: String
    var partition: Int32
    /// The offset the group wanted to read next (its committed or fetch position).
    var lostFrom: Int64
    /// The offset reading resumed at, when librdkafka named it (the log start); `nil` when unknown.
    var resumedAt: Int64?

    /// Records lost to retention, when the resume offset is known.
    var lostCount: Int64? { resumedAt.map { max(0, $0 - lostFrom) } }

    /// Parses librdkafka's offset-reset warning; nil for any other log line (including the benign reset of a
    /// group without committed offsets, which librdkafka logs only at debug level).
    init?(_ entry: KafkaLogEntry) {
        guard entry.facility == "OFFSET", entry.level <= 4 else { return nil }
        let text = entry.message
        guard let reset = text.firstRange(of: "]: offset reset (at offset ") else { return nil }
        // "<topic> [<partition>]" precedes the phrase, possibly after librdkafka's "rdkafka#consumer-1: [thrd:…]: ".
        let head = text[..<reset.lowerBound]
        guard let open = head.ranges(of: " [").last,
            let partition = Int32(head[open.upperBound...])
        else { return nil }
        var topic = head[..<open.lowerBound]
        if let prefix = topic.ranges(of: "]: ").last { topic = topic[prefix.upperBound...] }
        let tail = text[reset.upperBound...]
        guard let from = Int64(tail.prefix { $0.isNumber }) else { return nil }
        let target = tail.firstRange(of: "BEGINNING offset ").map { tail[$0.upperBound...].prefix { $0.isNumber } }
        let resumedAt = target.flatMap { Int64($0) }
        // A reset to an offset at or before the wanted one lost nothing (e.g. a truncated log re-read).
        if let resumedAt, resumedAt <= from { return nil }
        self.topic = String(topic)
        self.partition = partition
        self.lostFrom = from
        self.resumedAt = resumedAt
    }
}
