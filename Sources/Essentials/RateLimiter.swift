/// Paces a loop to at most `eventsPerSecond`, sleeping (without blocking a thread) when it runs ahead.
public struct RateLimiter: Sendable {
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let eventsPerSecond: Double
    private let checkEvery: Int
    private var admitted = 0

    public init(eventsPerSecond: Double) {
        self.eventsPerSecond = eventsPerSecond
        start = clock.now
        checkEvery = max(1, Int(eventsPerSecond / 200))
    }

    /// Counts one event and waits until it is due.
    public mutating func admit() async {
        admitted += 1
        guard admitted % checkEvery == 0 else { return }
        let due = start + .seconds(Double(admitted) / eventsPerSecond)
        if due > clock.now { try? await Task.sleep(until: due, clock: clock) }
    }
}
