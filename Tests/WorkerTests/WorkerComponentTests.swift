
import DailyValueContract
import Foundation
import Kafka
import Observability
import ObservationMapping
import StoreCore
import Testing
@testable import WorkerCore

@Suite("Worker components")
struct WorkerComponentTests {
    @Test("Progress line fields: ETA = remaining lag / rate, absent while the lag is unknown or nothing moves")
    func progressFields() {
        func names(_ fields: [(String, Logger.Value)]) -> [String] { fields.map(\.0) }
        let full = ProgressReporter.fields(consumed: 1200, remaining: 4500, rate: 300)
        #expect(names(full) == ["consumed", "rate_per_s", "remaining_lag", "eta_s"])
        guard case .int(let eta) = full[3].1, case .int(let remaining) = full[2].1 else {
            Issue.record("eta_s / remaining_lag are not integers: \(full)")
            return
        }
        #expect(eta == 15 && remaining == 4500)
        if case .int(let roundedUp) = ProgressReporter.fields(consumed: 0, remaining: 10, rate: 3)[3].1 {
            #expect(roundedUp == 4)
        } else {
            Issue.record("no integer ETA for 10 records at 3/s")
        }
        #expect(
            names(ProgressReporter.fields(consumed: 5, remaining: 10, rate: 0))
                == ["consumed", "rate_per_s", "remaining_lag"])
        #expect(names(ProgressReporter.fields(consumed: 5, remaining: nil, rate: 50)) == ["consumed", "rate_per_s"])
    }

    @Test("VersionCache keeps the highest lower bound and clears itself when full")
    func versionCache() {
        let cache = VersionCache(capacity: 3)
        let a = ObservationIdentity(patient: "p1", metric: "steps", day: "2026-10-01")
        let b = ObservationIdentity(patient: "p1", metric: "steps", day: "2026-10-02")
        cache.record([(a, 5), (a, 3), (b, 7)])
        #expect(cache.storedAtLeast([a, b]).map { $0?.version } == [5, 7])
        cache.record([(ObservationIdentity(patient: "p2", metric: "steps", day: "2026-10-01"), 1),
                      (ObservationIdentity(patient: "p3", metric: "steps", day: "2026-10-01"), 1)])
        #expect(cache.storedAtLeast([a]) == [nil])
        let disabled = VersionCache(capacity: 0)
        disabled.record([(a, 1)])
        #expect(disabled.storedAtLeast([a]) == [nil])
    }

    /// Issue 28 row 5: the cache answers an equal version only for a retraction or the clinical value known there.
    @Test("VersionCache answers a value of the cached version only when its clinical value is the known one")
    func versionCacheKnowsTheValue() throws {
        func value(_ version: Int64, _ number: Int) -> ObservationRecord {
            ObservationRecord(
                identity: ObservationIdentity(patient: "p1", metric: "steps", day: "2026-10-01"), version: version,
                resourceID: "id", resourceHead: "{", resourceTail: "}",
                clinicalValue: #""valueQuantity":{"value":\#(number)}"#)
        }
        let cache = VersionCache(capacity: 10)
        let key = VersionCache.Key(value(5, 1).identity)
        cache.record([(key, 5, 0)])  // a version without a known value (a pre-warm of a retracted day, a conflict)
        var bound = try #require(cache.storedAtLeast([key])[0])
        #expect(bound.outcome(of: value(5, 1)) == nil)
        #expect(bound.outcome(of: value(4, 1)) == .stale)
        #expect(bound.outcome(of: 5, isRetraction: true) == .unchanged)
        #expect(bound.outcome(of: 5, isRetraction: false) == nil)

        cache.record([(key, 5, VersionCache.valueHash(value(5, 1)))])
        cache.record([(key, 5, 0)])  // a later conflict does not forget the known value
        bound = try #require(cache.storedAtLeast([key])[0])
        #expect(bound.outcome(of: value(5, 1)) == .unchanged)
        #expect(bound.outcome(of: value(5, 2)) == nil, "a conflict must reach the store")
        #expect(bound.outcome(of: value(6, 1)) == nil)

        cache.record([(key, 6, VersionCache.valueHash(value(6, 2)))])
        bound = try #require(cache.storedAtLeast([key])[0])
        #expect(bound.outcome(of: value(6, 2)) == .unchanged && bound.outcome(of: value(6, 1)) == nil)
        #expect(bound.outcome(of: value(5, 2)) == .stale)
    }

    @Test("Dead-letter record keeps key, value, headers, timestamp and adds the context headers")
    func deadLetter() {
        let original = KafkaMessage(
            topic: "daily-values", partition: 3, offset: 42, key: Array("p-1".utf8), value: Array("{oops".utf8),
            headers: [KafkaHeader(key: "trace", string: "t1")], timestampMs: 1_759_384_503_000, timestampType: .createTime)
        let record = DeadLetter(topic: "daily-values.dlq", group: "g", workerID: "w1", workerVersion: "9")
            .record(for: original, stage: .deserialize, className: "InvalidJSON", reason: "`$`: not JSON").message
        let headers = Dictionary(record.headers.map { ($0.key, String(decoding: $0.value ?? [], as: UTF8.self)) },
                                 uniquingKeysWith: { a, _ in a })
        #expect(record.topic == "daily-values.dlq")
        #expect(record.key == original.key)
        #expect(record.value == original.value)
        #expect(record.timestampMs == nil, "the broker's time: the original is a header")
        #expect(headers["x-dlq.original-timestamp"] == "1759384503000")
        #expect(headers["trace"] == "t1")
        #expect(headers["__connect.errors.topic"] == "daily-values")
        #expect(headers["__connect.errors.partition"] == "3")
        #expect(headers["__connect.errors.offset"] == "42")
        #expect(headers["__connect.errors.stage"] == "DESERIALIZE")
        #expect(headers["__connect.errors.exception.class.name"] == "InvalidJSON")
        #expect(headers["x-dlq.worker-version"] == "9")
        #expect(headers["x-dlq.summarized"] == nil)
    }

    @Test("A source field over its stored cap is left out, the record mapped, the field counted for metrics")
    func omittedSourceFieldsAreCounted() throws {
        let mapper = try ObservationMapper(configuration: .init(idKey: Array("0123456789abcdef".utf8)))
        let processor = BatchProcessor(
            decoder: DailyValueDecoder(), mapper: mapper,
            deadLetter: DeadLetter(topic: "t.dlq", group: "g", workerID: "w", workerVersion: "1"))
        let model = String(repeating: "m", count: 25)
        let event = #"{"schema":1,"patient":"p-1","metric":"steps","day":"2026-11-20","utcOffset":"+01:00","value":5,"#
            + #""version":1,"source":{"bundleId":"com.apple.health","model":"\#(model)"}}"#
        let message = KafkaMessage(
            topic: "t", partition: 0, offset: 0, key: nil, value: Array(event.utf8), headers: [],
            timestampMs: 1_764_000_000_000, timestampType: .createTime)
        var output = processor.decode([message])
        #expect(output.deadLetters.isEmpty)
        #expect(output.omittedSourceFields == [message.topicPartition: ["source.model": 1]])
        processor.map(&output, storedAtLeast: [nil])
        let resource = try #require(output.mapped.first).record.resource
        #expect(resource.contains("com.apple.health") && !resource.contains(model))

        let metrics = Metrics()
        #expect(!metrics.render().contains("\ndvp_source_fields_omitted_total 0"), "no unlabelled zero series")
        for (field, n) in output.omittedSourceFields.values.flatMap({ $0 }) {
            metrics.increment(.sourceFieldsOmitted, label: field, by: Double(n))
        }
        #expect(metrics.value(of: .sourceFieldsOmitted, label: "source.model") == 1)
        #expect(metrics.render().contains("dvp_source_fields_omitted_total{field=\"source.model\"} 1"))
    }

    @Test("Metrics render as Prometheus text with families, labels and the histogram")
    func metrics() {
        let metrics = Metrics()
        metrics.increment(.upserts, label: "inserted", by: 3)
        metrics.set(.consumerLag, topic: "t", partition: 0, 12)
        metrics.observe(.batchDuration, 0.03)
        #expect(metrics.value(of: .upserts, label: "inserted") == 3)
        #expect(metrics.value(of: .upserts, label: "updated") == 0)
        #expect(metrics.value(of: .consumerLag, topic: "t", partition: 0) == 12)
        #expect(metrics.count(of: .batchDuration) == 1)
        let text = metrics.render()
        #expect(text.contains("# TYPE dvp_upserts_total counter"))
        #expect(text.contains("dvp_upserts_total{outcome=\"inserted\"} 3"))
        #expect(text.contains("dvp_consumer_lag{topic=\"t\",partition=\"0\"} 12"))
        #expect(text.contains("dvp_batch_duration_seconds_bucket{le=\"0.05\"} 1"))
        #expect(text.contains("dvp_batch_duration_seconds_bucket{le=\"0.025\"} 0"))
        #expect(text.contains("dvp_batch_duration_seconds_count 1"))
        #expect(text.contains("dvp_records_consumed_total 0"))
    }
}
