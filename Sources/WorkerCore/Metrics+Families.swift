import Observability

// Every metric family the worker exports, declared once. Call sites reference these values
// (`metrics.increment(.recordsConsumed, by: n)`); a family that is not listed in `Metrics.families` below cannot be
// written to the worker's registry (`Metrics()`). The kinds (`Metrics.Counter`, …) live with the registry in the
// shared Observability target. Their table, name, type and labels, is committed as
// charts/tests/worker-metric-families.json (checked by MetricFamilyTableTests), which scripts/check-monitoring.py
// holds the dashboard and the alert rules to.

// MARK: - Declarations

extension Metrics.Counter {
    /// `dvp_records_consumed_total`: records taken from the topic.
    public static let recordsConsumed = Self(
        "dvp_records_consumed_total", help: "Kafka records taken from the daily-values topic.")
    /// `dvp_skipped_not_newer_total`: records the version cache answered (also counted in their upsert outcome).
    public static let skippedNotNewer = Self(
        "dvp_skipped_not_newer_total",
        help: "Records dropped before the store: a cached stored version was newer, or equal with the same value.")
    /// `dvp_store_errors_total`: failed store calls.
    public static let storeErrors = Self(
        "dvp_store_errors_total", help: "Failed store calls (each is retried with backoff).")
    /// `dvp_erased_dead_letters_total`: invalid records of erased or withdrawn persons, dropped, not dead-lettered.
    public static let erasedDeadLetters = Self(
        "dvp_erased_dead_letters_total",
        help: "Invalid records of erased or withdrawn persons: dropped without their content, never dead-lettered.")
    /// `dvp_dead_letter_errors_total`: failed dead-letter deliveries.
    public static let deadLetterErrors = Self(
        "dvp_dead_letter_errors_total", help: "Failed dead-letter deliveries (each is retried).")
    /// `dvp_offset_commit_errors_total`: failed offset commits.
    public static let offsetCommitErrors = Self(
        "dvp_offset_commit_errors_total", help: "Offset commit calls that failed.")
    /// `dvp_offset_store_refused_total`: offsets not stored after a revoke or loss.
    public static let offsetStoreRefused = Self(
        "dvp_offset_store_refused_total",
        help: "Offsets not stored because the partition was revoked or lost while its batch was in flight.")
    /// `dvp_stale_records_dropped_total`: fetched records of partitions revoked or lost since.
    public static let staleRecordsDropped = Self(
        "dvp_stale_records_dropped_total",
        help: "Records dropped because their partition was revoked or lost after they were fetched.")
    /// `dvp_retention_gaps_total`: partitions that lost records to retention before they were read.
    public static let retentionGaps = Self(
        "dvp_retention_gaps_total",
        help: "Partitions whose committed offset had fallen behind the log start"
            + " (data lost to retention before it was read).")
}

extension Metrics.LabelledCounter {
    /// `dvp_upserts_total{outcome}`: an `UpsertOutcome` raw value.
    public static let upserts = Self(
        "dvp_upserts_total", label: "outcome",
        help: "Upsert outcomes by outcome (inserted, updated, unchanged, stale, retracted, conflict, expired, erased).")
    /// `dvp_dead_lettered_total{class}`: dead letters by error class.
    public static let deadLettered = Self(
        "dvp_dead_lettered_total", label: "class", help: "Records sent to the dead-letter topic, by error class.")
    /// `dvp_source_fields_omitted_total{field}`: source fields over their stored cap, by field.
    public static let sourceFieldsOmitted = Self(
        "dvp_source_fields_omitted_total", label: "field",
        help: "Source fields left out of accepted records because they exceed their stored cap, by field.")
    /// `dvp_dead_letters_summarized_total{part}`: dead-letter parts replaced by their size and hash.
    public static let deadLettersSummarized = Self(
        "dvp_dead_letters_summarized_total", label: "part",
        help: "Dead letters delivered with a part replaced by its size and hash to fit the size limit, by part.")
    /// `dvp_rebalances_total{kind}`: `assigned`, `revoked` or `lost`, counted in partitions.
    public static let rebalances = Self(
        "dvp_rebalances_total", label: "kind", help: "Partition assignments and revocations, by kind.")
}

extension Metrics.Histogram {
    /// `dvp_batch_duration_seconds`: a batch's start to its durable offsets.
    public static let batchDuration = Self(
        "dvp_batch_duration_seconds", help: "Time from a batch's start to its durable offsets.",
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
}

extension Metrics.PartitionGauge {
    /// `dvp_consumer_lag{topic,partition}`: the assignment's lag, replaced on every statistics refresh.
    public static let consumerLag = Self(
        "dvp_consumer_lag", help: "Messages behind the partition's high watermark, from librdkafka statistics.")
}

extension Metrics.Gauge {
    /// `dvp_assigned_partitions`.
    public static let assignedPartitions = Self(
        "dvp_assigned_partitions", help: "Partitions currently assigned to this worker.")
    /// `dvp_paused`: 1 while consumption is paused.
    public static let paused = Self(
        "dvp_paused", help: "1 while consumption is paused because the store or the dead-letter topic is failing.")
    /// `dvp_ready`: 1 when ready.
    public static let ready = Self("dvp_ready", help: "1 when the worker is ready (store and broker healthy).")
    /// `dvp_id_key_file_insecure`: 1 when the id key file is readable by others.
    public static let idKeyFileInsecure = Self(
        "dvp_id_key_file_insecure",
        help: "1 when --id-key-file may be read by other users or by a group the worker is not in.")
}

// MARK: - Exposition order

extension Metrics {
    /// Every declared family, in exposition order (``render()`` writes them in this order; dashboards do not care,
    /// but diffs of the exposition do). A family declared above must be listed here: writing one that is not traps
    /// in debug builds, and MetricFamilyTableTests compares this table with the committed file.
    public static let families: [MetricFamily] = [
        Counter.recordsConsumed.family, LabelledCounter.upserts.family, Counter.skippedNotNewer.family,
        LabelledCounter.deadLettered.family, LabelledCounter.sourceFieldsOmitted.family, Counter.storeErrors.family,
        Counter.deadLetterErrors.family, LabelledCounter.deadLettersSummarized.family,
        Counter.offsetCommitErrors.family, Counter.offsetStoreRefused.family, Counter.staleRecordsDropped.family,
        LabelledCounter.rebalances.family, Histogram.batchDuration.family, PartitionGauge.consumerLag.family,
        Gauge.assignedPartitions.family, Gauge.paused.family, Gauge.ready.family, Gauge.idKeyFileInsecure.family,
        Counter.retentionGaps.family, Counter.erasedDeadLetters.family,
    ]

    /// The names in ``families``.
    static let declaredNames = Set(families.map(\.name))

    /// The worker's registry: every family of ``families``, empty.
    public convenience init() {
        self.init(families: Self.families)
    }
}
