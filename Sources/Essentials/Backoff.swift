/// Exponential backoff with jitter for retrying infrastructure failures (store, dead-letter topic, throttled FHIR
/// Bundle entries).
public struct Backoff: Sendable {
    public let initial: Duration
    public let maximum: Duration
    public private(set) var attempt = 0

    public init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before the next attempt; grows ×2 per attempt up to `maximum`, jittered in [50 %, 100 %].
    public mutating func next() -> Duration {
        let exponent = min(attempt, 20)
        attempt += 1
        let ceiling = min(initial * (1 << exponent), maximum)
        return ceiling * Double.random(in: 0.5...1.0)
    }

    public mutating func reset() { attempt = 0 }
}
