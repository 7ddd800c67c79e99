import CommandLineOptions

/// Command-line options of `devbroker`.
struct DevBrokerOptions {
    var brokers = 3
    var topics: [(name: String, partitions: Int)] = []
    var bootstrapFile: String?
    /// A FIFO path to create, or `-` for stdin.
    var control: String?

    static let defaultTopics: [(name: String, partitions: Int)] = [("daily-values", 12), ("daily-values.dlq", 3)]

    static let parser = CommandLineParser(sections: [.init("options:", optionList)])

    private static let optionList: [CommandLineOption] = [
        .value("--brokers", "N", help: "number of mock brokers, ids 1..N (default 3)").typed(
            .integer(1...Int.max), default: "3"),
        .value(
            "--topic", "NAME:PARTITIONS", repeatable: true,
            help: "create a topic (repeatable; default daily-values:12 and daily-values.dlq:3)"),
        .value(
            "--bootstrap-file", "PATH",
            help: """
                also write the bootstrap list (host:port,...) to PATH, followed by the line
                "# devbroker: ..." that marks it as a development broker's: a worker given
                --brokers-file PATH then runs without an id key (see worker --help)
                """),
        .value(
            "--control", "PATH|-",
            help: """
                read fault-injection commands, one per line, from a FIFO created at PATH
                (removed on exit) or from stdin (-); each is answered on stdout with
                "ok ..." or "error ..."
                """),
        .help,
    ]

    static let help = parser.helpText(
        header: """
            usage: devbroker [--brokers N] [--topic NAME:PARTITIONS]... [--bootstrap-file PATH] [--control PATH|-]

            Runs librdkafka's mock Kafka cluster (real Kafka protocol over TCP on 127.0.0.1) until SIGTERM/SIGINT.
            FOR DEVELOPMENT AND TESTS ONLY: data is kept in memory only and lost when devbroker exits. In production
            point the producer's and worker's --brokers at a real Kafka cluster instead.
            The librdkafka 2.0.2 mock keeps at most 5 MiB or 100,000 batches per partition and silently drops the
            oldest data beyond that: use enough partitions and lz4 compression. No SASL/TLS, no persistence.
            """,
        footer: """
            control commands (broker ID -1 = all brokers; API keys: Produce 0, Fetch 1, ListOffsets 2, Metadata 3,
            OffsetCommit 8, OffsetFetch 9, FindCoordinator 10, JoinGroup 11, Heartbeat 12, LeaveGroup 13,
            SyncGroup 14; CODE is a librdkafka error code, e.g. 6 NOT_LEADER_FOR_PARTITION, -195 _TRANSPORT):
              down ID                      take broker ID down (connections refused; leadership does not move)
              up ID                        bring broker ID back up
              rtt ID|-1 MS                 delay every response of a broker (or all) by MS milliseconds
              leader TOPIC PART ID         move the leader of a partition (-1 = leaderless)
              coord GROUP ID               make broker ID the coordinator of consumer group GROUP
              err APIKEY CODE COUNT        fail the next COUNT requests of APIKEY (any broker) with CODE
              berr BROKER APIKEY CODE RTT  fail the next APIKEY request to BROKER with CODE after RTT ms (CODE 0 = delay)
              clear APIKEY                 clear the cluster-wide injected errors of APIKEY
              topicerr TOPIC CODE          make metadata requests for TOPIC fail with CODE (0 clears)
              create TOPIC PARTS           create a topic
            """)

    /// Parses `arguments` (without the program name).
    /// - Returns: nil when `--help` was asked for.
    /// - Throws: ``UsageError`` naming the option when one is unknown or malformed.
    static func parse(_ arguments: [String]) throws(UsageError) -> DevBrokerOptions? {
        let parsed = try parser.parse(arguments)
        if parsed.wantsHelp { return nil }
        var options = DevBrokerOptions()
        if let text = parsed.value("--brokers") {
            guard let count = Int(text), count >= 1 else {
                throw .invalid("--brokers", "must be a positive integer, got '\(text)'")
            }
            options.brokers = count
        }
        for text in parsed.all("--topic") {
            let parts = text.split(separator: ":")
            guard parts.count == 2, !parts[0].isEmpty, let count = Int(parts[1]), count >= 1 else {
                throw .invalid("--topic", "must be NAME:PARTITIONS, got '\(text)'")
            }
            options.topics.append((String(parts[0]), count))
        }
        options.bootstrapFile = parsed.value("--bootstrap-file")
        options.control = parsed.value("--control")
        if options.topics.isEmpty { options.topics = defaultTopics }
        return options
    }
}
