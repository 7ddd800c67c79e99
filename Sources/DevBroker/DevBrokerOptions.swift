/// Command-line options of `devbroker`.
struct DevBrokerOptions {
    var brokers = 3
    var topics: [(name: String, partitions: Int)] = []
    var bootstrapFile: String?
    /// A FIFO path to create, or `-` for stdin.
    var control: String?

    static let defaultTopics: [(name: String, partitions: Int)] = [("daily-values", 12), ("daily-values.dlq", 3)]

    static let help = """
        usage: devbroker [--brokers N] [--topic NAME:PARTITIONS]... [--bootstrap-file PATH] [--control PATH|-]

        Runs librdkafka's mock Kafka cluster (real Kafka protocol over TCP on 127.0.0.1) until SIGTERM/SIGINT.
        FOR DEVELOPMENT AND TESTS ONLY: data is kept in memory only and lost when devbroker exits. In production
        point the producer's and worker's --brokers at a real Kafka cluster instead.
        The librdkafka 2.0.2 mock keeps at most 5 MiB or 100,000 batches per partition and silently drops the
        oldest data beyond that: use enough partitions and lz4 compression. No SASL/TLS, no persistence.

        options:
          --brokers N              number of mock brokers, ids 1..N (default 3)
          --topic NAME:PARTITIONS  create a topic (repeatable; default daily-values:12 and daily-values.dlq:3)
          --bootstrap-file PATH    also write the bootstrap list (host:port,...) to PATH, followed by the line
                                   "# devbroker: ..." that marks it as a development broker's: a worker given
                                   --brokers-file PATH then runs without an id key (see worker --help)
          --control PATH|-         read fault-injection commands, one per line, from a FIFO created at PATH
                                   (removed on exit) or from stdin (-); each is answered on stdout with
                                   "ok ..." or "error ..."
          --help                   show this text

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
        """

    /// Parses `arguments` (without the program name).
    /// - Throws: a message for the user when an option is unknown or malformed.
    static func parse(_ arguments: [String]) throws(DevBrokerUsageError) -> DevBrokerOptions? {
        var options = DevBrokerOptions()
        var remaining = arguments[...]
        func value(_ option: String) throws(DevBrokerUsageError) -> String {
            guard let value = remaining.popFirst() else { throw DevBrokerUsageError("\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                return nil
            case "--brokers":
                let text = try value(argument)
                guard let count = Int(text), count >= 1 else {
                    throw DevBrokerUsageError("--brokers must be a positive integer, got '\(text)'")
                }
                options.brokers = count
            case "--topic":
                let text = try value(argument)
                let parts = text.split(separator: ":")
                guard parts.count == 2, !parts[0].isEmpty, let count = Int(parts[1]), count >= 1 else {
                    throw DevBrokerUsageError("--topic must be NAME:PARTITIONS, got '\(text)'")
                }
                options.topics.append((String(parts[0]), count))
            case "--bootstrap-file":
                options.bootstrapFile = try value(argument)
            case "--control":
                options.control = try value(argument)
            default:
                throw DevBrokerUsageError("unknown option '\(argument)'")
            }
        }
        if options.topics.isEmpty { options.topics = defaultTopics }
        return options
    }
}

/// A command-line mistake, reported with the usage hint.
struct DevBrokerUsageError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
