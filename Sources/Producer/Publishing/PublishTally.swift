/// Running counts of a publish run, for progress lines and the final summary.
public struct PublishTally: Sendable, Hashable {
    /// Input records read (valid or not).
    public var read = 0
    /// Records handed to the Kafka producer.
    public var sent = 0
    /// Records the broker acknowledged.
    public var acknowledged = 0
    /// Records rejected by validation (never sent).
    public var rejected = 0
    /// Records sent but not delivered.
    public var failed = 0

    public init() {}

    /// Counts one result of a record that was handed to the publisher.
    public mutating func record(_ result: PublishResult) {
        switch result {
        case .acknowledged:
            sent += 1
            acknowledged += 1
        case .rejected:
            rejected += 1
        case .failed:
            sent += 1
            failed += 1
        }
    }

    /// One line for humans: `read 1000000, sent 999000, acknowledged 999000, rejected 1000, failed 0,
    /// 3.42 s, 292,397 events/s`.
    public func line(elapsedSeconds: Double) -> String {
        let rate = elapsedSeconds > 0 ? Int((Double(acknowledged + failed) / elapsedSeconds).rounded()) : 0
        let seconds = (elapsedSeconds * 100).rounded() / 100
        return "read \(read), sent \(sent), acknowledged \(acknowledged), rejected \(rejected), failed \(failed), "
            + "\(seconds) s, \(Self.grouped(rate)) events/s"
    }

    /// `1234567` → `1,234,567`.
    static func grouped(_ value: Int) -> String {
        var digits = Array(String(value.magnitude))
        var index = digits.count - 3
        while index > 0 {
            digits.insert(",", at: index)
            index -= 3
        }
        return (value < 0 ? "-" : "") + String(digits)
    }
}
