import DailyValueContract
import Essentials
import JSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension DeadLetterStatistics {
    // MARK: - Plain text

    /// The report for a terminal: totals, the retention watch, then counts per dimension.
    public func plainText(now: Date, group: String) -> String {
        var lines = [
            "topic              \(topic)",
            "dead letters       \(total)",
            "unread             \(unread)   (after group \(group)'s committed offsets)",
            "unrestorable       \(unrestorable)   (event replaced by a summary: cannot be redriven)",
            "retention          \(retentionText)",
        ]
        if oldestUnreadTimestampMs != nil {
            let age = oldestUnreadAgeSeconds(now: now)
            var line = "oldest unread      \(Self.duration(age)) old"
            if retentionMs > 0 {
                let left = Double(retentionMs) / 1000 - age
                line += left > 0 ? ", expires in \(Self.duration(left))" : ", past retention: may be gone"
                line += " (\(Int((retentionUsed(now: now) * 100).rounded()))% of retention)"
            }
            lines.append(line)
        } else {
            lines.append("oldest unread      none")
        }
        lines += Self.section("by error class", byClass)
        lines += Self.section("by stage", byStage)
        lines += Self.section("by origin", byOrigin)
        lines += Self.section("by worker version", byWorkerVersion)
        lines += Self.section("by \(window.rawValue) dead-lettered (UTC)", byWindow)
        lines += Self.section(
            "by redrive count", Dictionary(uniqueKeysWithValues: byRedriveCount.map { (String($0), $1) }))
        return lines.joined(separator: "\n")
    }

    private var retentionText: String {
        let amount = retentionMs < 0 ? "unlimited" : Self.duration(Double(retentionMs) / 1000)
        return "\(amount) (\(retentionSource.rawValue)" + (retentionNote.map { "; \($0)" } ?? "") + ")"
    }

    private static func section(_ title: String, _ counts: [String: Int]) -> [String] {
        guard !counts.isEmpty else { return [] }
        let width = max(16, counts.keys.map(\.count).max() ?? 0)
        return [title + ":"]
            + counts.sorted { $0.key < $1.key }.map {
                "  " + $0.key.padded(to: width) + " \($0.value)"
            }
    }

    /// `3d 4h`, `2h 13m`, `45s`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s >= 86_400 { return "\(s / 86_400)d \(s % 86_400 / 3600)h" }
        if s >= 3600 { return "\(s / 3600)h \(s % 3600 / 60)m" }
        if s >= 60 { return "\(s / 60)m \(s % 60)s" }
        return "\(s)s"
    }

    // MARK: - JSON

    /// One JSON object with every figure (`--json`).
    public func json(now: Date, group: String) -> String {
        JSONWriter.string(capacity: 4096) { w in
            w.beginObject()
            w.key("topic"); w.value(topic)
            w.key("group"); w.value(group)
            w.key("total"); w.value(Int64(total))
            w.key("unread"); w.value(Int64(unread))
            w.key("unrestorable"); w.value(Int64(unrestorable))
            w.key("retentionMs"); w.value(retentionMs)
            w.key("retentionSource"); w.value(retentionSource.rawValue)
            if let retentionNote { w.key("retentionNote"); w.value(retentionNote) }
            w.key("oldestUnreadAgeSeconds"); w.value(oldestUnreadAgeSeconds(now: now).rounded())
            for (name, counts) in [
                ("byClass", byClass), ("byStage", byStage), ("byOrigin", byOrigin),
                ("byWorkerVersion", byWorkerVersion), ("byWindow", byWindow),
                ("byRedriveCount", Dictionary(uniqueKeysWithValues: byRedriveCount.map { (String($0), $1) })),
            ] {
                w.key(text: name)
                w.beginObject()
                for (key, count) in counts.sorted(by: { $0.key < $1.key }) {
                    w.key(text: key)
                    w.value(Int64(count))
                }
                w.endObject()
            }
            w.endObject()
        }
    }

    // MARK: - Prometheus

    /// The figures in Prometheus' text format, for a node-exporter textfile collector or a Pushgateway.
    public func prometheusText(now: Date, group: String) -> String {
        let t = "topic=\"\(Self.escape(topic))\""
        let tg = t + ",group=\"\(Self.escape(group))\""
        var out = ""
        func gauge(_ name: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for (labels, value) in samples { out += "\(name){\(labels)} \(Self.number(value))\n" }
        }
        gauge("dvp_dlq_records", "Dead letters in the topic.", [(t, Double(total))])
        gauge(
            "dvp_dlq_unread_records", "Dead letters after the redrive group's committed offsets.",
            [(tg, Double(unread))])
        gauge(
            "dvp_dlq_unrestorable_records", "Dead letters whose event was replaced by a summary.",
            [(t, Double(unrestorable))])
        gauge(
            "dvp_dlq_oldest_unread_age_seconds", "Age of the oldest unread dead letter (record timestamp); 0 if none.",
            [(tg, oldestUnreadAgeSeconds(now: now).rounded())])
        gauge(
            "dvp_dlq_retention_seconds", "The dead-letter topic's retention (-1: unlimited).",
            [(t + ",source=\"\(retentionSource.rawValue)\"", retentionMs < 0 ? -1 : Double(retentionMs) / 1000)])
        gauge(
            "dvp_dlq_records_by_class", "Dead letters per error class.",
            byClass.sorted { $0.key < $1.key }.map { (t + ",class=\"\(Self.escape($0.key))\"", Double($0.value)) })
        gauge(
            "dvp_dlq_stats_timestamp_seconds", "When these figures were taken.",
            [(t, now.timeIntervalSince1970.rounded())])
        return out
    }

    private static func escape(_ text: String) -> String {
        text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            .replacing("\n", with: "\\n")
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
