/// Runs `operation`; calls `onGracefulShutdown` once if the ``ServiceGroup`` running this task's service asks it to
/// shut down gracefully while `operation` runs (at once when it already asked). Outside a group it only runs
/// `operation`.
public func withGracefulShutdownHandler<T>(
    operation: () async throws -> T, onGracefulShutdown handler: @escaping @Sendable () -> Void
) async rethrows -> T {
    guard let latch = ShutdownLatch.current else { return try await operation() }
    let registration = latch.onTrigger(handler)
    defer { registration.map(latch.remove) }
    return try await operation()
}

/// Returns once the ``ServiceGroup`` running this task's service asked it to shut down gracefully, or when the task
/// is cancelled. Outside a group it returns only on cancellation.
public func gracefulShutdown() async {
    await (ShutdownLatch.current ?? ShutdownLatch()).wait()
}

/// Whether the ``ServiceGroup`` running this task's service asked it to shut down.
public var isGracefulShutdownRequested: Bool { ShutdownLatch.current?.isTriggered ?? false }
