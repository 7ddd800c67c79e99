import CommandLineOptions

/// When the last copy of an erased person's events leaves Kafka (docs/PRIVACY.md): the topic keeps every event
/// until its `retention.ms`, and a new-group replay meanwhile stores nothing of the person (the ledger refuses them).
enum KafkaRetention {
    static let options: [CommandLineOption] = []

    /// The line `storectl erase` prints about the copies Kafka still holds.
    static func lastCopyNotice(_ arguments: ParsedCommandLine) async -> String {
        "kafka: the topic keeps the person's events until its retention.ms passes; replays store nothing of them"
    }
}
