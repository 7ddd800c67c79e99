import CommandLineOptions
import DailyValueContract
import JSON
import Producer

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `producer publish`: validates input files, publishes the valid events' original bytes and reports.
struct PublishCommand {
    let options: PublishOptions

    /// Runs the command and returns the exit status.
    func run() async throws -> Int32 {
        let configuration = DailyValuePublisherConfiguration(
            producer: try options.connection.producerConfiguration(),
            topic: try options.connection.resolvedTopic()
        )
        let publisher = try DailyValuePublisher(configuration: configuration)
        var progress = ProgressReporter()
        var buffered: [String: [InputRecord]] = [:]
        if !options.raw, !options.skipInvalid {
            let check = try validateAll(with: publisher)
            guard check.invalid == 0 else {
                var tally = PublishTally()
                tally.read = check.read
                tally.rejected = check.invalid
                StandardError.print(
                    "nothing sent: \(check.invalid) of \(check.read) event(s) invalid "
                        + "(use --skip-invalid to send the valid ones)"
                )
                StandardError.print("summary: " + tally.line(elapsedSeconds: progress.elapsedSeconds))
                await publisher.close(timeout: .seconds(5))
                return 1
            }
            buffered = check.stdin.map { ["-": $0] } ?? [:]
        }
        let sender = KafkaBatchSender(
            publisher: publisher, mode: options.raw ? .unvalidated : .validated, batchSize: options.batchSize
        )
        var read = 0
        var problems = 0
        for path in options.files {
            let reader = try JSONRecordReader(path: path)
            var stored = buffered[path]?.makeIterator()
            func nextRecord() throws -> InputRecord? {
                if stored != nil { return stored!.next() }
                return try reader.next()
            }
            while let record = try nextRecord() {
                read += 1
                if let problem = record.problem, !options.raw {
                    StandardError.print("\(reader.displayName):\(record.line): \(problem)")
                    problems += 1
                    continue
                }
                let key = options.raw ? Self.bestEffortPatient(record.bytes, publisher: publisher) : nil
                await sender.add(key: key, value: record.bytes, source: reader.displayName, line: record.line)
                progress.tick { elapsed in
                    var tally = sender.tally
                    tally.read = read
                    return tally.line(elapsedSeconds: elapsed)
                }
            }
        }
        var tally = await sender.finish()
        tally.rejected += problems
        tally.read = read
        StandardError.print("summary: " + tally.line(elapsedSeconds: progress.elapsedSeconds))
        let invalidFails = tally.rejected > 0 && !options.allowInvalid
        return invalidFails || tally.failed > 0 ? 1 : 0
    }

    // MARK: - Validation pass

    /// Validates every record before anything is sent; stdin is kept in memory for the sending pass.
    private func validateAll(with publisher: DailyValuePublisher) throws
        -> (read: Int, invalid: Int, stdin: [InputRecord]?)
    {
        var read = 0
        var invalid = 0
        var stdin: [InputRecord]?
        let timestampMs = Int64(Date().timeIntervalSince1970 * 1_000)
        for path in options.files {
            let reader = try JSONRecordReader(path: path)
            if path == "-" { stdin = [] }
            while let record = try reader.next() {
                read += 1
                if path == "-" { stdin?.append(record) }
                let reason: String
                if let problem = record.problem {
                    reason = problem
                } else if case .failure(let error) = publisher.validate(record.bytes, recordTimestampMs: timestampMs) {
                    reason = error.description
                } else {
                    continue
                }
                invalid += 1
                StandardError.print("\(reader.displayName):\(record.line): \(reason)")
            }
        }
        return (read, invalid, stdin)
    }

    /// The patient id of a record sent with `--raw`: decoded when valid, else read leniently, else no key.
    static func bestEffortPatient(_ bytes: [UInt8], publisher: DailyValuePublisher) -> [UInt8]? {
        if case .success(let event) = publisher.validate(bytes, recordTimestampMs: 0) {
            return Array(event.patient.utf8)
        }
        let object = JSONValue.anyObject(bytes)
        return (object?["patient"] as? String).map { Array($0.utf8) }
    }
}
