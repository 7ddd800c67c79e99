/// The UTC offsets of one IANA time zone over time, read from the system's compiled tz database (a TZif file under
/// `/usr/share/zoneinfo`, Debian's `tzdata`: a rule change arrives with `apt upgrade`, not with a new toolchain).
///
/// Foundation's named `TimeZone` needs ICU (about 40 MB of code and data in every image); this type needs neither.
/// `ZoneRulesTests` holds it to ICU's answers for every location zone, at every transition and day boundary.
/// Two values are equal when their identifiers are.
public struct ZoneRules: Sendable, Hashable {
    /// The IANA name the rules were read for, e.g. `Australia/Lord_Howe`.
    public let identifier: String
    /// UTC instants (seconds since 1970) at which the offset changes, ascending.
    let transitions: [Int64]
    /// The offset (seconds east of UTC) from `transitions[i]` on.
    let offsets: [Int]
    /// The offset before the first transition (local time type 0).
    let initialOffset: Int
    /// The rule after the last transition, from the file's footer.
    let footer: PosixZoneRule?

    init(identifier: String, transitions: [Int64], offsets: [Int], initialOffset: Int, footer: PosixZoneRule?) {
        self.identifier = identifier
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.footer = footer
    }

    /// Coordinated Universal Time: offset 0 at every instant, with or without a tz database on the machine.
    public static let utc = ZoneRules(identifier: "UTC", transitions: [], offsets: [], initialOffset: 0, footer: nil)

    public static func == (lhs: ZoneRules, rhs: ZoneRules) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    // MARK: - Offsets

    /// The offset from UTC, in seconds east, in force at `instant` (seconds since 1970-01-01T00:00:00Z).
    public func secondsFromGMT(at instant: Int64) -> Int {
        guard let last = transitions.last, instant < last || footer == nil else {
            return footer?.offset(at: instant) ?? initialOffset
        }
        guard let index = lastTransitionIndex(atOrBefore: instant) else { return initialOffset }
        return offsets[index]
    }

    /// The offset in force at `start` and every change after it up to and including `end`, in order.
    package func changes(from start: Int64, through end: Int64) -> (before: Int, changes: [(at: Int64, offset: Int)]) {
        var changes: [(at: Int64, offset: Int)] = []
        var index = (lastTransitionIndex(atOrBefore: start) ?? -1) + 1
        while index < transitions.count, transitions[index] <= end {
            changes.append((transitions[index], offsets[index]))
            index += 1
        }
        let last = transitions.last ?? .min
        if let footer, end > last {
            let firstYear = CivilDate(daysSinceEpoch: Int(max(start, last) / 86_400) - 1).year
            let lastYear = CivilDate(daysSinceEpoch: Int(end / 86_400) + 1).year
            changes += footer.changes(inYears: firstYear...lastYear).filter { $0.at > max(start, last) && $0.at <= end }
        }
        return (secondsFromGMT(at: start), changes)
    }

    /// The index of the last transition at or before `instant`, or `nil` when all are later.
    private func lastTransitionIndex(atOrBefore instant: Int64) -> Int? {
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    // MARK: - Local days

    /// The first instant of local day `day` (days since 1970-01-01): local midnight, or, when midnight falls in a
    /// gap (the clock jumps past it), the instant the gap ends; when midnight occurs twice, the first one.
    ///
    /// The earliest instant whose local date-time is at or after the day's midnight: within each stretch of
    /// constant offset local time only grows, so the first stretch that reaches midnight holds the answer.
    public func startOfLocalDay(_ day: Int) -> Int64 {
        let midnight = Int64(day) * 86_400
        let window = (start: midnight - 3 * 86_400, end: midnight + 3 * 86_400)  // offsets stay within ±26 hours
        let (before, changes) = self.changes(from: window.start, through: window.end)
        var stretchStart = window.start
        var offset = before
        for change in changes {
            let candidate = max(stretchStart, midnight - Int64(offset))
            if candidate < change.at { return candidate }
            stretchStart = change.at
            offset = change.offset
        }
        return max(stretchStart, midnight - Int64(offset))
    }
}
