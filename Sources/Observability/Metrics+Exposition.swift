// MARK: - Prometheus text exposition

extension Metrics {
    /// The Prometheus text exposition (version 0.0.4): every family of ``families`` in order, `# HELP` and `# TYPE`
    /// first, then its series sorted by their text. An unlabelled counter never incremented renders `0`; a labelled
    /// family without series and an unset gauge render their two comment lines alone; a histogram renders all its
    /// buckets.
    public func render() -> String {
        let values = snapshot()
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.kind.rawValue)\n"
            if family.kind == .histogram {
                Self.renderHistogram(
                    family, values.histograms[family.name] ?? HistogramValues(bucketCount: family.buckets.count),
                    into: &out)
                continue
            }
            let series = values.series[family.name] ?? [:]
            if series.isEmpty && family.rendersZeroWhenEmpty {
                out += "\(family.name) 0\n"
            }
            for (key, value) in series.map({ (Self.seriesKey(family, $0.key), $0.value) }).sorted(by: { $0.0 < $1.0 }) {
                out += "\(key) \(Self.number(value))\n"
            }
        }
        return out
    }

    private static func renderHistogram(_ family: MetricFamily, _ h: HistogramValues, into out: inout String) {
        for (bound, count) in zip(family.buckets, h.bucketCounts) {
            out += "\(family.name)_bucket{le=\"\(bound)\"} \(count)\n"
        }
        out += "\(family.name)_bucket{le=\"+Inf\"} \(h.count)\n"
        out += "\(family.name)_sum \(h.sum)\n\(family.name)_count \(h.count)\n"
    }

    /// `name` or `name{label="value",…}` with the values escaped.
    static func seriesKey(_ family: MetricFamily, _ labelValues: [String]) -> String {
        guard !family.labelNames.isEmpty else { return family.name }
        let pairs = zip(family.labelNames, labelValues).map { "\($0)=\"\(escapeLabelValue($1))\"" }
        return "\(family.name){\(pairs.joined(separator: ","))}"
    }

    /// A label value as the text format writes it: backslash, double quote and line feed escaped (scalar by
    /// scalar, so the line feed of a `\r\n` pair is escaped too).
    static func escapeLabelValue(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var escaped = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": escaped.append(contentsOf: #"\\"#.unicodeScalars)
            case "\"": escaped.append(contentsOf: #"\""#.unicodeScalars)
            case "\n": escaped.append(contentsOf: #"\n"#.unicodeScalars)
            default: escaped.append(scalar)
            }
        }
        return String(escaped)
    }

    /// Integral values without a fraction (`12`), others as Swift prints a `Double`.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
