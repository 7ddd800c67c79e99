import Foundation
import Hashing
import Kafka

/// Builds the dead-letter record for an event that cannot be processed.
///
/// The record keeps the original key, value, headers and timestamp, and adds Kafka Connect's
/// `__connect.errors.*` context headers (so generic tooling understands it) plus our `x-dlq.*` ones.
/// The reason names the field and the rule, never the health value or the patient id.
struct DeadLetter: Sendable {
    /// The processing stage that rejected the event.
    enum Stage: String, Sendable {
        case deserialize = "DESERIALIZE"
        case validate = "VALIDATE"
        /// The store's server refused the mapped Observation (a FHIR server's 400/422).
        case store = "STORE"
    }

    /// Largest original value copied verbatim; bigger ones become a small JSON envelope with size and SHA-256.
    static let maxVerbatimBytes = 900_000

    let topic: String
    let group: String
    let workerID: String
    let workerVersion: String

    /// - Parameters:
    ///   - className: a stable error class, e.g. `ValueOutOfRange`.
    ///   - reason: the human-readable reason (field and rule).
    func record(for message: KafkaMessage, stage: Stage, className: String, reason: String) -> KafkaOutgoingMessage {
        var headers = message.headers
        headers.append(contentsOf: [
            KafkaHeader(key: "__connect.errors.topic", string: message.topic),
            KafkaHeader(key: "__connect.errors.partition", string: String(message.partition)),
            KafkaHeader(key: "__connect.errors.offset", string: String(message.offset)),
            KafkaHeader(key: "__connect.errors.stage", string: stage.rawValue),
            KafkaHeader(key: "__connect.errors.exception.class.name", string: className),
            KafkaHeader(key: "__connect.errors.exception.message", string: String(reason.prefix(1000))),
            KafkaHeader(key: "x-dlq.consumer-group", string: group),
            KafkaHeader(key: "x-dlq.worker-id", string: workerID),
            KafkaHeader(key: "x-dlq.worker-version", string: workerVersion),
            KafkaHeader(key: "x-dlq.failed-at", string: Self.rfc3339Now()),
        ])
        if let ts = message.timestampMs {
            headers.append(KafkaHeader(key: "x-dlq.original-timestamp", string: String(ts)))
        }
        var value = message.value
        if value.count > Self.maxVerbatimBytes {
            let digest = SHA256.hex(value)
            headers.append(KafkaHeader(key: "x-dlq.payload-sha256", string: digest))
            value = Array(
                "{\"truncated\":true,\"size\":\(message.value.count),\"sha256\":\"\(digest)\"}".utf8)
        }
        return KafkaOutgoingMessage(
            topic: topic, partition: nil, key: message.key, value: value, headers: headers,
            timestampMs: message.timestampMs)
    }

    private static func rfc3339Now() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
