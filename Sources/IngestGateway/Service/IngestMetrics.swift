import Observability

// Every metric family the gateway exports, declared once; call sites write through these handles
// (`metrics.increment(.ingestRequests, label: "202")`), and `Metrics.ingestFamilies` is the gateway registry's list.

extension Metrics.LabelledCounter {
    /// `dvp_ingest_requests_total{status}`: answers to `POST /v1/daily-values`, by HTTP status.
    public static let ingestRequests = Self(
        "dvp_ingest_requests_total", label: "status", help: "Answers to POST /v1/daily-values, by HTTP status.")
    /// `dvp_ingest_records_accepted_total{tenant}`: records acknowledged by the broker and receipted with 202.
    public static let ingestRecordsAccepted = Self(
        "dvp_ingest_records_accepted_total", label: "tenant",
        help: "Records the broker acknowledged and a 202 receipted, by the credential's tenant.")
    /// `dvp_ingest_credential_reloads_total{result}`: re-reads of a changed credential file (loaded, refused).
    public static let ingestCredentialReloads = Self(
        "dvp_ingest_credential_reloads_total", label: "result",
        help: "Re-reads of a changed credential file: loaded, or refused (the previous one stays in use).")
    /// `dvp_ingest_throttled_total{limit}`: 429 answers, by the bound that was reached.
    public static let ingestThrottled = Self(
        "dvp_ingest_throttled_total", label: "limit",
        help: "Requests answered 429, by the bound reached (concurrent-requests, in-flight-bytes, tenant-requests, "
            + "tenant-in-flight-bytes).")
    /// `dvp_ingest_connections_cut_total{reason}`: public connections cut off as too slow, by why.
    public static let ingestConnectionsCut = Self(
        "dvp_ingest_connections_cut_total", label: "reason",
        help: "Connections cut off as too slow (slow-head: --head-timeout, slow-body: --min-body-rate, deadline).")
    /// `dvp_ingest_erasure_ledger_reads_total{result}`: background reads of the erasure ledger (`--erasure-store`).
    public static let ingestErasureLedgerReads = Self(
        "dvp_ingest_erasure_ledger_reads_total", label: "result",
        help: "Background reads of the erasure ledger (--erasure-store): read, or failed (the last one read stays in "
            + "use).")
    /// `dvp_ingest_unavailable_total{reason}`: 503 answers, by why.
    public static let ingestUnavailable = Self(
        "dvp_ingest_unavailable_total", label: "reason",
        help: "Requests answered 503, by reason (deadline, not-acknowledged, stopping).")
}

extension Metrics.TwoLabelCounter {
    /// `dvp_ingest_records_rejected_total{reason,tenant}`: records of requests that were not accepted, by why and by
    /// the credential's tenant.
    public static let ingestRecordsRejected = Self(
        "dvp_ingest_records_rejected_total", labels: "reason", "tenant",
        help: "Records of refused requests, by reason (invalid, malformed, out-of-scope, erased, not-acknowledged) and "
            + "tenant.")
}

extension Metrics.Counter {
    /// `dvp_ingest_received_bytes_total`: request body bytes as sent (gzip still applied).
    public static let ingestReceivedBytes = Self(
        "dvp_ingest_received_bytes_total", help: "Request body bytes as received (before gzip is undone).")
    /// `dvp_ingest_decoded_bytes_total`: request body bytes after gzip was undone.
    public static let ingestDecodedBytes = Self(
        "dvp_ingest_decoded_bytes_total", help: "Request body bytes after gzip was undone.")
    /// `dvp_ingest_idempotent_replays_total`: retries answered from a kept receipt, nothing published.
    public static let ingestIdempotentReplays = Self(
        "dvp_ingest_idempotent_replays_total",
        help: "Requests with an Idempotency-Key answered from a kept receipt (nothing published again).")
    /// `dvp_ingest_idempotency_evictions_total`: receipts dropped before their TTL to stay within the bounds.
    public static let ingestIdempotencyEvictions = Self(
        "dvp_ingest_idempotency_evictions_total",
        help: "Kept receipts dropped before their TTL to stay within --idempotency-max-keys/-records.")
}

extension Metrics.Histogram {
    /// `dvp_ingest_request_duration_seconds`: a POST's head to its answer.
    public static let ingestRequestDuration = Self(
        "dvp_ingest_request_duration_seconds", help: "Time from a POST's head to its answer.",
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
}

extension Metrics.Gauge {
    /// `dvp_ingest_in_flight_requests`: admitted and not yet answered.
    public static let ingestInFlightRequests = Self(
        "dvp_ingest_in_flight_requests", help: "POST requests admitted and not yet finished.")
    /// `dvp_ingest_in_flight_bytes`: their body bytes.
    public static let ingestInFlightBytes = Self(
        "dvp_ingest_in_flight_bytes", help: "Body bytes of the POST requests admitted and not yet finished.")
    /// `dvp_ingest_ready`: 1 when ready.
    public static let ingestReady = Self(
        "dvp_ingest_ready", help: "1 when the gateway is ready (the brokers answer; the producer is usable).")
    /// `dvp_ingest_erasure_refused_persons`: persons the erasure ledger refuses, as last read.
    public static let ingestErasureRefusedPersons = Self(
        "dvp_ingest_erasure_refused_persons",
        help: "Persons the erasure ledger (--erasure-store) refuses, as last read: erased, or consent withdrawn.")
    /// `dvp_ingest_erasure_ledger_read_timestamp_seconds`: when the erasure ledger was last read.
    public static let ingestErasureLedgerReadTime = Self(
        "dvp_ingest_erasure_ledger_read_timestamp_seconds",
        help: "When the erasure ledger (--erasure-store) was last read, in seconds since the epoch (0: never).")
    /// `dvp_ingest_insecure_no_auth`: 1 when running without authentication.
    public static let ingestInsecureNoAuth = Self(
        "dvp_ingest_insecure_no_auth", help: "1 when the gateway runs with --insecure-no-auth (no authentication).")
}

extension Metrics {
    /// Every family of the gateway, in exposition order.
    public static let ingestFamilies: [MetricFamily] = [
        LabelledCounter.ingestRequests.family, LabelledCounter.ingestRecordsAccepted.family,
        TwoLabelCounter.ingestRecordsRejected.family, Counter.ingestReceivedBytes.family,
        Counter.ingestDecodedBytes.family, Histogram.ingestRequestDuration.family,
        Gauge.ingestInFlightRequests.family, Gauge.ingestInFlightBytes.family,
        LabelledCounter.ingestThrottled.family, LabelledCounter.ingestUnavailable.family,
        LabelledCounter.ingestConnectionsCut.family, LabelledCounter.ingestCredentialReloads.family,
        Counter.ingestIdempotentReplays.family, Counter.ingestIdempotencyEvictions.family,
        Gauge.ingestReady.family, Gauge.ingestInsecureNoAuth.family,
        LabelledCounter.ingestErasureLedgerReads.family, Gauge.ingestErasureRefusedPersons.family,
        Gauge.ingestErasureLedgerReadTime.family,
    ]

    /// The gateway's registry: every family of ``ingestFamilies``, empty.
    public static func ingest() -> Metrics { Metrics(families: ingestFamilies) }
}
