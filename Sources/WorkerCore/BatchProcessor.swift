import Kafka
import ObservationUpsert

/// Turns a batch of Kafka messages into Observation records and dead-letter records (pure, no I/O).
struct BatchProcessor: Sendable {
    /// A valid event, mapped.
    struct Mapped: Sendable {
        var record: ObservationRecord
        var metric: String
    }

    /// The result of processing one batch.
    struct Output: Sendable {
        var mapped: [Mapped] = []
        var deadLetters: [KafkaOutgoingMessage] = []
        /// Dead-letter counts by error class, for metrics.
        var deadLetterClasses: [String: Int] = [:]
        /// Per partition, the next offset after the batch's last message (what to store once durable).
        var nextOffsets: [KafkaTopicPartition: Int64] = [:]
    }

    let decoder: DailyValueDecoder
    let mapper: ObservationMapper
    let deadLetter: DeadLetter

    func process(_ messages: [KafkaMessage]) -> Output {
        var output = Output()
        output.mapped.reserveCapacity(messages.count)
        for message in messages {
            let tp = message.topicPartition
            output.nextOffsets[tp] = max(output.nextOffsets[tp] ?? 0, message.offset + 1)
            do {
                let value = try decoder.decode(message.value, recordTimestampMs: message.timestampMs)
                let record = try mapper.map(value, recordTimestampMs: message.timestampMs ?? value.version ?? 0)
                output.mapped.append(Mapped(record: record, metric: value.metric))
            } catch {
                let stage: DeadLetter.Stage = error.kind == .invalidJSON ? .deserialize : .validate
                output.deadLetters.append(
                    deadLetter.record(for: message, stage: stage, className: error.className, reason: error.description))
                output.deadLetterClasses[error.className, default: 0] += 1
            }
        }
        return output
    }
}
