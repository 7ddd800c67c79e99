import Observability

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The two ends of every service process's `main`, written once: the configuration (help, a configuration error
/// as exit 2 with a JSON log line) and the run (a ``ServiceGroup`` to its exit status, the failure logged).
public enum ServiceProcess {
    /// Runs `parse`: prints `help` and exits 0 when it returns nil (`--help`); on an error logs
    /// `"<program> failed"` with the error and `exit_status` 2 (stderr carries JSON log lines only) and exits 2.
    /// - Returns: the configuration `parse` returned.
    public static func configuration<Configuration>(
        _ program: String, help: @autoclosure () -> String, _ parse: () throws -> Configuration?
    ) -> Configuration {
        do {
            guard let configuration = try parse() else {
                print(help())
                exit(ServiceExitStatus.success)
            }
            return configuration
        } catch {
            Logger(level: .error).error(
                "\(program) failed",
                [("error", .string("\(error)")), ("exit_status", .int(Int64(ServiceExitStatus.configuration)))])
            exit(ServiceExitStatus.configuration)
        }
    }

    /// Runs `group` and exits: 0 when every service ended cleanly; when one threw, logs `"<program> failed"` with the
    /// error and its status and exits with `exitStatus(error)`. (At the stop deadline or on a second signal the
    /// group itself exits 3.)
    public static func runAndExit(
        _ group: ServiceGroup, program: String, logger: Logger, exitStatus: (any Error) -> Int32
    ) async -> Never {
        do {
            try await group.run()
            exit(ServiceExitStatus.success)
        } catch {
            let status = exitStatus(error)
            logger.error("\(program) failed", [("error", .string("\(error)")), ("exit_status", .int(Int64(status)))])
            exit(status)
        }
    }
}
