#if canImport(Glibc)
    import Glibc
#endif

/// The process's limit on open files (`RLIMIT_NOFILE`): every socket, pipe and file counts against it.
///
/// Many systems start processes with a soft limit of 1,024 and a far higher hard limit, which a server is expected to
/// raise itself (as Go's runtime and nginx do): at 1,024 a gateway allowing 1,024 connections, or a process with a
/// few dozen Kafka and database clients, runs out (`EMFILE`), and librdkafka's mock cluster aborts when it cannot
/// re-open a broker's listener.
public enum OpenFileLimit {
    /// Descriptors a service needs beside its client connections: Kafka brokers, the database, logs, pipes.
    public static let headroom = 256

    /// Raises the soft limit to the hard limit (no privilege is needed for that).
    /// - Returns: the soft limit now in force (`Int.max` when unlimited), or nil when it cannot be read.
    @discardableResult
    public static func raiseToHard() -> Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur != limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return softLimit(limit)
    }

    /// The soft limit; `RLIM_INFINITY` (all bits set: the C macro does not import) is `Int.max`.
    private static func softLimit(_ limit: rlimit) -> Int {
        limit.rlim_cur == rlim_t.max ? Int.max : Int(clamping: limit.rlim_cur)
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
