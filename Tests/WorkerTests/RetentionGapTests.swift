import Kafka
import Testing

@testable import WorkerCore

/// Parsing of librdkafka's offset-reset warning into a retention gap (the worker's only signal of lost data).
@Suite("Retention gap detection")
struct RetentionGapTests {
    @Test("The cached-BEGINNING reset warning of librdkafka 2.0.2 names the partition and the lost range")
    func cachedBeginning() throws {
        let entry = KafkaLogEntry(
            level: 4, facility: "OFFSET",
            message: "[thrd:main]: daily-values [3]: offset reset (at offset 100) to cached BEGINNING offset 280: "
                + "fetch failed due to requested offset not available on the broker: Broker: Offset out of range")
        let gap = try #require(RetentionGap(entry))
        #expect(gap.topic == "daily-values" && gap.partition == 3 && gap.lostFrom == 100 && gap.resumedAt == 280)
        #expect(gap.lostCount == 180)
    }

    @Test("A reset to BEGINNING without a cached offset is a gap of unknown size")
    func uncachedBeginning() throws {
        let entry = KafkaLogEntry(
            level: 4, facility: "OFFSET",
            message: "[thrd:main]: t.x [0]: offset reset (at offset 7) to BEGINNING: fetch failed: Offset out of range")
        let gap = try #require(RetentionGap(entry))
        #expect(gap.topic == "t.x" && gap.partition == 0 && gap.lostFrom == 7 && gap.resumedAt == nil)
    }

    @Test("Other lines are not gaps", arguments: [
        KafkaLogEntry(level: 7, facility: "OFFSET", message: "t [0]: offset reset (at offset INVALID) to BEGINNING"),
        KafkaLogEntry(level: 4, facility: "MAXPOLL", message: "Application maximum poll interval exceeded"),
        KafkaLogEntry(level: 4, facility: "OFFSET", message: "t [1]: offset reset (at offset 90) to cached BEGINNING offset 12: x"),
    ])
    func notAGap(entry: KafkaLogEntry) {
        #expect(RetentionGap(entry) == nil)
    }
}
