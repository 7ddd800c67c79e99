import ServiceLifecycle

/// The gateway as the one service of its process's ``ServiceGroup``: the group's graceful shutdown (SIGTERM/SIGINT)
/// becomes ``IngestService/requestStop()``.
struct IngestLifecycleService: Service {
    let service: IngestService

    func run() async throws {
        await withGracefulShutdownHandler {
            await service.run()
        } onGracefulShutdown: { [service] in
            service.requestStop()
        }
    }
}
