import DailyValueContract
import Kafka

/// What `dlq redrive` does with one dead letter.
public enum RedriveAction: Sendable {
    /// Not selected by the filter: left in the dead-letter topic.
    case skip
    /// Re-validates with the current catalog and rules: republished to its origin topic.
    case republish(KafkaOutgoingMessage)
    /// Cannot or must not be republished: copied to the quarantine topic with the reason in a header.
    case quarantine(QuarantineReason, detail: String, KafkaOutgoingMessage)
    /// Its person is erased or has withdrawn consent (the store's erasure ledger): dropped, neither republished nor
    /// quarantined (no copy of it is made); the group's offsets move past it, so no later run sees it again, and the
    /// dead letter itself goes with the dead-letter topic's retention.
    case erased
}

/// Why a dead letter goes to quarantine instead of back to its topic.
public enum QuarantineReason: String, Sendable, CaseIterable {
    /// A part of the event was replaced by a summary (too large for the broker): the event cannot be restored.
    case unrestorable
    /// The record has no origin topic header: there is nowhere to send it back.
    case noOrigin = "no-origin"
    /// It was redriven `--max-redrives` times already and failed again each time: no more loops.
    case maxRedrives = "max-redrives"
    /// It still fails validation with the current catalog and rules.
    case stillInvalid = "still-invalid"
}

/// Decides, for each dead letter, whether to skip, republish or quarantine it, and builds the outgoing record.
///
/// A republished record carries the original key, value, headers and timestamp; the error headers of earlier
/// attempts (`__connect.errors.*`, `x-dlq.*`) are removed and `x-redrive-count` is set to one more than before,
/// so headers never grow over repeated redrives. A quarantined record is the dead letter unchanged plus
/// `x-dlq.quarantine-reason`.
public struct RedrivePlanner: Sendable {
    public var filter: DeadLetterFilter
    /// The decoder with the current catalog and rules.
    public var decoder: DailyValueDecoder
    /// Dead letters already redriven this many times go to quarantine.
    public var maxRedrives: Int
    public var quarantineTopic: String

    public init(filter: DeadLetterFilter, decoder: DailyValueDecoder, maxRedrives: Int, quarantineTopic: String) {
        self.filter = filter
        self.decoder = decoder
        self.maxRedrives = maxRedrives
        self.quarantineTopic = quarantineTopic
    }

    /// The action for `letter`.
    public func plan(_ letter: DeadLetterView) -> RedriveAction {
        guard filter.matches(letter) else { return .skip }
        if let reason = letter.unrestorableReason {
            return quarantine(letter, .unrestorable, reason)
        }
        guard let origin = letter.originTopic else {
            return quarantine(letter, .noOrigin, "no \(DeadLetterHeaders.originTopic) header")
        }
        if letter.redriveCount >= maxRedrives {
            return quarantine(letter, .maxRedrives, "redriven \(letter.redriveCount) times, failed each time")
        }
        do throws(DailyValueError) {
            _ = try decoder.validateEvent(letter.record.value, recordTimestampMs: letter.originalTimestampMs)
        } catch {
            return quarantine(letter, .stillInvalid, error.description)
        }
        return .republish(Self.republished(letter, to: origin))
    }

    /// The original event with earlier attempts' headers replaced by `x-redrive-count`.
    public static func republished(_ letter: DeadLetterView, to topic: String) -> KafkaOutgoingMessage {
        var headers = letter.record.headers.filter { !DeadLetterHeaders.isAttemptHeader($0.key) }
        headers.append(KafkaHeader(key: DeadLetterHeaders.redriveCount, string: String(letter.redriveCount + 1)))
        return KafkaOutgoingMessage(
            topic: topic, partition: nil, key: letter.record.key, value: letter.record.value, headers: headers,
            timestampMs: letter.originalTimestampMs)
    }

    private func quarantine(_ letter: DeadLetterView, _ reason: QuarantineReason, _ detail: String) -> RedriveAction {
        var headers = letter.record.headers.filter { $0.key != DeadLetterHeaders.quarantineReason }
        headers.append(KafkaHeader(key: DeadLetterHeaders.quarantineReason, string: "\(reason.rawValue): \(detail)"))
        let record = KafkaOutgoingMessage(
            topic: quarantineTopic, partition: nil, key: letter.record.key, value: letter.record.value,
            headers: headers, timestampMs: letter.record.timestampMs)
        return .quarantine(reason, detail: detail, record)
    }
}
