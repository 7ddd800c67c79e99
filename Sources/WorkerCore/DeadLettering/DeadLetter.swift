import DeadLetters
import Essentials
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds the dead-letter record for an event that cannot be processed.
///
/// The record keeps the original key, value, headers and timestamp, and adds Kafka Connect's
/// `__connect.errors.*` context headers (so generic tooling understands it) plus our `x-dlq.*` ones.
/// The reason names the field and the rule, never the health value or the patient id. A record that would not fit
/// the dead-letter producer's size limit is summarised part by part (``DeadLetterRecord``), so it always fits.
struct DeadLetter: Sendable {
    /// The processing stage that rejected the event.
    enum Stage: String, Sendable {
        case deserialize = "DESERIALIZE"
        case validate = "VALIDATE"
        /// The store's server refused the mapped Observation (a FHIR server's 400/422).
        case store = "STORE"
    }

    /// librdkafka's default `message.max.bytes`, the dead-letter producer's limit unless `-X` sets another.
    static let defaultProducerMaxBytes = 1_000_000
    /// The longest reason kept in `__connect.errors.exception.message`, in characters.
    static let maxReasonCharacters = 1000

    let topic: String
    let group: String
    let workerID: String
    let workerVersion: String
    /// The largest dead-letter record (``KafkaOutgoingMessage/maxWireSize``) sent with its parts verbatim.
    let sizeBudget: Int

    /// - Parameter producerMaxBytes: the dead-letter producer's `message.max.bytes`; records are kept 5 % under it.
    init(
        topic: String, group: String, workerID: String, workerVersion: String,
        producerMaxBytes: Int = DeadLetter.defaultProducerMaxBytes
    ) {
        self.topic = topic
        self.group = group
        self.workerID = workerID
        self.workerVersion = workerVersion
        self.sizeBudget = Self.budget(producerMaxBytes: producerMaxBytes)
    }

    /// The size budget for a producer limit: 5 % under it (at least 1 KiB), for framing the estimate may miss.
    static func budget(producerMaxBytes: Int) -> Int {
        producerMaxBytes - max(producerMaxBytes / 20, 1024)
    }

    /// - Parameters:
    ///   - className: a stable error class, e.g. `ValueOutOfRange`.
    ///   - reason: the human-readable reason (field and rule).
    func record(for message: KafkaMessage, stage: Stage, className: String, reason: String) -> DeadLetterRecord {
        var context = [
            KafkaHeader(key: DeadLetterHeaders.originTopic, string: message.topic),
            KafkaHeader(key: DeadLetterHeaders.originPartition, string: String(message.partition)),
            KafkaHeader(key: DeadLetterHeaders.originOffset, string: String(message.offset)),
            KafkaHeader(key: DeadLetterHeaders.stage, string: stage.rawValue),
            KafkaHeader(key: DeadLetterHeaders.errorClass, string: className),
            KafkaHeader(key: DeadLetterHeaders.errorMessage, string: String(reason.prefix(Self.maxReasonCharacters))),
            KafkaHeader(key: DeadLetterHeaders.consumerGroup, string: group),
            KafkaHeader(key: DeadLetterHeaders.workerID, string: workerID),
            KafkaHeader(key: DeadLetterHeaders.workerVersion, string: workerVersion),
            KafkaHeader(key: DeadLetterHeaders.failedAt, string: Self.rfc3339Now()),
        ]
        if let ts = message.timestampMs {
            context.append(KafkaHeader(key: DeadLetterHeaders.originalTimestamp, string: String(ts)))
        }
        if message.valueIsNull {
            context.append(KafkaHeader(key: DeadLetterHeaders.originalValueNull, string: "true"))
        }
        return DeadLetterRecord(
            original: message, className: className, context: context, topic: topic, sizeBudget: sizeBudget)
    }

    private static func rfc3339Now() -> String {
        RFC3339.string(Date())
    }
}
