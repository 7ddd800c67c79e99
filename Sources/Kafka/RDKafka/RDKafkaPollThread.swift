import Dispatch
import Essentials
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A dedicated OS thread (never Swift's cooperative pool) that calls `body` in a loop until stopped.
/// `body` must return regularly (it polls with a short timeout).
final class RDKafkaPollThread: Sendable {
    private let stopRequested = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the thread immediately.
    init(name: String, body: @escaping @Sendable () -> Void) {
        // The thread keeps `self` alive until the loop ends.
        OSThread.start(name: name) { [self] in
            while !isStopRequested { body() }
            finished.signal()
        }
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Asks the loop to end after the current iteration and waits for it up to `timeout`.
    /// - Returns: `false` when the thread did not finish in time (it keeps running until its body returns).
    @discardableResult
    func stop(timeout: Duration) -> Bool {
        stopRequested.store(true, ordering: .releasing)
        guard finished.wait(timeout: .now() + timeout.seconds) == .success else { return false }
        finished.signal()  // let later callers of stop() pass too
        return true
    }
}
