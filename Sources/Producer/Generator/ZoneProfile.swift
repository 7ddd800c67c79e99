import Essentials

/// A local-day anchor assigned to a generated person: an IANA zone (with a nominal offset used only to place the
/// event's version near the local end of day) or a bare `utcOffset`.
public struct ZoneProfile: Sendable, Hashable {
    /// The JSON field and value sent: `("timeZone", "Europe/Bratislava")` or `("utcOffset", "+05:45")`.
    public var field: String
    public var value: String
    /// Seconds east of UTC, close enough to place "computed shortly after local midnight" versions.
    public var nominalOffsetSeconds: Int
    /// Relative weight in the population mix.
    public var weight: Int

    public init(field: String, value: String, nominalOffsetSeconds: Int, weight: Int) {
        self.field = field
        self.value = value
        self.nominalOffsetSeconds = nominalOffsetSeconds
        self.weight = weight
    }

    /// The population's zone mix: DST zones with unusual rules (half-hour St John's, 45-minute Kathmandu, Lord
    /// Howe's 30-minute DST shift, Kiritimati's +14:00) plus a share that only sends a fixed `utcOffset`.
    public static let mix: [ZoneProfile] = [
        ZoneProfile(field: "timeZone", value: "Europe/Bratislava", nominalOffsetSeconds: 3_600, weight: 30),
        ZoneProfile(field: "timeZone", value: "America/New_York", nominalOffsetSeconds: -18_000, weight: 25),
        ZoneProfile(field: "timeZone", value: "America/St_Johns", nominalOffsetSeconds: -12_600, weight: 8),
        ZoneProfile(field: "timeZone", value: "Asia/Kathmandu", nominalOffsetSeconds: 20_700, weight: 8),
        ZoneProfile(field: "timeZone", value: "Australia/Lord_Howe", nominalOffsetSeconds: 37_800, weight: 6),
        ZoneProfile(field: "timeZone", value: "Pacific/Kiritimati", nominalOffsetSeconds: 50_400, weight: 5),
        ZoneProfile(field: "utcOffset", value: "+02:00", nominalOffsetSeconds: 7_200, weight: 6),
        ZoneProfile(field: "utcOffset", value: "-03:30", nominalOffsetSeconds: -12_600, weight: 4),
        ZoneProfile(field: "utcOffset", value: "+05:45", nominalOffsetSeconds: 20_700, weight: 4),
        ZoneProfile(field: "utcOffset", value: "+00:00", nominalOffsetSeconds: 0, weight: 4),
    ]

    /// Picks a zone from ``mix`` by weight.
    static func pick(using random: inout SplitMix64) -> ZoneProfile {
        let total = mix.reduce(0) { $0 + $1.weight }
        var ticket = random.below(total)
        for zone in mix {
            if ticket < zone.weight { return zone }
            ticket -= zone.weight
        }
        return mix[mix.count - 1]
    }
}
