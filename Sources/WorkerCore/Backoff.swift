/// Exponential backoff with full jitter for retrying infrastructure failures (store, dead-letter topic).
struct Backoff {
    let initial: Duration
    let maximum: Duration
    private(set) var attempt = 0

    init(initial: Duration = .milliseconds(100), maximum: Duration = .seconds(5)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// The delay before the next attempt; grows ×2 per attempt up to `maximum`, jittered in [50 %, 100 %].
    mutating func next() -> Duration {
        let exponent = min(attempt, 20)
        attempt += 1
        let ceiling = min(initial * (1 << exponent), maximum)
        return ceiling * Double.random(in: 0.5...1.0)
    }

    mutating func reset() { attempt = 0 }
}
