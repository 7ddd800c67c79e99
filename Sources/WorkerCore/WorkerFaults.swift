import StoreCore

/// Fault hooks for the reliability suite's test worker (`dvp-fault-worker`, never shipped): points where it
/// kills itself, which no outside timing of a kill can hit. The shipped `worker` passes ``none``: nothing here is
/// armed by a flag or an environment variable of the product.
public struct WorkerFaults: Sendable {
    /// Runs first thing once SIGTERM/SIGINT are taken over, before the configuration is read (e.g. to hold the
    /// process there while a test signals it).
    public var beforeConfiguration: @Sendable () -> Void
    /// Runs on the consumer's poll thread inside a (non-lost) revoke, before the batches in flight are waited for.
    public var onRevoke: @Sendable () -> Void
    /// Wraps the opened store (e.g. a store that kills the process after an upsert returned, before the batch's
    /// offsets are stored).
    public var wrapStore: @Sendable (any ObservationStore) -> any ObservationStore

    /// Hooks; each defaults to doing nothing.
    public init(
        beforeConfiguration: @escaping @Sendable () -> Void = {},
        onRevoke: @escaping @Sendable () -> Void = {},
        wrapStore: @escaping @Sendable (any ObservationStore) -> any ObservationStore = { $0 }
    ) {
        self.beforeConfiguration = beforeConfiguration
        self.onRevoke = onRevoke
        self.wrapStore = wrapStore
    }

    /// No fault: the shipped worker.
    public static let none = WorkerFaults()
}
