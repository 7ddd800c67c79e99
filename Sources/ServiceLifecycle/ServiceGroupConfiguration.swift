import Observability

/// What a ``ServiceGroup`` runs and how it stops: the services in start order (they are shut down in the reverse
/// order), the signals that stop them, the one stop deadline and what happens when it passes.
public struct ServiceGroupConfiguration: Sendable {
    /// What the group does when the stop deadline passes, or on a second signal.
    public enum Escalation: Sendable {
        /// Log it and end the process at once with ``ServiceExitStatus/deadlineExceeded`` (3), whatever still hangs:
        /// the services' processes.
        case exitProcess
        /// Cancel every service's task; ``ServiceGroup/run()`` throws ``ServiceGroupError/deadlineExceeded`` once
        /// they ended (for tests and embedders that must not exit).
        case cancel
    }

    /// The services, in start order; a graceful shutdown goes through them in reverse, each ended before the next.
    public var services: [any Service]
    /// SIGTERM/SIGINT deliveries (``SignalStream/make(_:)``, made first thing in `main` so that a signal during the
    /// start waits here): the first begins the graceful shutdown, a second escalates.
    public var signals: AsyncStream<Int32>?
    /// The stop deadline: the whole graceful shutdown, every service together, from the first signal or
    /// ``ServiceGroup/triggerGracefulShutdown()``.
    public var gracefulShutdownTimeout: Duration
    /// What happens at the deadline and on a second signal.
    public var escalation: Escalation
    /// Logs the signal, the deadline and the escalation.
    public var logger: Logger
    /// The log line of the first signal (e.g. "stopping: finishing the in-flight batch, …").
    public var stopMessage: String

    /// - Parameters:
    ///   - services: in start order.
    ///   - signals: SIGTERM/SIGINT as a stream; nil: only ``ServiceGroup/triggerGracefulShutdown()`` stops them.
    ///   - gracefulShutdownTimeout: the one stop deadline.
    ///   - escalation: at the deadline or a second signal: exit 3 (processes) or cancel.
    ///   - logger: where the lifecycle's lines go.
    ///   - stopMessage: the log line of the first signal.
    public init(
        services: [any Service], signals: AsyncStream<Int32>?, gracefulShutdownTimeout: Duration,
        escalation: Escalation = .exitProcess, logger: Logger, stopMessage: String = "stop requested"
    ) {
        self.services = services
        self.signals = signals
        self.gracefulShutdownTimeout = gracefulShutdownTimeout
        self.escalation = escalation
        self.logger = logger
        self.stopMessage = stopMessage
    }
}
