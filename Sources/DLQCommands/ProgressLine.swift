import CommandLineOptions
import DeadLetters
import Synchronization

/// Prints a JSON progress line on stderr every five seconds while a redrive runs (none for a run that is shorter).
final class ProgressLine: Sendable {
    private let last = Mutex(ContinuousClock.now)

    func report(_ summary: RedriveSummary) {
        let now = ContinuousClock.now
        let due = last.withLock { last in
            guard now - last >= .seconds(5) else { return false }
            last = now
            return true
        }
        guard due else { return }
        StandardError.print(
            #"{"level":"info","msg":"redrive progress","read":\#(summary.read),"skipped":\#(summary.skipped),"#
                + #""republished":\#(summary.republished),"quarantined":\#(summary.quarantinedTotal),"#
                + #""erased":\#(summary.erased),"#
                + #""dryRun":\#(summary.dryRun)}"#)
    }
}
