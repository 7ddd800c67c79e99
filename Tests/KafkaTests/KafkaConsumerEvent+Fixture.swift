import Kafka

extension KafkaConsumerEvent {
    /// A record event with an empty value, for the consumer-state tests.
    static func record(_ tp: KafkaTopicPartition, _ offset: Int64) -> KafkaConsumerEvent {
        .message(KafkaMessage(topic: tp.topic, partition: tp.partition, offset: offset, key: nil, value: [],
                              headers: [], timestampMs: nil, timestampType: .notAvailable))
    }
}
