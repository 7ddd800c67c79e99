/// Failures that stop the worker, with a message meant for the person on call.
public enum WorkerError: Error, Sendable, CustomStringConvertible {
    /// A flag, environment variable or file is wrong; the message says which and why.
    case configuration(String)
    /// A dependency failed in a way retrying cannot fix (e.g. a fatal Kafka error). Exit status 1.
    case fatal(String)
    /// The store refused the work in a way retrying cannot fix (a SQL or permission error, a broken schema), after
    /// the durable work was committed. Exit status ``storeExitStatus``.
    case store(String)

    /// The exit status for ``store(_:)``: a restart loop operators see, instead of a worker paused with no end.
    public static let storeExitStatus: Int32 = 4

    public var description: String {
        switch self {
        case .configuration(let message): return "configuration error: \(message)"
        case .fatal(let message): return "fatal: \(message)"
        case .store(let message): return "store failed and retrying cannot fix it: \(message)"
        }
    }
}
