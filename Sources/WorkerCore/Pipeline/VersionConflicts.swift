import Kafka
import Observability

/// `--on-version-conflict`: what the worker does with a record the store decided `conflict` (an equal version with
/// a different clinical value; the first stored value is kept either way, docs/CLINICAL.md).
public enum VersionConflictAction: String, Sendable, CaseIterable {
    /// Count it (`dvp_upserts_total{outcome="conflict"}`) and log it; its offset is committed like any other.
    case ignore
    /// Also send it to the dead-letter topic (class `VersionConflict`, stage `STORE`), where it can be inspected,
    /// and redriven once it carries a higher version.
    case deadLetter = "dead-letter"
}

/// Reports the records a batch's upsert decided `conflict`: one warning line each (topic, partition, offset; never
/// the patient id or a value), at most ``maxLogLines`` per batch, and with ``VersionConflictAction/deadLetter`` their
/// dead-letter records.
struct VersionConflicts: Sendable {
    static let className = "VersionConflict"
    static let reason =
        "version conflict: the version equals the stored one but the clinical value differs; the first stored value "
        + "is kept (sync-version rule: an equal version is never rewritten); send a correction with a higher version"
    static let maxLogLines = 10

    let action: VersionConflictAction
    let deadLetter: DeadLetter
    let logger: Logger

    /// Logs the conflicts of `messages` and returns their dead-letter records (none with `ignore`).
    func report(_ messages: [KafkaMessage]) -> [DeadLetterRecord] {
        guard !messages.isEmpty else { return [] }
        for message in messages.prefix(Self.maxLogLines) {
            logger.warning(
                "version conflict: an equal version with a different value; the stored value is kept",
                [
                    ("topic", .string(message.topic)), ("partition", .int(Int64(message.partition))),
                    ("offset", .int(message.offset)), ("metric", .string(Metrics.LabelledCounter.upserts.seriesName(label: "conflict"))),
                    ("action", .string(action.rawValue)),
                ])
        }
        if messages.count > Self.maxLogLines {
            logger.warning(
                "more version conflicts in this batch (not logged one by one)",
                [("records", .int(Int64(messages.count - Self.maxLogLines)))])
        }
        guard action == .deadLetter else { return [] }
        return messages.map {
            deadLetter.record(for: $0, stage: .store, className: Self.className, reason: Self.reason)
        }
    }
}
