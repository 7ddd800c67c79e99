/// One deadline for every step of a stop: `--drain-timeout` after the stop began (SIGTERM, or the end of a
/// `--until-caught-up` run), each step gets a share of it, in order, and the process ends at the deadline whatever
/// hangs (exit 3, see `main.swift`).
///
/// | step | ends at (share of the drain timeout) |
/// |---|---|
/// | finish the in-flight batch (retries of a failing store or dead-letter topic give up) | 40 % |
/// | final offset commit (retried while the group rebalances) | 55 % |
/// | close the consumer (revoke, commit, leave the group) | 90 % |
/// | flush and close the dead-letter producer, close the store | 97 % |
struct ShutdownPlan: Sendable {
    enum Step: Double, Sendable {
        case finishBatch = 0.40
        case commit = 0.55
        case closeConsumer = 0.90
        case closeDependencies = 0.97
    }

    let started: ContinuousClock.Instant
    let drainTimeout: Duration

    init(drainTimeoutSeconds: Double, started: ContinuousClock.Instant = .now) {
        self.started = started
        self.drainTimeout = .milliseconds(Int64(drainTimeoutSeconds * 1000))
    }

    /// When `step` must be done.
    func deadline(_ step: Step) -> ContinuousClock.Instant { started + drainTimeout * step.rawValue }

    /// The time left for `step` from now (zero once its deadline passed).
    func remaining(_ step: Step) -> Duration { max(.zero, deadline(step) - .now) }

    /// The end of the stop: the process exits here at the latest.
    var end: ContinuousClock.Instant { started + drainTimeout }
}
