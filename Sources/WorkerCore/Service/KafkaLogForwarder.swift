import Kafka
import Observability

/// librdkafka's log lines (from its internal threads): forwarded as JSON log lines, and offset resets past
/// retention turned into `dvp_retention_gaps_total` plus an error, so lost data is never silent.
struct KafkaLogForwarder: Sendable {
    let metrics: Metrics
    let logger: Logger

    func handle(_ entry: KafkaLogEntry) {
        if let gap = RetentionGap(entry) {
            metrics.increment(.retentionGaps)
            var fields: [(String, Logger.Value)] = [
                ("topic", .string(gap.topic)), ("partition", .int(Int64(gap.partition))),
                ("lost_from_offset", .int(gap.lostFrom)),
            ]
            if let resumedAt = gap.resumedAt { fields.append(("resumed_at_offset", .int(resumedAt))) }
            if let lost = gap.lostCount { fields.append(("lost_records", .int(lost))) }
            logger.error(
                "retention gap: records were deleted by the broker before this group read them; they are lost "
                    + "to the store (re-publish them from the source)", fields)
            return
        }
        logger.log(Logger.Level(syslogSeverity: entry.level), "librdkafka", [("facility", .string(entry.facility)), ("message", .string(entry.message))])
    }
}
