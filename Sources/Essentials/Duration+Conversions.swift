/// The conversions of a `Duration` that C APIs and timers need (milliseconds for `poll` and librdkafka, nanoseconds
/// for `DispatchTime`, seconds for `Date` and log lines), written once.
extension Duration {
    /// The duration in seconds as a `Double` (attosecond precision is lost beyond a `Double`'s).
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// Whole milliseconds, truncated toward zero.
    package var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / Self.attosecondsPerMillisecond
    }

    /// Whole milliseconds, rounded up (a wait for this long reaches its deadline instead of waking just before it).
    package var millisecondsRoundedUp: Int64 {
        components.seconds * 1000
            + (components.attoseconds + Self.attosecondsPerMillisecond - 1) / Self.attosecondsPerMillisecond
    }

    /// Whole nanoseconds, truncated toward zero.
    package var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }

    /// Whole seconds, rounded up (a fraction of a second counts as one more).
    package var secondsRoundedUp: Int64 {
        components.seconds + (components.attoseconds > 0 ? 1 : 0)
    }

    private static let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
}
