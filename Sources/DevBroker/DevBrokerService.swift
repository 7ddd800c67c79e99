import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// The mock cluster's life in the process's ``ServiceGroup``: it serves until the group's graceful shutdown
/// (SIGTERM/SIGINT), then removes the control FIFO and says it stops.
struct DevBrokerService: Service {
    /// `--control`: the FIFO to remove (nothing for stdin, `-`).
    let control: String?

    func run() async throws {
        await gracefulShutdown()
        if let control, control != "-" { unlink(control) }
        DevBrokerOutput.line("devbroker: stopping")
    }
}
