/// Failures that stop the worker, with a message meant for the person on call.
public enum WorkerError: Error, Sendable, CustomStringConvertible {
    /// A flag, environment variable or file is wrong; the message says which and why.
    case configuration(String)
    /// A dependency failed in a way retrying cannot fix (e.g. a fatal Kafka error).
    case fatal(String)

    public var description: String {
        switch self {
        case .configuration(let message): return "configuration error: \(message)"
        case .fatal(let message): return "fatal: \(message)"
        }
    }
}
