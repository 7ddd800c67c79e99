import ServiceLifecycle

/// The worker as the one service of its process's ``ServiceGroup``: the group's graceful shutdown (SIGTERM/SIGINT)
/// becomes ``WorkerService/requestStop()``; a catch-up run's summary goes to stdout when it ends.
struct WorkerLifecycleService: Service {
    let service: WorkerService
    /// `--until-caught-up`: print the run's summary.
    let printsSummary: Bool

    func run() async throws {
        let summary = try await withGracefulShutdownHandler {
            try await service.run()
        } onGracefulShutdown: { [service] in
            service.requestStop()
        }
        if printsSummary { print(summary) }
    }
}
