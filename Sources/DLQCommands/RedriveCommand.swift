import CommandLineOptions
import DailyValueContract
import DeadLetters
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `dlq redrive [--dry-run]`: re-validates the selected dead letters with the current catalog and rules, sends
/// those that pass back to their origin topic and the rest to the quarantine topic (see ``RedriveRun``); drops those
/// of persons the store's erasure ledger refuses (``ErasureCheck``).
enum RedriveCommand {
    static let defaultGroup = "dvp-dlq-redrive"

    static let options =
        ParsedCommandLine.connectionOptions + [
            .flag("--dry-run", help: "read and re-validate only: report what would pass and what would fail again"),
            .value("--error-class", "CLASS", repeatable: true, help: "select this error class (repeatable)"),
            .value("--since", "TIME", help: "select dead letters that failed at or after TIME (RFC 3339 or a UTC day)"),
            .value("--until", "TIME", help: "select dead letters that failed before TIME"),
            .value("--origin-partition", "N", repeatable: true, help: "select this origin partition (repeatable)"),
            .value("--key", "KEY", help: "select the records with this Kafka key (a patient id; never printed)"),
            .value("--max", "N", help: "stop after N selected records (the next run continues)"),
            .value("--rate", "N", help: "republish at most N records per second"),
            .value(
                "--max-redrives", "N", environment: "DVP_MAX_REDRIVES",
                help: "quarantine a dead letter already redriven N times (default 3)"),
            .value(
                "--quarantine-topic", "NAME", environment: "DVP_QUARANTINE_TOPIC",
                help: "where records that cannot go back are copied (default <dlq-topic>.quarantine)"),
            .value(
                "--catalog", "FILE", environment: "DVP_CATALOG",
                help: "metric catalog overrides (JSON), as the worker's --catalog"),
            .flag("--from-beginning", help: "ignore the group's committed offsets and read the whole topic"),
        ] + ErasureCheck.options

    static func run(_ arguments: ParsedCommandLine) async throws -> Int32 {
        let filter = try filter(arguments)
        let topic = arguments.deadLetterTopic
        let group =
            arguments.value("--redrive-group")
            ?? (filter.isEmpty ? defaultGroup : "\(defaultGroup)-\(filter.fingerprint)")
        let quarantine = arguments.value("--quarantine-topic") ?? "\(topic).quarantine"
        guard quarantine != topic else {
            throw UsageError.invalid("--quarantine-topic", "must differ from the dead-letter topic")
        }
        let planner = RedrivePlanner(
            filter: filter, decoder: DailyValueDecoder(catalog: try catalog(arguments)),
            maxRedrives: try arguments.integer("--max-redrives", in: 1...1000) ?? 3, quarantineTopic: quarantine)
        var settings = RedriveRun.Settings(
            bootstrapServers: try arguments.brokers(), topic: topic, group: group, planner: planner)
        settings.properties = try arguments.kafkaProperties()
        settings.dryRun = arguments.isSet("--dry-run")
        settings.max = try arguments.integer("--max", in: 1...Int.max)
        settings.rate = try arguments.number("--rate", in: 0.1...1_000_000)
        settings.fromBeginning = arguments.isSet("--from-beginning")
        let ledger = try await ErasureCheck.open(arguments)
        if let ledger { settings.refusedPersons = { try await ledger.currentMask($0) } }
        let progress = ProgressLine()
        let summary: RedriveSummary
        do {
            summary = try await RedriveRun(settings: settings) { progress.report($0) }.run()
        } catch {
            await ledger?.close()
            throw error
        }
        await ledger?.close()
        print(arguments.isSet("--json") ? summary.json : summary.plainText)
        return summary.exitStatus
    }

    static func filter(_ arguments: ParsedCommandLine) throws -> DeadLetterFilter {
        var filter = DeadLetterFilter()
        filter.errorClasses = Set(arguments.all("--error-class"))
        filter.since = try arguments.instant("--since")
        filter.until = try arguments.instant("--until")
        for text in arguments.all("--origin-partition") {
            guard let partition = Int32(text), partition >= 0 else {
                throw UsageError.invalid("--origin-partition", "must be a partition number (0 or more)")
            }
            filter.originPartitions.insert(partition)
        }
        filter.key = arguments.value("--key").map { Array($0.utf8) }
        return filter
    }

    static func catalog(_ arguments: ParsedCommandLine) throws -> MetricCatalog {
        guard let file = arguments.value("--catalog") else { return .builtin }
        do {
            return try MetricCatalog.load(overridesFrom: URL(fileURLWithPath: file))
        } catch {
            throw UsageError.invalid("--catalog", "\(error)")
        }
    }
}
