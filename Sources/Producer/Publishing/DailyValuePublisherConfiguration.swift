import DailyValueContract
import Kafka

/// How a ``DailyValuePublisher`` connects and validates.
public struct DailyValuePublisherConfiguration: Sendable {
    /// The Kafka producer: idempotent, `acks=all` and `lz4` by default (see `KafkaProducerConfiguration`).
    public var producer: KafkaProducerConfiguration
    /// The topic the workers consume, `daily-values` by default.
    public var topic: String
    /// The decoder whose rules every event must pass before it is sent: the same one the workers use.
    public var decoder: DailyValueDecoder

    public init(
        producer: KafkaProducerConfiguration, topic: String = "daily-values", decoder: DailyValueDecoder = .init()
    ) {
        self.producer = producer
        self.topic = topic
        self.decoder = decoder
    }
}
