
import Foundation
import Observability
import Testing
@testable import WorkerCore

/// The exposition the worker serves on `/metrics`: byte for byte what the dashboard, the alert rules and their
/// promtool tests were written against (names, label names, family order, number formats), rendered from the
/// declarations in `Metrics+Families.swift`.
@Suite struct MetricsExpositionTests {
    @Test("An empty registry: unlabelled counters render 0, labelled families and unset gauges only HELP and TYPE")
    func emptyRegistry() {
        #expect(Metrics().render() == Self.empty)
    }

    @Test("Every kind of family written: series sorted by their text, histogram buckets cumulative")
    func everyKindWritten() {
        let metrics = Metrics()
        metrics.increment(.recordsConsumed, by: 1200)
        metrics.increment(.skippedNotNewer, by: 3)
        metrics.increment(.storeErrors)
        metrics.increment(.storeErrors)
        metrics.increment(.retentionGaps)
        metrics.increment(.upserts, label: "inserted", by: 5)
        metrics.increment(.upserts, label: "updated", by: 2)
        metrics.increment(.upserts, label: "conflict")
        metrics.increment(.deadLettered, label: "DailyValueError", by: 4)
        metrics.increment(.deadLettered, label: "KafkaError")
        metrics.increment(.sourceFieldsOmitted, label: "source.model")
        metrics.increment(.rebalances, label: "assigned", by: 3)
        metrics.increment(.rebalances, label: "revoked")
        for seconds in [0.03, 0.7, 12] { metrics.observe(.batchDuration, seconds) }
        for (partition, lag) in [(Int32(0), 12.0), (10, 3), (2, 7)] {
            metrics.set(.consumerLag, topic: "daily-values", partition: partition, lag)
        }
        metrics.set(.assignedPartitions, 3)
        metrics.set(.paused, 0)
        metrics.set(.ready, 1)
        #expect(metrics.render() == Self.written)
        #expect(metrics.total(of: .deadLettered) == 5)
        #expect(metrics.total(of: .deadLettersSummarized) == 0)
        #expect(metrics.value(of: .storeErrors) == 2)
        #expect(metrics.value(of: .ready) == 1)
        #expect(metrics.value(of: .idKeyFileInsecure) == nil)
        #expect(metrics.count(of: .batchDuration) == 3)
    }

