import Essentials
import Observability

/// The retry loop both write stages share: attempt, and on a retriable failure back off and try again, until the
/// work is done, abandoned (the task was cancelled — a stop whose deadline passed — or the batch's partitions all
/// left), or an attempt fails in a way retrying cannot fix.
///
/// It only decides; what a failure means for readiness (and so for fetching: the consumer pauses while the
/// worker's dependencies fail, see ``WorkerHealth``) is the stage's `failed` / `recovered` callbacks.
struct RetryLoop: Sendable {
    /// How the loop ended.
    enum Ending<Failure: Error> {
        case done
        /// Given up un-done: the task was cancelled or `abandoned()` held.
        case abandoned
        /// An attempt failed with an error that is not retriable.
        case failed(Failure)
    }

    let logger: Logger
    var backoff = Backoff()

    /// Runs `attempt` until it returns nil (done).
    /// - Parameters:
    ///   - message: the error log line of a failed attempt (e.g. "store upsert failed").
    ///   - isRetriable: whether a failure is worth another attempt after a backoff.
    ///   - abandoned: checked before and after each backoff sleep.
    ///   - failed: called after each failed attempt, retriable or not (health, metrics).
    ///   - recovered: called with the number of failed attempts when an attempt succeeds after failures.
    ///   - attempt: one try; nil when done, else the typed failure.
    func run<Failure: Error>(
        _ message: String, isRetriable: (Failure) -> Bool, abandoned: () -> Bool, failed: (Failure) -> Void,
        recovered: (_ failedAttempts: Int) -> Void, attempt: () async -> Failure?
    ) async -> Ending<Failure> {
        var backoff = self.backoff
        while true {
            if Task.isCancelled { return .abandoned }
            guard let failure = await attempt() else {
                if backoff.attempt > 0 { recovered(backoff.attempt) }
                return .done
            }
            // A cancelled attempt (the stop's deadline) fails with whatever its dependency threw: give up, unjudged.
            if Task.isCancelled { return .abandoned }
            failed(failure)
            guard isRetriable(failure) else {
                logger.error(message + ": not retriable, giving up", [("error", .string("\(failure)"))])
                return .failed(failure)
            }
            let delay = backoff.next()
            logger.error(message + "; retrying", [("error", .string("\(failure)")), ("retry_in_ms", .int(Int64(delay.seconds * 1000)))])
            if abandoned() { return .abandoned }
            // A cancelled sleep throws at once: the stop reaches the loop here.
            do { try await Task.sleep(for: delay) } catch { return .abandoned }
            if abandoned() { return .abandoned }
        }
    }
}
