import Essentials

/// The retry loop both write stages share: attempt, and on failure back off (consumption paused from the first
/// failure until the stage succeeds again) until the work is done or abandoned.
struct RetryingStage: Sendable {
    /// Why one attempt failed: the error for health and the log, plus log fields of the stage's own.
    struct Failure {
        var error: String
        var fields: [(String, Logger.Value)] = []
        /// The typed error, for the readiness category.
        var cause: (any Error)? = nil
    }

    let pause: ConsumptionPause
    let logger: Logger

    /// Runs `attempt` until it returns nil (done).
    /// - Parameters:
    ///   - message: the error log line of a failed attempt.
    ///   - abandoned: checked before and after each backoff sleep.
    ///   - failed: called after each failed attempt (health, metrics).
    ///   - recovered: called with the number of failed attempts when an attempt succeeds after failures.
    ///   - attempt: one try; nil when done, else why it failed.
    /// - Returns: false if abandoned before the work was done.
    func run(
        _ message: String, abandoned: @Sendable () -> Bool, failed: (Failure) -> Void,
        recovered: (_ failedAttempts: Int) -> Void, attempt: () async -> Failure?
    ) async -> Bool {
        var backoff = Backoff()
        while true {
            guard let failure = await attempt() else {
                if backoff.attempt > 0 {
                    recovered(backoff.attempt)
                    pause.resumeAfterRecovery()
                }
                return true
            }
            failed(failure)
            if backoff.attempt == 0 { pause.pauseForFailure() }
            let delay = backoff.next()
            logger.error(
                message,
                [("error", .string(failure.error))] + failure.fields
                    + [("retry_in_ms", .int(Int64(delay.seconds * 1000)))])
            if abandoned() { return false }
            try? await Task.sleep(for: delay)
            // A cancelled task's sleep returns at once: without this the loop would retry with no backoff.
            if abandoned() || Task.isCancelled { return false }
        }
    }
}
