/// The exit statuses every service process shares (the worker adds 4, a store refusal: `WorkerError`).
public enum ServiceExitStatus {
    /// Stopped cleanly: a graceful shutdown finished within the deadline, or the work was done.
    public static let success: Int32 = 0
    /// A dependency failed in a way that stops the process (e.g. a fatal Kafka error, the address in use).
    public static let failure: Int32 = 1
    /// A configuration error (the value of `UsageError.exitStatus`).
    public static let configuration: Int32 = 2
    /// The stop deadline passed, or a second signal came: the process ended without a clean close.
    public static let deadlineExceeded: Int32 = 3
}
