import Producer
import Testing

/// The generator's calendar arithmetic (no Foundation calendar, so output is identical everywhere).
@Suite struct CivilDayTests {
    @Test(arguments: [
        ("1970-01-01", 0), ("2000-02-29", 11_016), ("2026-03-29", 20_541), ("2100-03-01", 47_541),
        ("1969-12-31", -1),
    ])
    func parsesAndFormats(_ text: String, _ days: Int) throws {
        let day = try #require(CivilDay(text))
        #expect(day.daysSinceEpoch == days)
        #expect(day.description == text)
        #expect(CivilDay(daysSinceEpoch: days).description == text)
    }

    @Test(arguments: ["2026-02-29", "2100-02-29", "2026-13-01", "2026-04-31", "2026-1-5", "01.03.2026", ""])
    func rejectsImpossibleOrMalformedDates(_ text: String) {
        #expect(CivilDay(text) == nil)
    }

    @Test func addingDaysCrossesMonthsAndYears() throws {
        let day = try #require(CivilDay("2026-12-30"))
        #expect(day.adding(days: 3).description == "2027-01-02")
        #expect(day.adding(days: -365).description == "2025-12-30")
        #expect(day.utcMidnightMilliseconds == Int64(day.daysSinceEpoch) * 86_400_000)
    }
}
