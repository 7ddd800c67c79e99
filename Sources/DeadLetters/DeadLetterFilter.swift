import Hashing
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Which dead letters a `dlq` command selects. Every condition given must hold; an empty filter selects all.
public struct DeadLetterFilter: Sendable, Equatable {
    /// Error classes to select (`--error-class`, repeatable); empty: any.
    public var errorClasses: Set<String> = []
    /// Dead-lettered at or after this instant (`--since`).
    public var since: Date?
    /// Dead-lettered before this instant (`--until`).
    public var until: Date?
    /// Origin partitions to select (`--origin-partition`, repeatable); empty: any.
    public var originPartitions: Set<Int32> = []
    /// The Kafka key (a patient id) to select (`--key`); compared, never printed.
    public var key: [UInt8]?

    public init() {}

    /// Whether no condition is set.
    public var isEmpty: Bool { self == DeadLetterFilter() }

    /// Whether `letter` is selected.
    public func matches(_ letter: DeadLetterView) -> Bool {
        if !errorClasses.isEmpty, !errorClasses.contains(letter.errorClass) { return false }
        if !originPartitions.isEmpty {
            guard let partition = letter.originPartition, originPartitions.contains(partition) else { return false }
        }
        if let key, letter.record.key != key { return false }
        if since != nil || until != nil {
            guard let failedAt = letter.failedAt else { return false }
            if let since, failedAt < since { return false }
            if let until, failedAt >= until { return false }
        }
        return true
    }

    /// A stable fingerprint of the conditions (the key only as part of a digest), e.g. to name a consumer group
    /// per filter so that a run with other filters starts from the beginning of the topic.
    public var fingerprint: String {
        var parts: [String] = []
        parts.append("class=" + errorClasses.sorted().joined(separator: ","))
        parts.append("since=" + (since.map { String(Int64($0.timeIntervalSince1970 * 1000)) } ?? ""))
        parts.append("until=" + (until.map { String(Int64($0.timeIntervalSince1970 * 1000)) } ?? ""))
        parts.append("partition=" + originPartitions.sorted().map(String.init).joined(separator: ","))
        parts.append("key=" + (key.map { SHA256.hex($0) } ?? ""))
        return String(SHA256.hex(Array(parts.joined(separator: "\n").utf8)).prefix(12))
    }
}
