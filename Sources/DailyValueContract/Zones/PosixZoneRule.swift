/// The rule a TZif file's footer gives for every instant after its last transition: a POSIX `TZ` string with the
/// extensions of RFC 8536 §3.3.1 (hours -167…167 in rule times), such as `CET-1CEST,M3.5.0,M10.5.0/3`,
/// `<+1030>-10:30<+11>-11,M10.1.0,M4.1.0` (Lord Howe's 30-minute DST) or `<+0545>-5:45` (no DST).
struct PosixZoneRule: Sendable, Hashable {
    /// The standard offset, seconds east of UTC (POSIX writes it west of UTC, with the opposite sign).
    let standardOffset: Int
    /// The daylight-saving part, absent for a zone without DST.
    let daylight: Daylight?

    /// DST: its offset and the local times it starts (in standard time) and ends (in daylight time) each year.
    struct Daylight: Sendable, Hashable {
        let offset: Int
        let start: DateRule
        let end: DateRule
    }

    /// A day of the year (`Mm.w.d`, `Jn` or `n`) and the local time of day of the change on it.
    struct DateRule: Sendable, Hashable {
        enum Day: Sendable, Hashable {
            /// `Jn`: day 1…365, February 29 never counted.
            case julian(Int)
            /// `n`: day 0…365, February 29 counted in leap years.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1…4, 5 = the last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }
        let day: Day
        /// Seconds after local midnight, -167…167 hours; 02:00 when the string gives none.
        let time: Int

        /// Days since 1970-01-01 of this rule's day in `year`.
        func daysSinceEpoch(inYear year: Int) -> Int {
            let january1 = CivilDate(year: year, month: 1, day: 1).daysSinceEpoch
            switch day {
            case .zeroBased(let n):
                return january1 + n
            case .julian(let n):
                let leap = CivilDate.daysInMonth(year: year, month: 2) == 29
                return january1 + n - 1 + (leap && n >= 60 ? 1 : 0)
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilDate(year: year, month: month, day: 1).daysSinceEpoch
                let firstWeekday = ((first + 4) % 7 + 7) % 7  // 1970-01-01 was a Thursday
                var day = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
                let length = CivilDate.daysInMonth(year: year, month: month)
                while day > length { day -= 7 }
                return first + day - 1
            }
        }
    }

    // MARK: - Offsets

    /// The UTC instants of `year`'s two changes: to daylight time, and back to standard time (not sorted: south of
    /// the equator DST ends before it starts in a calendar year).
    func changes(inYear year: Int) -> [(at: Int64, offset: Int)] {
        guard let daylight else { return [] }
        let start = Int64(daylight.start.daysSinceEpoch(inYear: year)) * 86_400 + Int64(daylight.start.time)
        let end = Int64(daylight.end.daysSinceEpoch(inYear: year)) * 86_400 + Int64(daylight.end.time)
        return [(start - Int64(standardOffset), daylight.offset), (end - Int64(daylight.offset), standardOffset)]
    }

    /// The changes in `years`, in order of time.
    func changes(inYears years: ClosedRange<Int>) -> [(at: Int64, offset: Int)] {
        years.flatMap { changes(inYear: $0) }.sorted { $0.at < $1.at }
    }

    /// The offset in force at UTC instant `instant`.
    func offset(at instant: Int64) -> Int {
        guard daylight != nil else { return standardOffset }
        let days = instant >= 0 ? instant / 86_400 : (instant - 86_399) / 86_400  // rounded down before 1970
        let year = CivilDate(daysSinceEpoch: Int(days)).year
        return changes(inYears: (year - 1)...(year + 1)).last { $0.at <= instant }?.offset ?? standardOffset
    }
}
