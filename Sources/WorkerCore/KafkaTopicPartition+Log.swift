import Kafka

extension Sequence<KafkaTopicPartition> {
    /// `topic[partition]` entries, sorted and comma-separated, for log fields.
    var logDescription: String {
        sorted().map { "\($0.topic)[\($0.partition)]" }.joined(separator: ",")
    }
}
