/// A long-running part of a process, run by a ``ServiceGroup`` (the swift-service-lifecycle shape).
///
/// ``run()`` returns when the service is done: by itself, or after the group asked it to shut down gracefully, which
/// it learns through ``withGracefulShutdownHandler(operation:onGracefulShutdown:)`` or ``gracefulShutdown()``.
/// Cancellation of its task means the stop deadline passed: it must end at once.
public protocol Service: Sendable {
    /// Runs the service until it is done or shut down.
    /// - Throws: what ended it; the group then shuts the other services down and rethrows the first error.
    func run() async throws
}
