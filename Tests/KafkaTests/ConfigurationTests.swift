import Kafka
import Synchronization
import Testing

@Suite("Configuration validation")
struct ConfigurationTests {
    @Test("an unknown property name is rejected before the client exists, naming the property")
    func unknownProperty() {
        var configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration.extra = ["no.such.property": "1"]
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        #expect(error?.kind == .configuration)
        #expect(error?.property == "no.such.property")
    }

    @Test("an invalid value is rejected, naming the property")
    func invalidValue() {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: "127.0.0.1:1", groupId: "g")
        configuration.sessionTimeoutMs = -5
        let error = #expect(throws: KafkaError.self) { try KafkaConsumer(configuration: configuration) }
        #expect(error?.kind == .configuration)
        #expect(error?.property == "session.timeout.ms")
    }

    @Test("an invalid value is named by its property, never quoted: a value may be a secret")
    func invalidValueIsNotEchoed() {
        for (key, value) in [("api.version.request", "MARKER-S3CR3T-4242"), ("sasl.oauthbearer.method", "MARKER-S3CR3T")] {
            var configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1")
            configuration.extra = [key: value]
            let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
            #expect(error?.property == key)
            #expect(error.map { !"\($0)".contains("MARKER") } == true, "\(String(describing: error))")
        }
        let unparsable = #expect(throws: KafkaError.self) { try KafkaProperties.parse(["sasl.password:MARKER"]) }
        #expect(unparsable.map { !"\($0)".contains("MARKER") } == true, "\(String(describing: unparsable))")
    }

    @Test("CONFWARN lines logged while the client is created reach the log handler, their values removed")
    func configurationWarningsGoThroughTheHandlerWithoutValues() throws {
        let entries = Mutex<[KafkaLogEntry]>([])
        var configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration.extra = ["sasl.mechanism": "MARKER-S3CR3T-4242", "sasl.username": "MARKER-S3CR3T-4242"]
        let producer = try KafkaProducer(configuration: configuration, logHandler: { entry in
            entries.withLock { $0.append(entry) }
        })
        _ = producer
        let warnings = entries.withLock { $0 }.filter { $0.facility == "CONFWARN" }
        #expect(!warnings.isEmpty, "no CONFWARN line reached the handler")
        #expect(warnings.contains { $0.message.contains("`sasl.mechanism`") }, "\(warnings)")
        #expect(warnings.allSatisfy { !$0.message.contains("MARKER") }, "\(warnings)")
    }

    @Test("rd_kafka_new conflicts (idempotence with explicit acks=1 via extra) are configuration errors")
    func conflictingProperties() {
        var configuration = KafkaProducerConfiguration(bootstrapServers: "127.0.0.1:1")
        configuration.extra = ["acks": "1"]
        let error = #expect(throws: KafkaError.self) { try KafkaProducer(configuration: configuration) }
        #expect(error?.kind == .configuration)
    }

    @Test("the recipe's fixed offset properties cannot be overridden")
    func fixedProperties() {
        var configuration = KafkaConsumerConfiguration(bootstrapServers: "127.0.0.1:1", groupId: "g")
        configuration.extra = ["enable.auto.offset.store": "true"]
        let error = #expect(throws: KafkaError.self) { try configuration.properties() }
        #expect(error?.property == "enable.auto.offset.store")
    }

    @Test(
        "key=value parsing",
        arguments: [
            (["a=1", "b.c = x=y"], ["a": "1", "b.c": " x=y"] as [String: String]?),
            (["novalue"], nil), (["=v"], nil), (["a=1", "a=2"], nil),
        ])
    func parse(pairs: [String], expected: [String: String]?) throws {
        if let expected {
            #expect(try KafkaProperties.parse(pairs) == expected)
        } else {
            #expect(throws: KafkaError.self) { try KafkaProperties.parse(pairs) }
        }
    }

    @Test("defaults follow the recipe")
    func defaults() throws {
        let producer = try KafkaProducerConfiguration(bootstrapServers: "h:1").properties()
        let producerMap = Dictionary(producer.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        #expect(producerMap["enable.idempotence"] == "true")
        #expect(producerMap["acks"] == "-1")
        #expect(producerMap["compression.codec"] == "lz4")
        let consumer = try KafkaConsumerConfiguration(bootstrapServers: "h:1", groupId: "g").properties()
        let consumerMap = Dictionary(consumer.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        #expect(consumerMap["enable.auto.offset.store"] == "false")
        #expect(consumerMap["enable.auto.commit"] == "true")
        #expect(consumerMap["partition.assignment.strategy"] == "cooperative-sticky")
    }
}
