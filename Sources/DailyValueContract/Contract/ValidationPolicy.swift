#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Limits the ``DailyValueDecoder`` enforces beyond the JSON shape. Defaults follow `DESIGN.md`.
public struct ValidationPolicy: Sendable {
    /// The largest accepted message, in bytes (64 KiB).
    public var maxPayloadBytes: Int
    /// How many days after today (UTC) `day` may be; 1 covers every zone up to +14:00.
    public var maxDaysInFuture: Int
    /// How many days before today (UTC) `day` may be (about ten years).
    public var maxDaysInPast: Int
    /// The longest accepted `source` field, in UTF-8 bytes (longer: `InvalidSource`); `source.name` is not stored
    /// unless the mapper opts in.
    public var maxSourceFieldBytes: Int
    /// The longest stored `source` fields, in UTF-8 bytes: `bundleId` (reverse DNS, e.g. `com.apple.health`),
    /// `model` (`Watch7,3`) and `softwareVersion` (`11.0.1`). They bound the resource size: a longer field is left
    /// out (see ``ValidatedDailyValue/omittedSourceFields``), the event is still accepted.
    public var maxBundleIdBytes: Int
    public var maxModelBytes: Int
    public var maxSoftwareVersionBytes: Int
    /// The deepest accepted JSON nesting (the event itself uses 2).
    public var maxNestingDepth: Int
    /// The clock the day window is measured against (tests and replays inject a fixed instant).
    public var now: @Sendable () -> Date

    public init(
        maxPayloadBytes: Int = 64 * 1024, maxDaysInFuture: Int = 1, maxDaysInPast: Int = 3653,
        maxSourceFieldBytes: Int = 256, maxBundleIdBytes: Int = 48, maxModelBytes: Int = 24,
        maxSoftwareVersionBytes: Int = 24, maxNestingDepth: Int = 16, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.maxPayloadBytes = maxPayloadBytes
        self.maxDaysInFuture = maxDaysInFuture
        self.maxDaysInPast = maxDaysInPast
        self.maxSourceFieldBytes = maxSourceFieldBytes
        self.maxBundleIdBytes = maxBundleIdBytes
        self.maxModelBytes = maxModelBytes
        self.maxSoftwareVersionBytes = maxSoftwareVersionBytes
        self.maxNestingDepth = maxNestingDepth
        self.now = now
    }

    /// A policy whose window is measured against a fixed instant.
    public static func fixed(now: Date) -> ValidationPolicy {
        ValidationPolicy(now: { now })
    }
}
