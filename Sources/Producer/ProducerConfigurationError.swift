/// A configuration or command-line value that was rejected before anything was generated or sent.
public struct ProducerConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The option or field, e.g. `--patients` or `DVP_BROKERS`.
    public var option: String
    /// The rule it broke, e.g. "must be a positive integer".
    public var rule: String

    public init(option: String, rule: String) {
        self.option = option
        self.rule = rule
    }

    public var description: String { "\(option): \(rule)" }
}
