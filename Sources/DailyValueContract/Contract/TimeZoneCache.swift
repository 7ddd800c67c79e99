import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Validated IANA time zones and local-day boundaries, cached process-wide.
///
/// Zones are read from the system's tz database (``ZoneRules``, TZif files under ``zoneInfoDirectory``) rather than
/// from ICU through Foundation's `TimeZone`; reading a file and working out a day's bounds are too slow for every
/// event, so both results are cached behind a `Mutex`. The caches are bounded so hostile input (random zone names,
/// far-apart days) cannot grow memory.
package final class TimeZoneCache: Sendable {
    /// One local day in one zone: its first instant and the first instant of the next day, with their offsets.
    package struct DayBounds: Sendable, Hashable {
        package var start: Int64
        package var startOffset: Int
        package var end: Int64
        package var endOffset: Int
    }

    private struct DayKey: Hashable {
        var zone: String
        var day: Int
    }

    private struct State {
        var zones: [String: ZoneRules?] = [:]
        var days: [DayKey: DayBounds] = [:]
    }

    package static let shared = TimeZoneCache()
    private static let maxEntries = 16_384
    private let state = Mutex(State())
    /// Where the compiled tz database lives: `$TZDIR` when set (as glibc reads it), else Debian's `tzdata`.
    package static let zoneInfoDirectory =
        ProcessInfo.processInfo.environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"

    /// Why the tz database cannot serve, or nil when it can (a zone every tz database holds resolves). The services
    /// check it at start: without the database every event naming a zone would be refused as `InvalidTimeZone`.
    package func databaseProblem() -> String? {
        guard zone(named: "America/New_York") == nil else { return nil }
        return "no IANA time-zone database at \(Self.zoneInfoDirectory) (install the tzdata package, or set TZDIR): "
            + "every event naming a timeZone would be refused"
    }

    // MARK: - Zones

    /// The zone for an IANA location name of the system tz database, or `nil`.
    ///
    /// Accepted: `UTC`, and names of a TZif file under ``zoneInfoDirectory`` whose first part is one of the tz
    /// database's location areas (``locationAreas``: `Europe/Bratislava`, `America/Argentina/Salta`, the backward
    /// links `US/Eastern`, `Canada/…`, …). Rejected: non-locations the database also holds (`Factory`,
    /// `localtime`, `posixrules`, `EST5EDT`, `CET`, the `Etc/GMT±N` fixed offsets with their inverted signs, the
    /// `posix/` and `right/` copies) and ad-hoc forms such as `GMT+2`; a fixed offset is sent as `utcOffset`.
    package func zone(named name: String) -> ZoneRules? {
        if let cached = state.withLock({ $0.zones[name] }) { return cached }
        let zone = Self.resolve(name)
        state.withLock { state in
            if state.zones.count >= Self.maxEntries { state.zones.removeAll(keepingCapacity: true) }
            state.zones[name] = zone
        }
        return zone
    }

    /// The first parts of the tz database's location names: its continents and oceans (`zone1970.tab`) and the
    /// areas of its `backward` links to them.
    package static let locationAreas: [String] = [
        "Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific",
        "Brazil", "Canada", "Chile", "Mexico", "US",
    ]

    private static func resolve(_ name: String) -> ZoneRules? {
        if name == "UTC" { return .utc }
        guard locationAreas.contains(where: { name.hasPrefix($0 + "/") }) else { return nil }
        guard (1...64).contains(name.utf8.count), name.utf8.first.map(isLetter) == true,
            name.utf8.allSatisfy({ isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || "/_+-".utf8.contains($0) }),
            !name.contains("//"), let data = FileManager.default.contents(atPath: zoneInfoDirectory + "/" + name)
        else { return nil }
        return ZoneRules(identifier: name, tzif: [UInt8](data))
    }

    private static func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }

    // MARK: - Day bounds

    /// The bounds of local day `day` (days since 1970-01-01) in `zone`; DST days are 23 or 25 hours long.
    package func bounds(day: Int, zone: ZoneRules) -> DayBounds {
        let key = DayKey(zone: zone.identifier, day: day)
        if let cached = state.withLock({ $0.days[key] }) { return cached }
        let start = zone.startOfLocalDay(day)
        let end = zone.startOfLocalDay(day + 1)
        let bounds = DayBounds(
            start: start, startOffset: zone.secondsFromGMT(at: start), end: end, endOffset: zone.secondsFromGMT(at: end)
        )
        state.withLock { state in
            if state.days.count >= Self.maxEntries { state.days.removeAll(keepingCapacity: true) }
            state.days[key] = bounds
        }
        return bounds
    }

    /// The bounds of local day `date` in `zone`: a named zone through the cache, a fixed offset by arithmetic.
    package func bounds(of date: CivilDate, in zone: ValidatedDailyValue.Zone) -> DayBounds {
        switch zone {
        case .named(let zone):
            return bounds(day: date.daysSinceEpoch, zone: zone)
        case .fixed(let offset):
            let start = Int64(date.daysSinceEpoch) * 86_400 - Int64(offset)
            return DayBounds(start: start, startOffset: offset, end: start + 86_400, endOffset: offset)
        }
    }
}
