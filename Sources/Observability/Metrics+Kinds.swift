// The kinds of metric family a process declares: each declaration is a static value of one of these
// (`extension Metrics.Counter { public static let recordsConsumed = Self(…) }`) and call sites write through it, so an
// undeclared name or a missing label does not compile.

extension Metrics {
    /// An unlabelled counter family: one series, rendered `0` until first incremented.
    public struct Counter: Sendable {
        /// The declaration.
        public let family: MetricFamily

        public init(_ name: String, help: String) { family = MetricFamily(name, .counter, help: help) }
    }

    /// A counter family with exactly one label: one series per label value, none rendered until one is incremented.
    public struct LabelledCounter: Sendable {
        /// The declaration (one label name).
        public let family: MetricFamily

        public init(_ name: String, label: String, help: String) {
            family = MetricFamily(name, .counter, help: help, labelNames: [label])
        }

        /// One series as the exposition names it, e.g. `dvp_upserts_total{outcome="conflict"}` (for log lines that
        /// point at it).
        public func seriesName(label: String) -> String { Metrics.seriesKey(family, [label]) }
    }

    /// A counter family with exactly two labels: one series per pair of label values, none rendered until one is
    /// incremented.
    public struct TwoLabelCounter: Sendable {
        /// The declaration (two label names, in this order).
        public let family: MetricFamily

        public init(_ name: String, labels first: String, _ second: String, help: String) {
            family = MetricFamily(name, .counter, help: help, labelNames: [first, second])
        }
    }

    /// An unlabelled gauge family: one series, absent until first set.
    public struct Gauge: Sendable {
        /// The declaration.
        public let family: MetricFamily

        public init(_ name: String, help: String) { family = MetricFamily(name, .gauge, help: help) }
    }

    /// A gauge family with one series per topic partition (labels `topic` and `partition`); ``Metrics/clear(_:)``
    /// drops every series, e.g. before the current assignment's values are set again.
    public struct PartitionGauge: Sendable {
        /// The declaration (labels `topic`, `partition`).
        public let family: MetricFamily

        public init(_ name: String, help: String) {
            family = MetricFamily(name, .gauge, help: help, labelNames: ["topic", "partition"])
        }
    }

    /// An unlabelled histogram family with fixed buckets.
    public struct Histogram: Sendable {
        /// The declaration (with its bucket upper bounds).
        public let family: MetricFamily

        public init(_ name: String, help: String, buckets: [Double]) {
            family = MetricFamily(name, .histogram, help: help, buckets: buckets)
        }
    }
}
