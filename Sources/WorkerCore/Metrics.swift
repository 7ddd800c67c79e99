import Foundation
import Synchronization

/// The worker's Prometheus metrics: counters, gauges and one histogram, rendered in the text exposition format.
public final class Metrics: Sendable {
    /// Bucket upper bounds (seconds) of the batch duration histogram.
    static let durationBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct State {
        var counters: [String: Double] = [:]
        var gauges: [String: Double] = [:]
        var bucketCounts = [UInt64](repeating: 0, count: Metrics.durationBuckets.count)
        var durationSum = 0.0
        var durationCount: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Help texts and types of every metric family, in exposition order.
    private static let families: [(name: String, type: String, help: String)] = [
        ("dvp_records_consumed_total", "counter", "Kafka records taken from the daily-values topic."),
        ("dvp_upserts_total", "counter",
         "Upsert outcomes by outcome (inserted, updated, unchanged, stale, retracted, conflict)."),
        ("dvp_skipped_not_newer_total", "counter",
         "Records dropped before the store: a cached stored version was newer, or equal with the same value."),
        ("dvp_dead_lettered_total", "counter", "Records sent to the dead-letter topic, by error class."),
        ("dvp_source_fields_omitted_total", "counter",
         "Source fields left out of accepted records because they exceed their stored cap, by field."),
        ("dvp_store_errors_total", "counter", "Failed store calls (each is retried with backoff)."),
        ("dvp_dead_letter_errors_total", "counter", "Failed dead-letter deliveries (each is retried)."),
        ("dvp_dead_letters_summarized_total", "counter",
         "Dead letters delivered with a part replaced by its size and hash to fit the size limit, by part."),
        ("dvp_offset_commit_errors_total", "counter", "Offset commit calls that failed."),
        ("dvp_offset_store_refused_total", "counter",
         "Offsets not stored because the partition was revoked or lost while its batch was in flight."),
        ("dvp_stale_records_dropped_total", "counter",
         "Records dropped because their partition was revoked or lost after they were fetched."),
        ("dvp_rebalances_total", "counter", "Partition assignments and revocations, by kind."),
        ("dvp_batch_duration_seconds", "histogram", "Time from a batch's start to its durable offsets."),
        ("dvp_consumer_lag", "gauge", "Messages behind the partition's high watermark, from librdkafka statistics."),
        ("dvp_assigned_partitions", "gauge", "Partitions currently assigned to this worker."),
        ("dvp_paused", "gauge", "1 while consumption is paused because the store or the dead-letter topic is failing."),
        ("dvp_ready", "gauge", "1 when the worker is ready (store and broker healthy)."),
        ("dvp_id_key_file_insecure", "gauge",
         "1 when --id-key-file may be read by other users or by a group the worker is not in."),
        ("dvp_retention_gaps_total", "counter",
         "Partitions whose committed offset had fallen behind the log start (data lost to retention before it was read)."),
    ]

    /// An empty registry.
    public init() {}

    /// Adds `value` to a counter; `labels` like `outcome="inserted"`.
    public func increment(_ name: String, labels: String = "", by value: Double = 1) {
        let key = labels.isEmpty ? name : "\(name){\(labels)}"
        state.withLock { $0.counters[key, default: 0] += value }
    }

    /// Sets a gauge series.
    public func set(_ name: String, labels: String = "", _ value: Double) {
        let key = labels.isEmpty ? name : "\(name){\(labels)}"
        state.withLock { $0.gauges[key] = value }
    }

    /// Removes every series of a gauge family (e.g. lag of partitions no longer assigned).
    public func clearGauge(_ name: String) {
        state.withLock { s in s.gauges = s.gauges.filter { !$0.key.hasPrefix(name + "{") && $0.key != name } }
    }

    /// Records one batch's duration in the `dvp_batch_duration_seconds` histogram.
    public func observeBatchDuration(_ seconds: Double) {
        state.withLock { s in
            for (i, bound) in Self.durationBuckets.enumerated() where seconds <= bound { s.bucketCounts[i] += 1 }
            s.durationSum += seconds
            s.durationCount += 1
        }
    }

    /// The current value of a counter series (for summaries and tests).
    public func counter(_ name: String, labels: String = "") -> Double {
        let key = labels.isEmpty ? name : "\(name){\(labels)}"
        return state.withLock { $0.counters[key] ?? 0 }
    }

    /// The Prometheus text exposition (version 0.0.4).
    public func render() -> String {
        let s = state.withLock { $0 }
        var out = ""
        for family in Self.families {
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            if family.type == "histogram" {
                for (i, bound) in Self.durationBuckets.enumerated() {
                    out += "\(family.name)_bucket{le=\"\(bound)\"} \(s.bucketCounts[i])\n"
                }
                out += "\(family.name)_bucket{le=\"+Inf\"} \(s.durationCount)\n"
                out += "\(family.name)_sum \(s.durationSum)\n\(family.name)_count \(s.durationCount)\n"
                continue
            }
            let series = (family.type == "counter" ? s.counters : s.gauges)
                .filter { $0.key == family.name || $0.key.hasPrefix(family.name + "{") }
                .sorted { $0.key < $1.key }
            if series.isEmpty && family.type == "counter" && !family.name.contains("upserts")
                && !family.name.contains("dead_lettered") && !family.name.contains("rebalances")
                && !family.name.contains("source_fields")
            {
                out += "\(family.name) 0\n"
            }
            for (key, value) in series {
                out += "\(key) \(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value))\n"
            }
        }
        return out
    }
}
