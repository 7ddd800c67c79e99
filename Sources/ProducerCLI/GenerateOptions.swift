import Foundation
import Producer

/// `producer generate` options, parsed by hand.
struct GenerateOptions {
    var generator = GeneratorConfiguration()
    var out: String?
    var oracleOut: String?
    /// Events per second, `nil` for as fast as possible.
    var rate: Double?
    var connection = ConnectionOptions()
    var help = false
    private var startDayGiven = false

    static let help = """
        Usage: producer generate [options]

        Writes a deterministic synthetic population of DailyValue events, to a file (--out) or to Kafka.
        The same options and --seed give byte-identical output; pass --start-day for that across days.

        Population:
          --patients N              people, p-000001 … (default 100)
          --days D                  consecutive local days per person (default 7)
          --metrics all|K1,K2,…     metric keys (default all: \(MetricProfile.builtin.count) built-in profiles)
          --start-day YYYY-MM-DD    first day (default: D days before today, UTC)
          --seed S                  64-bit seed (default 1)
        Delivery patterns (shares in 0…1, default 0):
          --late-share X            identities re-delivered 1–3 days later with a higher version and new value
          --duplicate-share X       identities whose original is re-sent byte for byte
          --out-of-order-share X    identities whose older version is sent after the newer one
          --invalid-share X         share of ALL events that are invalid (≤ 0.9); classes drawn evenly from
                                    \(InvalidEventClass.allCases.map(\.rawValue).joined(separator: ", "))
          --invalid-classes C1,…    restrict the invalid classes
        Output:
          --out FILE                JSON lines to FILE (`-` = stdout) instead of Kafka
          --oracle-out FILE         the generator's truth, one line per fact, in send order:
                                      <patient>/<metric>/<day>\\t<highest valid version>   (one per identity)
                                      invalid\\t<line number>\\t<class>                     (one per invalid event)
          --rate N[/s]              at most N events per second

        \(ConnectionOptions.help)

        Without --out the events go to Kafka, keyed by patient, invalid ones included (they are test input).
        Exit status: 0 when every event was written (or acknowledged), 1 otherwise, 2 for usage errors.
        """

    init(arguments: [String]) throws(ProducerConfigurationError) {
        var arguments = CommandLineArguments(arguments)
        while let element = arguments.next() {
            guard case .option(let option) = element else {
                guard case .positional(let value) = element else { continue }
                throw ProducerConfigurationError(option: value, rule: "unexpected argument")
            }
            if try connection.parse(option, from: &arguments) { continue }
            try parse(option, from: &arguments)
        }
        guard !help else { return }
        if !startDayGiven {
            let today = CivilDay(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400))
            generator.startDay = today.adding(days: -generator.days)
        }
        try generator.validate()
    }

    private mutating func parse(_ option: String, from arguments: inout CommandLineArguments)
        throws(ProducerConfigurationError)
    {
        switch option {
        case "--help", "-h": help = true
        case "--patients": generator.patients = try arguments.integer(for: option, in: 1...100_000_000)
        case "--days": generator.days = try arguments.integer(for: option, in: 1...3_650)
        case "--metrics": generator.metrics = try Self.metrics(try arguments.value(for: option))
        case "--start-day":
            let text = try arguments.value(for: option)
            guard let day = CivilDay(text) else {
                throw ProducerConfigurationError(option: option, rule: "must be a date YYYY-MM-DD, got '\(text)'")
            }
            generator.startDay = day
            startDayGiven = true
        case "--seed":
            let text = try arguments.value(for: option)
            guard let seed = UInt64(text) else {
                throw ProducerConfigurationError(option: option, rule: "must be an unsigned 64-bit integer")
            }
            generator.seed = seed
        case "--late-share": generator.lateShare = try arguments.share(for: option)
        case "--duplicate-share": generator.duplicateShare = try arguments.share(for: option)
        case "--out-of-order-share": generator.outOfOrderShare = try arguments.share(for: option)
        case "--invalid-share": generator.invalidShare = try arguments.share(for: option)
        case "--invalid-classes": generator.invalidClasses = try Self.invalidClasses(try arguments.value(for: option))
        case "--out": out = try arguments.value(for: option)
        case "--oracle-out": oracleOut = try arguments.value(for: option)
        case "--rate":
            let text = try arguments.value(for: option)
            let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
            guard let rate = Double(number), rate > 0 else {
                throw ProducerConfigurationError(option: option, rule: "must be a positive number of events/s")
            }
            self.rate = rate
        default: throw ProducerConfigurationError(option: option, rule: "unknown option (see --help)")
        }
    }

    private static func metrics(_ text: String) throws(ProducerConfigurationError) -> [MetricProfile] {
        guard text != "all" else { return MetricProfile.builtin }
        var profiles: [MetricProfile] = []
        for key in text.split(separator: ",").map({ String($0).trimmingCharacters(in: .whitespaces) }) {
            guard let profile = MetricProfile.builtin(key: key) else {
                let known = MetricProfile.builtin.map(\.key).joined(separator: ", ")
                throw ProducerConfigurationError(option: "--metrics", rule: "unknown metric '\(key)' (known: \(known))")
            }
            profiles.append(profile)
        }
        return profiles
    }

    private static func invalidClasses(_ text: String) throws(ProducerConfigurationError) -> [InvalidEventClass] {
        var classes: [InvalidEventClass] = []
        for name in text.split(separator: ",") {
            guard let invalidClass = InvalidEventClass(rawValue: String(name)) else {
                throw ProducerConfigurationError(option: "--invalid-classes", rule: "unknown class '\(name)'")
            }
            classes.append(invalidClass)
        }
        return classes
    }
}
