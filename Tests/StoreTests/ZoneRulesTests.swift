import DailyValueContract
import Foundation
import Testing

/// The TZif reader (``ZoneRules``) against Foundation's ICU time zones, which shipped binaries no longer load: every
/// location zone of the system's tz database that ICU knows, at every offset change from 1970 to 2040 (both
/// readers' changes, and the second before each), and the local days around each change and across the years.
///
/// The two databases are separate copies (ICU's built into the toolchain, Debian's `tzdata` in
/// /usr/share/zoneinfo); ``Self/knownDifferences`` names every zone where they are allowed to disagree, and why.
@Suite struct ZoneRulesTests {
    static let directory = TimeZoneCache.zoneInfoDirectory

    /// Every name `TimeZoneCache` may accept: files under the location areas, `posix/` and `right/` left out.
    static let zoneFiles: [String] = {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var names: [String] = []
        while let path = enumerator.nextObject() as? String {
            guard TimeZoneCache.locationAreas.contains(where: { path.hasPrefix($0 + "/") }) else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory + "/" + path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                names.append(path)
            }
        }
        return names.sorted()
    }()

    /// The zone files ICU also knows by the same name (the rest are listed by ``zoneNamesOfOnlyOneDatabase``).
    static let sharedZones: [String] = zoneFiles.filter { TimeZone(identifier: $0)?.identifier == $0 }

    /// Zones whose rules differ between ICU 2025b and Debian's tzdata, with the reason; empty while both are 2025b.
    static let knownDifferences: [String: String] = [:]

    static let start = Date(timeIntervalSince1970: 0)  // 1970-01-01
    static let end = Date(timeIntervalSince1970: 2_208_988_800)  // 2040-01-01

    @Test func theDatabaseIsThere() {
        #expect(Self.zoneFiles.count > 300, "no tz database under \(Self.directory): apt-get install tzdata")
        #expect(Self.sharedZones.count > 300)
    }

    @Test func zoneNamesOfOnlyOneDatabase() {
        let onlyFiles = Self.zoneFiles.filter { TimeZone(identifier: $0)?.identifier != $0 }
        #expect(onlyFiles == [], "zone files ICU does not know: \(onlyFiles)")
    }

    @Test(arguments: sharedZones)
    func offsetsAgreeWithICU(_ name: String) throws {
        guard Self.knownDifferences[name] == nil else { return }
        let rules = try #require(TimeZoneCache.shared.zone(named: name))
        let icu = try #require(TimeZone(identifier: name))
        var instants: [Int64] = []
        var date = Self.start
        while let next = icu.nextDaylightSavingTimeTransition(after: date), next < Self.end {
            instants.append(Int64(next.timeIntervalSince1970))
            date = next
        }
        let ours = rules.changes(
            from: Int64(Self.start.timeIntervalSince1970), through: Int64(Self.end.timeIntervalSince1970))
        instants += ours.changes.map(\.at)
        for instant in instants + stride(from: 0, to: 2_208_988_800, by: 7_776_007).map(Int64.init) {
            for probe in [instant - 1, instant] {
                let expected = icu.secondsFromGMT(for: Date(timeIntervalSince1970: Double(probe)))
                #expect(rules.secondsFromGMT(at: probe) == expected, "\(name) at \(probe)")
            }
        }
    }

    @Test(arguments: sharedZones)
    func localDaysAgreeWithICU(_ name: String) throws {
        guard Self.knownDifferences[name] == nil else { return }
        let rules = try #require(TimeZoneCache.shared.zone(named: name))
        let icu = try #require(TimeZone(identifier: name))
        let ours = rules.changes(
            from: Int64(Self.start.timeIntervalSince1970), through: Int64(Self.end.timeIntervalSince1970))
        var days = Set(stride(from: 0, to: 25_567, by: 37))
        for change in ours.changes {
            let day = Int((change.at + Int64(change.offset)) / 86_400)
            days.formUnion((day - 1)...(day + 1))
        }
        for day in days.sorted() {
            let start = rules.startOfLocalDay(day)
            if start == rules.startOfLocalDay(day + 1) {
                // A day the zone skipped (a jump across the date line: Apia and Fakaofo 2011-12-30, Kanton and
                // Kiritimati 1994-12-31, Kwajalein 1993-08-21) has no instants: an empty period here, where ICU's
                // noon-based answer is the previous day's start (a 24-hour period that repeats the day before).
                #expect(Self.icuStartOfLocalDay(day, icu) == rules.startOfLocalDay(day - 1), "\(name) day \(day)")
            } else {
                #expect(start == Self.icuStartOfLocalDay(day, icu), "\(name) day \(day)")
            }
        }
    }

    /// The clinical suite's special days: 23-, 23.5- and 25-hour days, offsets of :30 and :45 minutes.
    @Test(arguments: [
        ("Australia/Lord_Howe", "2026-10-04", 23.5), ("Australia/Lord_Howe", "2026-04-05", 24.5),
        ("Asia/Kathmandu", "2026-10-01", 24), ("America/St_Johns", "2026-03-08", 23),
        ("America/St_Johns", "2026-11-01", 25), ("Europe/Bratislava", "2026-03-29", 23),
        ("Europe/Bratislava", "2026-10-25", 25), ("America/Santiago", "2026-09-06", 23),
        ("Pacific/Apia", "2011-12-29", 24), ("Pacific/Apia", "2011-12-31", 24),
    ])
    func clinicalDays(_ name: String, _ day: String, _ hours: Double) throws {
        let rules = try #require(TimeZoneCache.shared.zone(named: name))
        let date = try #require(day.withCString { CivilDate(iso: UnsafeRawBufferPointer(start: $0, count: 10)) })
        let bounds = TimeZoneCache.shared.bounds(day: date.daysSinceEpoch, zone: rules)
        #expect(Double(bounds.end - bounds.start) / 3600 == hours)
        let icu = try #require(TimeZone(identifier: name))
        #expect(bounds.start == Self.icuStartOfLocalDay(date.daysSinceEpoch, icu))
        #expect(bounds.startOffset == icu.secondsFromGMT(for: Date(timeIntervalSince1970: Double(bounds.start))))
    }

    /// Days skipped by a jump across the date line have no instants; every other day from 1970 to 2040 has some.
    @Test(arguments: [
        ("Pacific/Apia", CivilDate(year: 2011, month: 12, day: 30)),
        ("Pacific/Fakaofo", CivilDate(year: 2011, month: 12, day: 30)),
        ("Pacific/Kiritimati", CivilDate(year: 1994, month: 12, day: 31)),
        ("Pacific/Kwajalein", CivilDate(year: 1993, month: 8, day: 21)),
    ])
    func skippedDays(_ name: String, _ date: CivilDate) throws {
        let rules = try #require(TimeZoneCache.shared.zone(named: name))
        let day = date.daysSinceEpoch
        #expect(rules.startOfLocalDay(day) == rules.startOfLocalDay(day + 1))
        #expect(rules.startOfLocalDay(day - 1) < rules.startOfLocalDay(day))
    }

    @Test(arguments: [
        "Mars/Olympus", "Europe/Atlantis", "Europe/", "Europe//Paris", "europe/paris", "Etc/GMT+2",
        "EST5EDT", "posix/Europe/Paris", "Europe/../zone.tab", "Factory", "",
    ])
    func unknownZonesAreRejected(_ name: String) {
        #expect(TimeZoneCache.shared.zone(named: name) == nil)
    }

    @Test func utcNeedsNoDatabase() throws {
        let utc = try #require(TimeZoneCache.shared.zone(named: "UTC"))
        #expect(utc.secondsFromGMT(at: 1_790_000_000) == 0)
        #expect(utc.startOfLocalDay(20_000) == 20_000 * 86_400)
    }

    /// The implementation this reader replaced: ICU through Foundation's `Calendar`.
    static func icuStartOfLocalDay(_ day: Int, _ zone: TimeZone) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let localNoon = Int64(day) * 86_400 + 43_200
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(localNoon)))
        let noon = Date(timeIntervalSince1970: Double(localNoon - Int64(offset)))
        return Int64(calendar.startOfDay(for: noon).timeIntervalSince1970.rounded())
    }
}
