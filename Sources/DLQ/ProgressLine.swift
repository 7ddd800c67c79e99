import CommandLineOptions
import DeadLetters
import Synchronization

/// Prints a JSON progress line on stderr at most every five seconds while a redrive runs.
final class ProgressLine: Sendable {
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    func report(_ summary: RedriveSummary) {
        let now = ContinuousClock.now
        let due = last.withLock { last in
            guard last.map({ now - $0 >= .seconds(5) }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        StandardError.print(
            #"{"level":"info","msg":"redrive progress","read":\#(summary.read),"skipped":\#(summary.skipped),"#
                + #""republished":\#(summary.republished),"quarantined":\#(summary.quarantinedTotal),"#
                + #""dryRun":\#(summary.dryRun)}"#)
    }
}
