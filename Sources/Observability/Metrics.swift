import Synchronization

/// A process's Prometheus registry: the families it declares (the worker's in `WorkerCore/Metrics+Families.swift`,
/// the gateway's in `IngestGateway/IngestMetrics.swift`), written through their typed handles and rendered in the
/// text exposition format (`Metrics+Exposition.swift`).
///
/// Writes happen per batch or request (never per record); each takes the one lock once.
///
///     metrics.increment(.recordsConsumed, by: Double(messages.count))
///     metrics.increment(.upserts, label: outcome.rawValue, by: Double(n))
///     metrics.set(.paused, 1)
///     metrics.set(.consumerLag, topic: stats.topic, partition: stats.partition, Double(lag))
///     metrics.observe(.batchDuration, seconds)
public final class Metrics: Sendable {
    /// The values of every written series. Label values are kept as given; ``render()`` escapes them.
    struct Values: Sendable {
        /// Counter and gauge series by family name, then by label values (empty for an unlabelled family).
        var series: [String: [[String]: Double]] = [:]
        /// Histograms by family name.
        var histograms: [String: HistogramValues] = [:]
    }

    /// One histogram's observations: cumulative bucket counts (one per declared bound), sum and count.
    struct HistogramValues: Sendable {
        var bucketCounts: [UInt64]
        var sum = 0.0
        var count: UInt64 = 0

        init(bucketCount: Int) { bucketCounts = [UInt64](repeating: 0, count: bucketCount) }
    }

    private let state = Mutex(Values())
    /// The families this registry renders, in exposition order.
    public let families: [MetricFamily]
    /// Their names, for the debug check on every write.
    let declaredNames: Set<String>

    /// An empty registry of `families` (in exposition order): unlabelled counters render 0, everything else renders
    /// no series until written. Writing a family that is not listed traps in debug builds.
    public init(families: [MetricFamily]) {
        self.families = families
        self.declaredNames = Set(families.map(\.name))
    }

    // MARK: - Writing

    /// Adds `value` to an unlabelled counter.
    public func increment(_ counter: Counter, by value: Double = 1) {
        add(value, to: counter.family, labels: [])
    }

    /// Adds `value` to the series of a one-label counter whose label has the value `label` (escaped when rendered).
    public func increment(_ counter: LabelledCounter, label: String, by value: Double = 1) {
        add(value, to: counter.family, labels: [label])
    }

    /// Adds `value` to the series of a two-label counter whose labels have the values `first` and `second`.
    public func increment(_ counter: TwoLabelCounter, labels first: String, _ second: String, by value: Double = 1) {
        add(value, to: counter.family, labels: [first, second])
    }

    /// Sets an unlabelled gauge.
    public func set(_ gauge: Gauge, _ value: Double) {
        store(value, in: gauge.family, labels: [])
    }

    /// Sets the series of one topic partition.
    public func set(_ gauge: PartitionGauge, topic: String, partition: Int32, _ value: Double) {
        store(value, in: gauge.family, labels: [topic, String(partition)])
    }

    /// Removes every series of a partition gauge (e.g. lag of partitions no longer assigned).
    public func clear(_ gauge: PartitionGauge) {
        _ = state.withLock { $0.series.removeValue(forKey: gauge.family.name) }
    }

    /// Records one observation (for ``Histogram/batchDuration``: seconds).
    public func observe(_ histogram: Histogram, _ value: Double) {
        let family = histogram.family
        assert(declaredNames.contains(family.name), "\(family.name) is not listed in the registry's families")
        state.withLock { values in
            var h = values.histograms[family.name] ?? HistogramValues(bucketCount: family.buckets.count)
            for (i, bound) in family.buckets.enumerated() where value <= bound { h.bucketCounts[i] += 1 }
            h.sum += value
            h.count += 1
            values.histograms[family.name] = h
        }
    }

    // MARK: - Reading (summaries and tests)

    /// The current value of an unlabelled counter.
    public func value(of counter: Counter) -> Double {
        read(counter.family, labels: []) ?? 0
    }

    /// The current value of one series of a one-label counter (0 if never incremented).
    public func value(of counter: LabelledCounter, label: String) -> Double {
        read(counter.family, labels: [label]) ?? 0
    }

    /// The sum over every series of a one-label counter.
    public func total(of counter: LabelledCounter) -> Double {
        state.withLock { $0.series[counter.family.name]?.values.reduce(0, +) ?? 0 }
    }

    /// The current value of one series of a two-label counter (0 if never incremented).
    public func value(of counter: TwoLabelCounter, labels first: String, _ second: String) -> Double {
        read(counter.family, labels: [first, second]) ?? 0
    }

    /// The current value of an unlabelled gauge, nil while unset.
    public func value(of gauge: Gauge) -> Double? {
        read(gauge.family, labels: [])
    }

    /// The current value of one topic partition's series, nil while unset.
    public func value(of gauge: PartitionGauge, topic: String, partition: Int32) -> Double? {
        read(gauge.family, labels: [topic, String(partition)])
    }

    /// How many observations a histogram has recorded.
    public func count(of histogram: Histogram) -> UInt64 {
        state.withLock { $0.histograms[histogram.family.name]?.count ?? 0 }
    }

    /// A copy of every value, for ``render()``.
    func snapshot() -> Values {
        state.withLock { $0 }
    }

    // MARK: - Private

    private func add(_ value: Double, to family: MetricFamily, labels: [String]) {
        assert(declaredNames.contains(family.name), "\(family.name) is not listed in the registry's families")
        state.withLock { $0.series[family.name, default: [:]][labels, default: 0] += value }
    }

    private func store(_ value: Double, in family: MetricFamily, labels: [String]) {
        assert(declaredNames.contains(family.name), "\(family.name) is not listed in the registry's families")
        state.withLock { $0.series[family.name, default: [:]][labels] = value }
    }

    private func read(_ family: MetricFamily, labels: [String]) -> Double? {
        state.withLock { $0.series[family.name]?[labels] }
    }
}
