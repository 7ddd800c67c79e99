import Observability
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs services side by side in one task group and stops them the one way every service process stops (the
/// swift-service-lifecycle shape):
///
/// - the first SIGTERM/SIGINT (or ``triggerGracefulShutdown()``, or a service ending by itself) begins a graceful
///   shutdown: the services are asked to stop in reverse start order, each only once the one started after it ended;
/// - one deadline bounds the whole shutdown (``ServiceGroupConfiguration/gracefulShutdownTimeout``); when it passes,
///   or a second signal comes, the group escalates: the process exits 3 at once, or (``ServiceGroupConfiguration/
///   Escalation/cancel``) every service's task is cancelled;
/// - ``run()`` returns when every service ended, rethrowing the first error one threw.
public final class ServiceGroup: Sendable {
    private let configuration: ServiceGroupConfiguration
    /// The group's graceful shutdown: triggered by the first signal, ``triggerGracefulShutdown()`` or a service's end.
    private let shutdownRequested = ShutdownLatch()

    /// A group that will run `configuration.services` (nothing runs before ``run()``).
    public init(configuration: ServiceGroupConfiguration) {
        self.configuration = configuration
    }

    /// Begins the graceful shutdown (as the first signal does, without its log line). Safe to call more than once.
    public func triggerGracefulShutdown() {
        shutdownRequested.trigger()
    }

    /// What one child task of the group reports.
    private enum Event: Sendable {
        case serviceEnded(index: Int, error: (any Error)?)
        /// The deadline passed or a second signal came.
        case escalate
        /// A helper task ended (the signal stream finished, the shutdown went through every service).
        case done
    }

    /// Runs every service until each ended.
    /// - Throws: the first error a service threw, or ``ServiceGroupError/deadlineExceeded`` when the group escalated
    ///   by cancelling.
    public func run() async throws {
        let services = configuration.services
        let requests = services.map { _ in ShutdownLatch() }
        let ended = services.map { _ in ShutdownLatch() }
        var firstError: (any Error)?
        var escalated = false
        await withTaskGroup(of: Event.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    do {
                        try await ShutdownLatch.$current.withValue(requests[index]) { try await service.run() }
                        return .serviceEnded(index: index, error: nil)
                    } catch {
                        return .serviceEnded(index: index, error: error)
                    }
                }
            }
            if let signals = configuration.signals {
                group.addTask { await self.listen(to: signals) }
            }
            group.addTask {
                await self.shutdownRequested.wait()
                // Reverse start order, each once the one started after it ended.
                for index in services.indices.reversed() where !Task.isCancelled {
                    requests[index].trigger()
                    await ended[index].wait()
                }
                return .done
            }
            group.addTask { await self.deadline() }
            var running = services.count
            while running > 0, let event = await group.next() {
                switch event {
                case .serviceEnded(let index, let error):
                    running -= 1
                    ended[index].trigger()
                    if let error, firstError == nil { firstError = error }
                    shutdownRequested.trigger()
                case .escalate:
                    escalated = true
                    group.cancelAll()
                case .done:
                    continue
                }
            }
            group.cancelAll()
        }
        if escalated { throw ServiceGroupError.deadlineExceeded }
        if let firstError { throw firstError }
    }

    // MARK: - Signals and the deadline

    /// The first signal begins the graceful shutdown; a second escalates.
    private func listen(to signals: AsyncStream<Int32>) async -> Event {
        var received = 0
        for await sig in signals {
            received += 1
            guard received == 1 else {
                configuration.logger.error(
                    "second signal: exiting at once",
                    [("signal", .string(SignalStream.name(sig))), ("exit_status", .int(Int64(exitStatus)))])
                return escalate()
            }
            configuration.logger.info(
                configuration.stopMessage,
                [("signal", .string(SignalStream.name(sig))), ("drain_timeout_s", .double(timeoutSeconds))])
            shutdownRequested.trigger()
        }
        return .done
    }

    /// Returns ``Event/escalate`` when the deadline passed after the shutdown began, ``Event/done`` if cancelled.
    private func deadline() async -> Event {
        await shutdownRequested.wait()
        guard (try? await Task.sleep(for: configuration.gracefulShutdownTimeout)) != nil else { return .done }
        switch configuration.escalation {
        case .exitProcess:
            configuration.logger.error(
                "drain deadline exceeded; exiting without a clean close", [("exit_status", .int(Int64(exitStatus)))])
        case .cancel:
            configuration.logger.error("stop deadline exceeded; cancelling the services")
        }
        return escalate()
    }

    /// Ends the process with status 3 (``ServiceGroupConfiguration/Escalation/exitProcess``), or asks ``run()`` to
    /// cancel the services.
    private func escalate() -> Event {
        if case .exitProcess = configuration.escalation { exit(exitStatus) }
        return .escalate
    }

    private var exitStatus: Int32 { ServiceExitStatus.deadlineExceeded }

    private var timeoutSeconds: Double {
        let parts = configuration.gracefulShutdownTimeout.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
