import DailyValueContract
import Foundation
import Kafka
import Producer
import Testing

/// The library API against a real librdkafka mock cluster over TCP.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DailyValuePublisherTests {
    let topic = "daily-values"

    private func event(_ patient: String, value: Double, version: Int64) -> DailyValue {
        DailyValue(
            patient: patient, metric: "heart_rate", day: ProducerTestSupport.recentDay(daysAgo: 2),
            zone: .timeZone("Europe/Bratislava"), value: value, min: 48, max: 162, version: version,
            source: .init(name: "Apple Watch", bundleId: "com.apple.health", model: "Watch7,3")
        )
    }

    private func publisher(_ cluster: KafkaMockCluster, messageTimeoutMs: Int = 30_000) throws -> DailyValuePublisher {
        var producer = KafkaProducerConfiguration(bootstrapServers: cluster.bootstrapServers)
        producer.lingerMs = 1
        producer.messageTimeoutMs = messageTimeoutMs
        producer.extra = ["log_level": "2"]
        return try DailyValuePublisher(configuration: .init(producer: producer, topic: topic))
    }

    @Test func invalidEventIsRejectedWithItsReasonAndNeverSent() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic)
        let publisher = try publisher(cluster)
        let events = [
            event("p-1", value: 71.4, version: 1),
            event("p-2", value: 900, version: 1),  // outside heart rate's plausible range
            event("p-3", value: 64, version: 5),
        ]

        let results = await publisher.publish(events)
        await publisher.close(timeout: .seconds(10))

        #expect(results.count == 3)
        #expect(results[0].isAcknowledged)
        #expect(results[2].isAcknowledged)
        guard case .rejected(let error) = results[1] else {
            Issue.record("expected a rejection, got \(results[1])")
            return
        }
        #expect(error.kind == .valueOutOfRange)
        #expect(error.field == "value")

        let records = try await KafkaConsumer.readAll(topic: topic, bootstrapServers: cluster.bootstrapServers)
        let sent = Set(records.map { String(decoding: $0.key ?? [], as: UTF8.self) })
        #expect(sent == ["p-1", "p-3"])
        for record in records {
            let original = events.first { Array($0.patient.utf8) == record.key }!
            #expect(record.value == Array(original.jsonLine().utf8))
            let decoded = try DailyValueDecoder().decode(record.value, recordTimestampMs: nil)
            #expect(decoded == original)
        }
    }

    /// Retractions (docs/LIFECYCLE.md) are validated like values, keyed by patient, sent as their canonical line.
    @Test func retractionsArePublishedKeyedByPatient() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic)
        let publisher = try publisher(cluster)
        let day = ProducerTestSupport.recentDay(daysAgo: 2)
        let retraction = DailyValueRetraction(
            patient: "p-4", metric: "heart_rate", day: day, version: 9, reason: "sample deleted on the phone")
        var blank = retraction
        blank.patient = "p-5"
        blank.reason = " "

        let results = await publisher.publish([retraction, blank])
        await publisher.close(timeout: .seconds(10))

        #expect(results.first?.isAcknowledged == true)
        guard case .rejected(let error) = results.last else {
            Issue.record("expected a rejection, got \(String(describing: results.last))")
            return
        }
        #expect(error.kind == .invalidReason && error.field == "reason")
        let records = try await KafkaConsumer.readAll(topic: topic, bootstrapServers: cluster.bootstrapServers)
        #expect(records.map(\.key) == [Array("p-4".utf8)])
        #expect(records.map(\.value) == [Array(retraction.jsonLine().utf8)])
        let decoded = try DailyValueDecoder().validateEvent(try #require(records.first).value, recordTimestampMs: nil)
        #expect(decoded == .retraction(retraction))
    }

    @Test func linesAreSentWithTheirOriginalBytes() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic)
        let publisher = try publisher(cluster)
        let day = ProducerTestSupport.recentDay(daysAgo: 1)
        // Odd spacing, member order and an unknown member: valid, and must arrive exactly as given.
        let line = Array(
            #"{ "metric":"steps", "patient":"p-7","schema":1,"day":"\#(day)","utcOffset":"+05:45","value":8042, "x":[1]}"#
                .utf8)
        let broken = Array(#"{"schema":1,"patient":"p-8""#.utf8)

        let results = await publisher.publish(lines: [line, broken])
        await publisher.close(timeout: .seconds(10))

        #expect(results.first?.isAcknowledged == true)
        guard case .rejected(let error) = results.last else {
            Issue.record("expected a rejection, got \(String(describing: results.last))")
            return
        }
        #expect(error.kind == .invalidJSON)
        let records = try await KafkaConsumer.readAll(topic: topic, bootstrapServers: cluster.bootstrapServers)
        #expect(records.map(\.value) == [line])
        #expect(records.map(\.key) == [Array("p-7".utf8)])
    }

    @Test func brokerDownPastTheMessageTimeoutFails() async throws {
        let cluster = try ProducerTestSupport.cluster(topic: topic, brokers: 1)
        let publisher = try publisher(cluster, messageTimeoutMs: 1_500)
        try cluster.setBrokerDown(1)

        let started = ContinuousClock.now
        let results = await publisher.publish([
            event("p-1", value: 70, version: 1), event("p-2", value: 71, version: 1),
        ])
        await publisher.close(timeout: .seconds(5))

        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(results.count == 2)
        for result in results {
            guard case .failed(let error) = result else {
                Issue.record("expected a delivery failure, got \(result)")
                continue
            }
            #expect(error.kind == .messageTimedOut)
        }
    }
}
