import DailyValueContract
import Essentials
import JSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a `dlq redrive` run did (or, in a dry run, would do): counts, and the reasons records fail again.
public struct RedriveSummary: Sendable, Equatable {
    public var dryRun: Bool
    public var group: String
    /// Dead letters read from the topic.
    public var read = 0
    /// Read but not selected by the filters (left in the dead-letter topic).
    public var skipped = 0
    /// Republished to their origin topic (would be, in a dry run).
    public var republished = 0
    /// Copied to the quarantine topic, per reason (would be, in a dry run).
    public var quarantined: [QuarantineReason: Int] = [:]
    /// Dropped because their person is erased or has withdrawn consent (would be, in a dry run): never republished
    /// or quarantined.
    public var erased = 0
    /// The detail of each quarantine (e.g. the validation error), with counts; never a value or a key.
    public var reasons: [String: Int] = [:]
    /// Whether the run stopped at `--max` before the end of the topic.
    public var stoppedAtMax = false

    public init(dryRun: Bool, group: String) {
        self.dryRun = dryRun
        self.group = group
    }

    /// Selected records: republished, quarantined, or dropped as erased.
    public var selected: Int { republished + quarantinedTotal + erased }
    public var quarantinedTotal: Int { quarantined.values.reduce(0, +) }

    /// Counts `action`.
    public mutating func count(_ action: RedriveAction) {
        read += 1
        switch action {
        case .skip: skipped += 1
        case .republish: republished += 1
        case .erased: erased += 1
        case .quarantine(let reason, let detail, _):
            quarantined[reason, default: 0] += 1
            reasons["\(reason.rawValue): \(detail)", default: 0] += 1
        }
    }

    /// The exit status: 0 when every selected record was (or would be) republished, 1 when some were quarantined.
    public var exitStatus: Int32 { quarantinedTotal == 0 ? 0 : 1 }

    /// `label count` lines (the worker's summary format), then the quarantine reasons.
    public var plainText: String {
        let verb = dryRun ? "would-" : ""
        var lines = [
            "mode             \(dryRun ? "dry-run" : "redrive")",
            "group            \(group)",
            "read             \(read)",
            "skipped          \(skipped)",
            "selected         \(selected)",
            "\(verb)republish".padded(to: 17) + "\(republished)",
            "\(verb)quarantine".padded(to: 17) + "\(quarantinedTotal)",
        ]
        for reason in QuarantineReason.allCases where quarantined[reason] != nil {
            lines.append(
                "  \(reason.rawValue.padded(to: 15))\(quarantined[reason]!)")
        }
        // Dropped (would be, in a dry run): an erased or withdrawn person's, neither republished nor quarantined.
        lines.append("erased".padded(to: 17) + "\(erased)")
        if stoppedAtMax { lines.append("stopped at --max: run again to continue") }
        if !reasons.isEmpty {
            lines.append(dryRun ? "would fail again or cannot be restored:" : "quarantined because:")
            lines += reasons.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "  \($0.value)\t\($0.key)" }
        }
        return lines.joined(separator: "\n")
    }

    /// One JSON object (`--json`).
    public var json: String {
        JSONWriter.string(capacity: 2048) { w in
            w.beginObject()
            w.key("mode"); w.value(dryRun ? "dry-run" : "redrive")
            w.key("group"); w.value(group)
            w.key("read"); w.value(Int64(read))
            w.key("skipped"); w.value(Int64(skipped))
            w.key("selected"); w.value(Int64(selected))
            w.key("republished"); w.value(Int64(republished))
            w.key("erased"); w.value(Int64(erased))
            w.key("quarantined"); w.beginObject()
            for reason in QuarantineReason.allCases where quarantined[reason] != nil {
                w.key(text: reason.rawValue); w.value(Int64(quarantined[reason]!))
            }
            w.endObject()
            w.key("reasons"); w.beginObject()
            for (text, n) in reasons.sorted(by: { $0.key < $1.key }) {
                w.key(text: text); w.value(Int64(n))
            }
            w.endObject()
            w.key("stoppedAtMax"); w.rawValue(Array((stoppedAtMax ? "true" : "false").utf8))
            w.endObject()
        }
    }
}
