import Essentials
import Observability

/// `--until-caught-up` progress for long runs (backfill Jobs): every `--progress-interval`, one `progress` log line
/// with the records consumed so far, the remaining lag of the assignment (from the latest consumer statistics), the
/// rate over the last interval and the estimated time to catch up at that rate.
struct ProgressReporter: Sendable {
    let interval: Duration
    let metrics: Metrics
    let statistics: ConsumerStatisticsReporter
    let logger: Logger

    /// Starts reporting until the returned task is cancelled.
    func start() -> Task<Void, Never> {
        Task {
            var last = (time: ContinuousClock.now, consumed: consumed())
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                if Task.isCancelled { return }
                let now = (time: ContinuousClock.now, consumed: consumed())
                let seconds = (now.time - last.time).seconds
                let rate = seconds > 0 ? Double(now.consumed - last.consumed) / seconds : 0
                logger.info(
                    "progress", Self.fields(consumed: now.consumed, remaining: statistics.remainingLag(), rate: rate))
                last = now
            }
        }
    }

    private func consumed() -> Int64 { Int64(metrics.value(of: .recordsConsumed)) }

    /// The line's fields: `consumed`, `remaining_lag` (absent until statistics arrive), `rate_per_s` and `eta_s`
    /// (absent while nothing is known or nothing moves).
    static func fields(consumed: Int64, remaining: Int64?, rate: Double) -> [(String, Logger.Value)] {
        var fields: [(String, Logger.Value)] = [
            ("consumed", .int(consumed)), ("rate_per_s", .double((rate * 10).rounded() / 10)),
        ]
        if let remaining {
            fields.append(("remaining_lag", .int(remaining)))
            if rate > 0 { fields.append(("eta_s", .int(Int64((Double(remaining) / rate).rounded(.up))))) }
        }
        return fields
    }
}
