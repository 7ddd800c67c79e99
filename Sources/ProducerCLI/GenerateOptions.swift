import CommandLineOptions
import Essentials
import Producer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `producer generate` options.
struct GenerateOptions {
    var generator = GeneratorConfiguration()
    var out: String?
    var oracleOut: String?
    /// Events per second, `nil` for as fast as possible.
    var rate: Double?
    var connection = ConnectionOptions()
    var help = false
    private var startDayGiven = false

    static let parser = CommandLineParser(sections: [
        .init(
            "Population:",
            [
                .value("--patients", "N", help: "people, p-000001 … (default 100)"),
                .value("--days", "D", help: "consecutive local days per person (default 7)"),
                .value(
                    "--metrics", "all|K1,K2,…",
                    help: "metric keys (default all: \(MetricProfile.builtin.count) built-in profiles)"),
                .value("--start-day", "YYYY-MM-DD", help: "first day (default: D days before today, UTC)"),
                .value("--seed", "S", help: "64-bit seed (default 1)"),
            ]),
        .init(
            "Delivery patterns (shares in 0…1, default 0):",
            shares.map { .value($0.option, "X", help: $0.help) } + [
                .value("--invalid-classes", "C1,…", help: "restrict the invalid classes"),
            ]),
        .init(
            "Output:",
            [
                .value("--out", "FILE", help: "JSON lines to FILE (`-` = stdout) instead of Kafka"),
                .value(
                    "--oracle-out", "FILE",
                    help: """
                        the generator's truth, one line per fact, in send order:
                          <patient>/<metric>/<day>\\t<highest valid version>   (one per identity)
                          invalid\\t<line number>\\t<class>                     (one per invalid event)
                        """),
                .value("--rate", "N[/s]", help: "at most N events per second"),
            ]),
        ConnectionOptions.section,
    ])

    /// The delivery-pattern shares: the option, its help, and the generator setting it sets.
    private typealias Share = (option: String, help: String, setting: WritableKeyPath<GeneratorConfiguration, Double>)

    private static var shares: [Share] {
        [
            (
                "--late-share", "identities re-delivered 1–3 days later with a higher version and new value",
                \.lateShare
            ),
            ("--duplicate-share", "identities whose original is re-sent byte for byte", \.duplicateShare),
            ("--out-of-order-share", "identities whose older version is sent after the newer one", \.outOfOrderShare),
            (
                "--retraction-share", "identities retracted 1–3 days later (entered-in-error, docs/LIFECYCLE.md)",
                \.retractionShare
            ),
            (
                "--invalid-share",
                """
                share of ALL events that are invalid (≤ 0.9); classes drawn evenly from
                \(InvalidEventClass.allCases.map(\.rawValue).joined(separator: ", "))
                """,
                \.invalidShare
            ),
        ]
    }

    static let help = parser.helpText(
        header: """
            Usage: producer generate [options]

            Writes a deterministic synthetic population of DailyValue events, to a file (--out) or to Kafka.
            The same options and --seed give byte-identical output; pass --start-day for that across days.
            """,
        footer: """
            Without --out the events go to Kafka, keyed by patient, invalid ones included (they are test input).
            Exit status: 0 when every event was written (or acknowledged), 1 otherwise, 2 for usage errors.
            """)

    /// Parses the arguments after `generate`.
    /// - Throws: ``UsageError`` or ``ProducerConfigurationError`` naming the option.
    init(arguments: [String], environment: [String: String]) throws {
        let parsed = try Self.parser.parse(arguments, environment: environment)
        help = parsed.wantsHelp
        connection = ConnectionOptions(parsed)
        guard !help else { return }
        try read(parsed)
        if !startDayGiven {
            let today = CivilDay(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400))
            generator.startDay = today.adding(days: -generator.days)
        }
        try generator.validate()
    }

    private mutating func read(_ parsed: ParsedCommandLine) throws {
        generator.patients = try parsed.integer("--patients", in: 1...100_000_000) ?? generator.patients
        generator.days = try parsed.integer("--days", in: 1...3_650) ?? generator.days
        if let text = parsed.value("--metrics") { generator.metrics = try Self.metrics(text) }
        if let text = parsed.value("--start-day") {
            guard let day = CivilDay(text) else {
                throw ProducerConfigurationError(
                    option: "--start-day", rule: "must be a date YYYY-MM-DD, got '\(text)'")
            }
            generator.startDay = day
            startDayGiven = true
        }
        if let text = parsed.value("--seed") {
            guard let seed = UInt64(text) else {
                throw ProducerConfigurationError(option: "--seed", rule: "must be an unsigned 64-bit integer")
            }
            generator.seed = seed
        }
        for share in Self.shares {
            if let value = try parsed.number(share.option, in: 0...1) { generator[keyPath: share.setting] = value }
        }
        if let text = parsed.value("--invalid-classes") { generator.invalidClasses = try Self.invalidClasses(text) }
        out = parsed.value("--out")
        oracleOut = parsed.value("--oracle-out")
        if let text = parsed.value("--rate") {
            let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
            guard let rate = Double(number), rate > 0 else {
                throw ProducerConfigurationError(option: "--rate", rule: "must be a positive number of events/s")
            }
            self.rate = rate
        }
    }

    private static func metrics(_ text: String) throws(ProducerConfigurationError) -> [MetricProfile] {
        guard text != "all" else { return MetricProfile.builtin }
        var profiles: [MetricProfile] = []
        for key in text.split(separator: ",").map({ String($0).trimmingWhitespace() }) {
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
