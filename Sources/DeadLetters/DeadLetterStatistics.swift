import DailyValueContract
import Essentials
import Kafka

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Counts of dead letters by error class, stage, origin, worker version and time window, and the age of the oldest
/// unread one against the topic's retention. Never holds a value, a key or a patient id.
public struct DeadLetterStatistics: Sendable {
    /// The width of a time window.
    public enum Window: String, Sendable, CaseIterable {
        case hour, day

        /// The window's label for `date` (UTC): `2026-12-02T13` or `2026-12-02`.
        func label(_ date: Date) -> String {
            let seconds = Int(date.timeIntervalSince1970.rounded(.down))
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let day = CivilDate(daysSinceEpoch: days)
            let text =
                FixedFormat.digits(day.year, width: 4) + "-" + FixedFormat.digits(day.month, width: 2) + "-"
                + FixedFormat.digits(day.day, width: 2)
            let hour = (seconds - days * 86_400) / 3600
            return self == .hour ? text + "T" + FixedFormat.digits(hour, width: 2) : text
        }
    }

    /// Where the retention figure came from.
    public enum RetentionSource: String, Sendable {
        /// The topic's `retention.ms` from the broker (DescribeConfigs).
        case broker
        /// The operator's `--retention`.
        case option = "--retention"
        /// Neither: Kafka's default of 7 days is assumed.
        case assumed = "assumed Kafka default"
    }

    public let topic: String
    public let window: Window
    public private(set) var total = 0
    /// Records after the redrive group's committed offsets.
    public private(set) var unread = 0
    /// Records whose event was replaced by a summary (cannot be redriven).
    public private(set) var unrestorable = 0
    public private(set) var byClass: [String: Int] = [:]
    public private(set) var byStage: [String: Int] = [:]
    public private(set) var byOrigin: [String: Int] = [:]
    public private(set) var byWorkerVersion: [String: Int] = [:]
    public private(set) var byWindow: [String: Int] = [:]
    public private(set) var byRedriveCount: [Int: Int] = [:]
    /// The smallest record timestamp (the clock Kafka's time retention uses), over all and over unread records.
    public private(set) var oldestTimestampMs: Int64?
    public private(set) var oldestUnreadTimestampMs: Int64?
    /// The topic's retention, in milliseconds (-1: unlimited), and where it came from.
    public var retentionMs: Int64 = 7 * 86_400_000
    public var retentionSource: RetentionSource = .assumed
    /// Why the brokers' figure was not used, when it was not.
    public var retentionNote: String?

    public init(topic: String, window: Window) {
        self.topic = topic
        self.window = window
    }

    /// Counts `letter`; `isUnread` when it lies after the redrive group's committed offset.
    public mutating func add(_ letter: DeadLetterView, isUnread: Bool) {
        total += 1
        if letter.unrestorableReason != nil { unrestorable += 1 }
        byClass[letter.errorClass, default: 0] += 1
        byStage[letter.stage, default: 0] += 1
        let origin = "\(letter.originTopic ?? "unknown")[\(letter.originPartition.map(String.init) ?? "?")]"
        byOrigin[origin, default: 0] += 1
        byWorkerVersion[letter.workerVersion, default: 0] += 1
        byWindow[letter.failedAt.map(window.label) ?? "unknown", default: 0] += 1
        byRedriveCount[letter.redriveCount, default: 0] += 1
        if let ts = letter.record.timestampMs {
            oldestTimestampMs = min(oldestTimestampMs ?? ts, ts)
            if isUnread { oldestUnreadTimestampMs = min(oldestUnreadTimestampMs ?? ts, ts) }
        }
        if isUnread { unread += 1 }
    }

    /// The oldest unread record's age in seconds at `now`, or 0 when nothing is unread.
    public func oldestUnreadAgeSeconds(now: Date) -> Double {
        guard let ts = oldestUnreadTimestampMs else { return 0 }
        return max(0, now.timeIntervalSince1970 - Double(ts) / 1000)
    }

    /// The oldest unread record's age as a fraction of the retention (0 with unlimited retention).
    public func retentionUsed(now: Date) -> Double {
        retentionMs > 0 ? oldestUnreadAgeSeconds(now: now) / (Double(retentionMs) / 1000) : 0
    }
}
