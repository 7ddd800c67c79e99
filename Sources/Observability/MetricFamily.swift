/// One metric family as a process declares it (the worker in `Metrics+Families.swift`): what its `# HELP` and
/// `# TYPE` lines say and which labels its series carry.
///
/// Call sites never build one: they reference a declared family through its typed handle (``Metrics/Counter``,
/// ``Metrics/LabelledCounter``, ``Metrics/Gauge``, ``Metrics/PartitionGauge``, ``Metrics/Histogram``), whose
/// `family` this is. A registry's ``Metrics/families`` lists its families in exposition order.
public struct MetricFamily: Sendable, Hashable {
    /// The exposition type, as `# TYPE` writes it.
    public enum Kind: String, Sendable, Hashable {
        case counter, gauge, histogram
    }

    /// The family's name (counters end in `_total`).
    public let name: String
    /// Counter, gauge or histogram.
    public let kind: Kind
    /// The `# HELP` text (one line).
    public let help: String
    /// The label names every series carries, in exposition order; empty for an unlabelled family. A histogram's
    /// implied `le` is not listed.
    public let labelNames: [String]
    /// A histogram's bucket upper bounds, ascending, without `+Inf`; empty for other kinds.
    public let buckets: [Double]

    init(_ name: String, _ kind: Kind, help: String, labelNames: [String] = [], buckets: [Double] = []) {
        self.name = name
        self.kind = kind
        self.help = help
        self.labelNames = labelNames
        self.buckets = buckets
    }

    /// The names a query may use for this family's series: the family name, or for a histogram its `_bucket`,
    /// `_sum` and `_count` series.
    public var seriesNames: [String] {
        kind == .histogram ? ["_bucket", "_sum", "_count"].map { name + $0 } : [name]
    }

    /// Whether an unwritten family still renders a series: only an unlabelled counter does (`name 0`); a labelled
    /// family without series renders its `# HELP` and `# TYPE` lines alone, an unset gauge likewise.
    var rendersZeroWhenEmpty: Bool { kind == .counter && labelNames.isEmpty }
}
