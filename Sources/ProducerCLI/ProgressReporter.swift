import CommandLineOptions
import Essentials

/// Prints a progress line on stderr at most every `interval`, so long runs show they are alive.
struct ProgressReporter {
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private var lastReport: ContinuousClock.Instant
    private let interval: Duration

    init(interval: Duration = .seconds(3)) {
        start = clock.now
        lastReport = start
        self.interval = interval
    }

    /// Seconds since the reporter was created.
    var elapsedSeconds: Double {
        (clock.now - start).seconds
    }

    /// Prints `message(elapsedSeconds)` if the interval has passed since the last report.
    mutating func tick(_ message: (Double) -> String) {
        let now = clock.now
        guard now - lastReport >= interval else { return }
        lastReport = now
        StandardError.print("progress: " + message(elapsedSeconds))
    }
}
