import CommandLineOptions
import Essentials
import Kafka
import Producer

/// `producer generate`: streams the generator's events to a file or to Kafka, and its oracle to a file.
struct GenerateCommand {
    let options: GenerateOptions
    /// Events per Kafka batch; the next batch is generated while one is in flight.
    static let batchSize = 50_000

    /// Runs the command and returns the exit status.
    func run() async throws -> Int32 {
        let generator = try PopulationGenerator(configuration: options.generator)
        let oracle = try options.oracleOut.map { path throws(ProducerConfigurationError) in
            try BufferedFileWriter(path: path, option: "--oracle-out")
        }
        try oracle?.writeLine(
            "# daily-values generator oracle v1: identity<TAB>highest valid version | invalid<TAB>line<TAB>class")
        var counts: [GeneratedEvent.Kind: Int] = [:]
        var identities = 0
        var rateLimiter = options.rate.map { RateLimiter(eventsPerSecond: $0) }
        var progress = ProgressReporter()
        let sink = try makeSink()
        var total = 0
        for event in generator {
            if rateLimiter != nil { await rateLimiter!.admit() }
            counts[event.kind, default: 0] += 1
            total += 1
            if let entry = event.oracle {
                identities += 1
                try oracle?.writeLine("\(entry.identity)\t\(entry.highestVersion)")
            }
            if let invalidClass = event.invalidClass {
                try oracle?.writeLine("invalid\t\(event.sequence)\t\(invalidClass.rawValue)")
            }
            try await sink.write(event)
            progress.tick { "generated \(total) events" + sink.status(elapsedSeconds: $0) }
        }
        try oracle?.flush()
        let tally = try await sink.finish()
        let kinds = GeneratedEvent.Kind.allCases.map { "\($0.rawValue) \(counts[$0, default: 0])" }
        StandardError.print(
            "generated \(total) events for \(identities) identities (\(kinds.joined(separator: ", ")))"
        )
        guard let tally else { return 0 }
        StandardError.print("summary: " + tally.line(elapsedSeconds: progress.elapsedSeconds))
        return tally.acknowledged == total ? 0 : 1
    }

    private func makeSink() throws -> GeneratedEventSink {
        if let out = options.out {
            return .file(try BufferedFileWriter(path: out, option: "--out"))
        }
        let configuration = DailyValuePublisherConfiguration(
            producer: try options.connection.producerConfiguration(),
            topic: try options.connection.resolvedTopic()
        )
        let publisher = try DailyValuePublisher(configuration: configuration)
        return .kafka(KafkaBatchSender(publisher: publisher, mode: .unvalidated, batchSize: kafkaBatchSize))
    }

    /// Without `--rate`, large batches for throughput; with it, about 100 ms of events per batch, so events reach
    /// the broker as they are generated instead of in bursts (which would also skew produce-to-durable delays).
    private var kafkaBatchSize: Int {
        guard let rate = options.rate else { return Self.batchSize }
        return max(1, min(Self.batchSize, Int(rate / 10)))
    }
}
