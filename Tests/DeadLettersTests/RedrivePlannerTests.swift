import DailyValueContract
import DeadLetters
import Foundation
import Kafka
import Testing

/// The redrive decisions and the republished record's headers, on dead letters shaped as the worker writes them.
@Suite("Redrive planner")
struct RedrivePlannerTests {
    static let day: String = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date().addingTimeInterval(-2 * 86_400))
    }()

    static func event(value: Double) -> [UInt8] {
        Array(
            #"{"schema":1,"patient":"p-1","metric":"heart_rate","day":"\#(day)","utcOffset":"+01:00","value":\#(value),"version":5}"#
                .utf8)
    }

    /// A dead letter as `DeadLetter.record(for:…)` builds it: original headers, then the error headers.
    static func deadLetter(
        value: [UInt8], original: [KafkaHeader] = [KafkaHeader(key: "traceparent", string: "00-abc-01")],
        extra: [KafkaHeader] = [], errorClass: String = "ValueOutOfRange", offset: Int64 = 0
    ) -> KafkaMessage {
        let headers =
            original + [
                KafkaHeader(key: DeadLetterHeaders.originTopic, string: "daily-values"),
                KafkaHeader(key: DeadLetterHeaders.originPartition, string: "3"),
                KafkaHeader(key: DeadLetterHeaders.originOffset, string: "42"),
                KafkaHeader(key: DeadLetterHeaders.stage, string: "VALIDATE"),
                KafkaHeader(key: DeadLetterHeaders.errorClass, string: errorClass),
                KafkaHeader(key: DeadLetterHeaders.errorMessage, string: "ValueOutOfRange `value`: above 250"),
                KafkaHeader(key: DeadLetterHeaders.workerVersion, string: "1.2.3"),
                KafkaHeader(key: DeadLetterHeaders.failedAt, string: "2026-12-02T10:00:00.000Z"),
                KafkaHeader(key: DeadLetterHeaders.originalTimestamp, string: "1764662400000"),
            ] + extra
        return KafkaMessage(
            topic: "daily-values.dlq", partition: 0, offset: offset, key: Array("p-1".utf8), value: value,
            headers: headers, timestampMs: 1_764_662_400_000, timestampType: .createTime)
    }

    static func planner(catalog: MetricCatalog = .builtin, filter: DeadLetterFilter = .init()) -> RedrivePlanner {
        RedrivePlanner(
            filter: filter, decoder: DailyValueDecoder(catalog: catalog), maxRedrives: 3,
            quarantineTopic: "daily-values.dlq.quarantine")
    }

    static func widened() throws -> MetricCatalog {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString).json")
        try Data(#"{"metrics":{"heart_rate":{"plausibleMax":400}}}"#.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try MetricCatalog.load(overridesFrom: url)
    }

    @Test func stillInvalidWithTheBuiltinCatalogIsQuarantinedWithTheReason() {
        let action = Self.planner().plan(DeadLetterView(Self.deadLetter(value: Self.event(value: 350))))
        guard case .quarantine(let reason, let detail, let record) = action else {
            Issue.record("expected quarantine, got \(action)")
            return
        }
        #expect(reason == .stillInvalid)
        #expect(detail.hasPrefix("ValueOutOfRange"))
        #expect(record.topic == "daily-values.dlq.quarantine")
        #expect(record.headers.last?.key == DeadLetterHeaders.quarantineReason)
    }

    @Test func republishedAfterTheCatalogFixWithHeadersReplacedNotAppended() throws {
        let planner = Self.planner(catalog: try Self.widened())
        var letter = Self.deadLetter(value: Self.event(value: 350))
        var sizes: [Int] = []
        for round in 1...3 {
            guard case .republish(let record) = planner.plan(DeadLetterView(letter)) else {
                Issue.record("round \(round): expected republish")
                return
            }
            #expect(record.topic == "daily-values")
            #expect(record.key == Array("p-1".utf8))
            #expect(record.value == Self.event(value: 350))
            #expect(record.timestampMs == 1_764_662_400_000)
            #expect(record.headers.map(\.key) == ["traceparent", DeadLetterHeaders.redriveCount])
            #expect(record.headers.last?.value == Array(String(round).utf8))
            sizes.append(record.headers.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.count ?? 0) })
            // The worker dead-letters it again: the republished headers, then fresh error headers.
            letter = Self.deadLetter(value: record.value, original: record.headers)
        }
        #expect(Set(sizes).count == 1, "headers do not grow: \(sizes)")
    }

    @Test func afterMaxRedrivesItIsQuarantinedEvenIfValid() throws {
        let letter = Self.deadLetter(
            value: Self.event(value: 70), original: [KafkaHeader(key: DeadLetterHeaders.redriveCount, string: "3")])
        guard case .quarantine(let reason, _, _) = Self.planner().plan(DeadLetterView(letter)) else {
            Issue.record("expected quarantine")
            return
        }
        #expect(reason == .maxRedrives)
    }

    @Test(arguments: [
        KafkaHeader(key: DeadLetterHeaders.summarized, string: "value,headers"),
        KafkaHeader(key: DeadLetterHeaders.payloadSHA256, string: String(repeating: "a", count: 64)),
    ])
    func summarizedRecordsAreNeverRepublished(_ marker: KafkaHeader) {
        let letter = Self.deadLetter(value: Array(#"{"truncated":true,"size":1000000}"#.utf8), extra: [marker])
        guard case .quarantine(let reason, _, _) = Self.planner().plan(DeadLetterView(letter)) else {
            Issue.record("expected quarantine")
            return
        }
        #expect(reason == .unrestorable)
    }

    @Test func filtersSelectByClassPartitionKeyAndTime() {
        let letter = DeadLetterView(Self.deadLetter(value: Self.event(value: 70)))
        var filter = DeadLetterFilter()
        #expect(filter.matches(letter))
        filter.errorClasses = ["MissingUnit"]
        #expect(!filter.matches(letter))
        filter.errorClasses = ["ValueOutOfRange"]
        filter.originPartitions = [3]
        filter.key = Array("p-1".utf8)
        #expect(filter.matches(letter))
        filter.key = Array("p-2".utf8)
        #expect(!filter.matches(letter))
        filter.key = nil
        filter.since = DeadLetterView.parseInstant("2026-12-02T10:00:00Z")
        filter.until = DeadLetterView.parseInstant("2026-12-02T11:00:00Z")
        #expect(filter.matches(letter))
        filter.since = DeadLetterView.parseInstant("2026-12-02T10:00:01Z")
        #expect(!filter.matches(letter))
        #expect(!DeadLetterFilter().fingerprint.isEmpty && filter.fingerprint != DeadLetterFilter().fingerprint)
    }

    @Test func statisticsNeverPrintKeysOrValues() {
        var statistics = DeadLetterStatistics(topic: "daily-values.dlq", window: .day)
        statistics.add(DeadLetterView(Self.deadLetter(value: Self.event(value: 350))), isUnread: true)
        statistics.add(DeadLetterView(Self.deadLetter(value: Self.event(value: 351), offset: 1)), isUnread: false)
        let now = Date(timeIntervalSince1970: 1_764_662_400 + 86_400)
        for text in [
            statistics.plainText(now: now, group: "g"), statistics.json(now: now, group: "g"),
            statistics.prometheusText(now: now, group: "g"),
        ] {
            #expect(!text.contains("p-1") && !text.contains("350"), "\(text)")
        }
        #expect(statistics.byClass == ["ValueOutOfRange": 2])
        #expect(statistics.unread == 1)
        #expect(statistics.oldestUnreadAgeSeconds(now: now) == 86_400)
        #expect(
            statistics.prometheusText(now: now, group: "g").contains(
                #"dvp_dlq_oldest_unread_age_seconds{topic="daily-values.dlq",group="g"} 86400"#))
    }

    @Test func summaryCountsAndPrintsValidJSON() throws {
        let planner = Self.planner()
        var summary = RedriveSummary(dryRun: true, group: "g")
        summary.count(planner.plan(DeadLetterView(Self.deadLetter(value: Self.event(value: 350)))))
        summary.count(planner.plan(DeadLetterView(Self.deadLetter(value: Self.event(value: 70), offset: 1))))
        var other = DeadLetterFilter()
        other.errorClasses = ["MissingUnit"]
        summary.count(Self.planner(filter: other).plan(DeadLetterView(Self.deadLetter(value: Self.event(value: 70)))))
        #expect(summary.read == 3 && summary.skipped == 1 && summary.republished == 1 && summary.quarantinedTotal == 1)
        #expect(summary.exitStatus == 1)
        let object = try JSONSerialization.jsonObject(with: Data(summary.json.utf8)) as? [String: Any]
        #expect(object?["republished"] as? Int == 1)
        #expect((object?["quarantined"] as? [String: Int]) == ["still-invalid": 1])
        #expect(object?["stoppedAtMax"] as? Bool == false)
        #expect(summary.plainText.contains("would-republish  1"))
    }
}
