import Synchronization

/// The gateway's readiness: the brokers answered a metadata probe recently, the producer is usable, and the gateway
/// is not stopping. `/readyz` answers its one word, never an error's text.
final class IngestHealth: Sendable {
    enum Readiness: String, Sendable {
        case ready
        /// No probe has succeeded yet.
        case starting
        /// The last probe failed, or none finished within three probe intervals.
        case brokerUnavailable = "broker-unavailable"
        /// The producer hit a fatal error (idempotence broken): it cannot publish until the gateway restarts.
        case producerFailed = "producer-failed"
        case stopping
    }

    private struct State {
        var lastProbe: (succeeded: Bool, at: ContinuousClock.Instant)?
        var producerFailed = false
        var stopping = false
    }

    /// How often the probe runs; a result older than three intervals no longer counts.
    let probeInterval: Duration
    private let state = Mutex(State())

    init(probeInterval: Duration) {
        self.probeInterval = probeInterval
    }

    func recordProbe(succeeded: Bool, at instant: ContinuousClock.Instant = .now) {
        state.withLock { $0.lastProbe = (succeeded, instant) }
    }

    func markProducerFailed() {
        state.withLock { $0.producerFailed = true }
    }

    func markStopping() {
        state.withLock { $0.stopping = true }
    }

    var readiness: Readiness {
        state.withLock { state in
            if state.stopping { return .stopping }
            if state.producerFailed { return .producerFailed }
            guard let probe = state.lastProbe else { return .starting }
            return probe.succeeded && ContinuousClock.now - probe.at < probeInterval * 3 ? .ready : .brokerUnavailable
        }
    }
}