    @Test("Label values are escaped by the registry: backslash, double quote, line feed (also in a CRLF)")
    func labelValuesAreEscaped() {
        let metrics = Metrics()
        let hostile = "a\\b\"c\nd\r\ne"
        metrics.increment(.deadLettered, label: hostile)
        metrics.set(.consumerLag, topic: "t\"x", partition: 1, 2)
        let lines = metrics.render().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.contains(#"dvp_dead_lettered_total{class="a\\b\"c\nd"# + "\r" + #"\ne"} 1"#))
        #expect(lines.contains(#"dvp_consumer_lag{topic="t\"x",partition="1"} 2"#))
        #expect(metrics.value(of: .deadLettered, label: hostile) == 1, "values are kept and read back unescaped")
        #expect(
            Metrics.LabelledCounter.upserts.seriesName(label: "conflict") == #"dvp_upserts_total{outcome="conflict"}"#)
    }

    @Test("Clearing a partition gauge drops every series (the lag of partitions no longer assigned)")
    func clearDropsEverySeries() {
        let metrics = Metrics()
        metrics.set(.consumerLag, topic: "t", partition: 0, 5)
        metrics.set(.consumerLag, topic: "t", partition: 1, 6)
        metrics.clear(.consumerLag)
        metrics.set(.consumerLag, topic: "t", partition: 1, 7)
        let lag = metrics.render().split(separator: "\n").filter { $0.hasPrefix("dvp_consumer_lag{") }
        #expect(lag == [#"dvp_consumer_lag{topic="t",partition="1"} 7"#])
        #expect(metrics.value(of: .consumerLag, topic: "t", partition: 0) == nil)
    }

    // MARK: - Expected expositions

    /// Before the declarations, `dvp_dead_letters_summarized_total` (labelled by `part`) also rendered an unlabelled
    /// `0` series — it was missing from the hand-kept exclusion list; a labelled family now never does.
    static let empty = #"""
        # HELP dvp_records_consumed_total Kafka records taken from the daily-values topic.
        # TYPE dvp_records_consumed_total counter
        dvp_records_consumed_total 0
        # HELP dvp_upserts_total Upsert outcomes by outcome (inserted, updated, unchanged, stale, retracted, conflict, expired, erased).
        # TYPE dvp_upserts_total counter
        # HELP dvp_skipped_not_newer_total Records dropped before the store: a cached stored version was newer, or equal with the same value.
        # TYPE dvp_skipped_not_newer_total counter
        dvp_skipped_not_newer_total 0
        # HELP dvp_dead_lettered_total Records sent to the dead-letter topic, by error class.
        # TYPE dvp_dead_lettered_total counter
        # HELP dvp_source_fields_omitted_total Source fields left out of accepted records because they exceed their stored cap, by field.
        # TYPE dvp_source_fields_omitted_total counter
        # HELP dvp_store_errors_total Failed store calls (each is retried with backoff).
        # TYPE dvp_store_errors_total counter
        dvp_store_errors_total 0
        # HELP dvp_dead_letter_errors_total Failed dead-letter deliveries (each is retried).
        # TYPE dvp_dead_letter_errors_total counter
        dvp_dead_letter_errors_total 0
        # HELP dvp_dead_letters_summarized_total Dead letters delivered with a part replaced by its size and hash to fit the size limit, by part.
        # TYPE dvp_dead_letters_summarized_total counter
        # HELP dvp_offset_commit_errors_total Offset commit calls that failed.
        # TYPE dvp_offset_commit_errors_total counter
        dvp_offset_commit_errors_total 0
        # HELP dvp_offset_store_refused_total Offsets not stored because the partition was revoked or lost while its batch was in flight.
        # TYPE dvp_offset_store_refused_total counter
        dvp_offset_store_refused_total 0
        # HELP dvp_stale_records_dropped_total Records dropped because their partition was revoked or lost after they were fetched.
        # TYPE dvp_stale_records_dropped_total counter
        dvp_stale_records_dropped_total 0
        # HELP dvp_rebalances_total Partition assignments and revocations, by kind.
        # TYPE dvp_rebalances_total counter
        # HELP dvp_batch_duration_seconds Time from a batch's start to its durable offsets.
        # TYPE dvp_batch_duration_seconds histogram
        dvp_batch_duration_seconds_bucket{le="0.005"} 0
        dvp_batch_duration_seconds_bucket{le="0.01"} 0
        dvp_batch_duration_seconds_bucket{le="0.025"} 0
        dvp_batch_duration_seconds_bucket{le="0.05"} 0
        dvp_batch_duration_seconds_bucket{le="0.1"} 0
        dvp_batch_duration_seconds_bucket{le="0.25"} 0
        dvp_batch_duration_seconds_bucket{le="0.5"} 0
        dvp_batch_duration_seconds_bucket{le="1.0"} 0
        dvp_batch_duration_seconds_bucket{le="2.5"} 0
        dvp_batch_duration_seconds_bucket{le="5.0"} 0
        dvp_batch_duration_seconds_bucket{le="10.0"} 0
        dvp_batch_duration_seconds_bucket{le="+Inf"} 0
        dvp_batch_duration_seconds_sum 0.0
        dvp_batch_duration_seconds_count 0
        # HELP dvp_consumer_lag Messages behind the partition's high watermark, from librdkafka statistics.
        # TYPE dvp_consumer_lag gauge
        # HELP dvp_assigned_partitions Partitions currently assigned to this worker.
        # TYPE dvp_assigned_partitions gauge
        # HELP dvp_paused 1 while consumption is paused because the store or the dead-letter topic is failing.
        # TYPE dvp_paused gauge
        # HELP dvp_ready 1 when the worker is ready (store and broker healthy).
        # TYPE dvp_ready gauge
        # HELP dvp_id_key_file_insecure 1 when --id-key-file may be read by other users or by a group the worker is not in.
        # TYPE dvp_id_key_file_insecure gauge
        # HELP dvp_retention_gaps_total Partitions whose committed offset had fallen behind the log start (data lost to retention before it was read).
        # TYPE dvp_retention_gaps_total counter
        dvp_retention_gaps_total 0
        # HELP dvp_erased_dead_letters_total Invalid records of erased or withdrawn persons: dropped without their content, never dead-lettered.
        # TYPE dvp_erased_dead_letters_total counter
        dvp_erased_dead_letters_total 0

        """#

    static let written = #"""
        # HELP dvp_records_consumed_total Kafka records taken from the daily-values topic.
        # TYPE dvp_records_consumed_total counter
        dvp_records_consumed_total 1200
        # HELP dvp_upserts_total Upsert outcomes by outcome (inserted, updated, unchanged, stale, retracted, conflict, expired, erased).
        # TYPE dvp_upserts_total counter
        dvp_upserts_total{outcome="conflict"} 1
        dvp_upserts_total{outcome="inserted"} 5
        dvp_upserts_total{outcome="updated"} 2
        # HELP dvp_skipped_not_newer_total Records dropped before the store: a cached stored version was newer, or equal with the same value.
        # TYPE dvp_skipped_not_newer_total counter
        dvp_skipped_not_newer_total 3
        # HELP dvp_dead_lettered_total Records sent to the dead-letter topic, by error class.
        # TYPE dvp_dead_lettered_total counter
        dvp_dead_lettered_total{class="DailyValueError"} 4
        dvp_dead_lettered_total{class="KafkaError"} 1
        # HELP dvp_source_fields_omitted_total Source fields left out of accepted records because they exceed their stored cap, by field.
        # TYPE dvp_source_fields_omitted_total counter
        dvp_source_fields_omitted_total{field="source.model"} 1
        # HELP dvp_store_errors_total Failed store calls (each is retried with backoff).
        # TYPE dvp_store_errors_total counter
        dvp_store_errors_total 2
        # HELP dvp_dead_letter_errors_total Failed dead-letter deliveries (each is retried).
        # TYPE dvp_dead_letter_errors_total counter
        dvp_dead_letter_errors_total 0
        # HELP dvp_dead_letters_summarized_total Dead letters delivered with a part replaced by its size and hash to fit the size limit, by part.
        # TYPE dvp_dead_letters_summarized_total counter
        # HELP dvp_offset_commit_errors_total Offset commit calls that failed.
        # TYPE dvp_offset_commit_errors_total counter
        dvp_offset_commit_errors_total 0
        # HELP dvp_offset_store_refused_total Offsets not stored because the partition was revoked or lost while its batch was in flight.
        # TYPE dvp_offset_store_refused_total counter
        dvp_offset_store_refused_total 0
        # HELP dvp_stale_records_dropped_total Records dropped because their partition was revoked or lost after they were fetched.
        # TYPE dvp_stale_records_dropped_total counter
        dvp_stale_records_dropped_total 0
        # HELP dvp_rebalances_total Partition assignments and revocations, by kind.
        # TYPE dvp_rebalances_total counter
        dvp_rebalances_total{kind="assigned"} 3
        dvp_rebalances_total{kind="revoked"} 1
        # HELP dvp_batch_duration_seconds Time from a batch's start to its durable offsets.
        # TYPE dvp_batch_duration_seconds histogram
        dvp_batch_duration_seconds_bucket{le="0.005"} 0
        dvp_batch_duration_seconds_bucket{le="0.01"} 0
        dvp_batch_duration_seconds_bucket{le="0.025"} 0
        dvp_batch_duration_seconds_bucket{le="0.05"} 1
        dvp_batch_duration_seconds_bucket{le="0.1"} 1
        dvp_batch_duration_seconds_bucket{le="0.25"} 1
        dvp_batch_duration_seconds_bucket{le="0.5"} 1
        dvp_batch_duration_seconds_bucket{le="1.0"} 2
        dvp_batch_duration_seconds_bucket{le="2.5"} 2
        dvp_batch_duration_seconds_bucket{le="5.0"} 2
        dvp_batch_duration_seconds_bucket{le="10.0"} 2
        dvp_batch_duration_seconds_bucket{le="+Inf"} 3
        dvp_batch_duration_seconds_sum 12.73
        dvp_batch_duration_seconds_count 3
        # HELP dvp_consumer_lag Messages behind the partition's high watermark, from librdkafka statistics.
        # TYPE dvp_consumer_lag gauge
        dvp_consumer_lag{topic="daily-values",partition="0"} 12
        dvp_consumer_lag{topic="daily-values",partition="10"} 3
        dvp_consumer_lag{topic="daily-values",partition="2"} 7
        # HELP dvp_assigned_partitions Partitions currently assigned to this worker.
        # TYPE dvp_assigned_partitions gauge
        dvp_assigned_partitions 3
        # HELP dvp_paused 1 while consumption is paused because the store or the dead-letter topic is failing.
        # TYPE dvp_paused gauge
        dvp_paused 0
        # HELP dvp_ready 1 when the worker is ready (store and broker healthy).
        # TYPE dvp_ready gauge
        dvp_ready 1
        # HELP dvp_id_key_file_insecure 1 when --id-key-file may be read by other users or by a group the worker is not in.
        # TYPE dvp_id_key_file_insecure gauge
        # HELP dvp_retention_gaps_total Partitions whose committed offset had fallen behind the log start (data lost to retention before it was read).
        # TYPE dvp_retention_gaps_total counter
        dvp_retention_gaps_total 1
        # HELP dvp_erased_dead_letters_total Invalid records of erased or withdrawn persons: dropped without their content, never dead-lettered.
        # TYPE dvp_erased_dead_letters_total counter
        dvp_erased_dead_letters_total 0

        """#
}
