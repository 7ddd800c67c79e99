/// The header names of a dead-letter record, declared once for the worker that writes them and `dlq` that reads
/// them.
///
/// Kafka Connect's `__connect.errors.*` context headers (so generic tooling understands the record), our `x-dlq.*`
/// ones, and `x-redrive-count`, which `dlq redrive` sets on a republished event and the worker keeps (it keeps the
/// original headers) when that event is dead-lettered again.
public enum DeadLetterHeaders {
    /// The prefix of Kafka Connect's error context headers.
    public static let connectPrefix = "__connect.errors."
    /// The prefix of our own dead-letter headers.
    public static let dlqPrefix = "x-dlq."

    /// The topic the event was read from.
    public static let originTopic = "__connect.errors.topic"
    /// The partition the event was read from.
    public static let originPartition = "__connect.errors.partition"
    /// The offset the event was read from.
    public static let originOffset = "__connect.errors.offset"
    /// The stage that rejected it: `DESERIALIZE`, `VALIDATE` or `STORE`.
    public static let stage = "__connect.errors.stage"
    /// A stable error class, e.g. `ValueOutOfRange`.
    public static let errorClass = "__connect.errors.exception.class.name"
    /// The reason in words (field and rule; never the value or the patient id).
    public static let errorMessage = "__connect.errors.exception.message"

    /// The worker's consumer group.
    public static let consumerGroup = "x-dlq.consumer-group"
    /// The worker instance that dead-lettered the event.
    public static let workerID = "x-dlq.worker-id"
    /// The worker's version.
    public static let workerVersion = "x-dlq.worker-version"
    /// When the event was dead-lettered (RFC 3339).
    public static let failedAt = "x-dlq.failed-at"
    /// The original record's timestamp (ms since the epoch).
    public static let originalTimestamp = "x-dlq.original-timestamp"
    /// The SHA-256 of a value too large to copy, which was replaced by a summary envelope.
    public static let payloadSHA256 = "x-dlq.payload-sha256"
    /// A comma-separated list of what was replaced by a summary (`value`, `key`, `headers`) so the record fits.
    public static let summarized = "x-dlq.summarized"
    /// Describes a key too large to copy, which was left out: `{"size":N,"sha256":"…"}`.
    public static let originalKey = "x-dlq.original-key"
    /// Stands in for one header too large to copy: `{"name":"…","nameSize":N,"size":N,"sha256":"…"}`.
    public static let originalHeader = "x-dlq.original-header"
    /// Stands in for all original headers: `{"count":N,"size":N,"sha256":"…"}`.
    public static let originalHeaders = "x-dlq.original-headers"
    /// `true` when the original value was null (a tombstone); the dead letter's value is then empty.
    public static let originalValueNull = "x-dlq.original-value-null"
    /// Why `dlq redrive` moved the record to the quarantine topic instead of republishing it.
    public static let quarantineReason = "x-dlq.quarantine-reason"

    /// How many times `dlq redrive` has republished this event (absent: never).
    public static let redriveCount = "x-redrive-count"

    /// Whether `key` is an error header of an earlier attempt, which a republished event must not carry.
    public static func isAttemptHeader(_ key: String) -> Bool {
        key.hasPrefix(connectPrefix) || key.hasPrefix(dlqPrefix) || key == redriveCount
    }
}
