import Producer

/// Where `producer generate` writes: a JSON-lines file, or Kafka (every event, unvalidated, keyed by patient).
enum GeneratedEventSink {
    case file(BufferedFileWriter)
    case kafka(KafkaBatchSender)

    func write(_ event: GeneratedEvent) async throws {
        switch self {
        case .file(let writer): try writer.writeLine(event.bytes)
        case .kafka(let sender):
            await sender.add(
                key: Array(event.patient.utf8), value: event.bytes, source: "event", line: event.sequence
            )
        }
    }

    /// A progress suffix for Kafka runs.
    func status(elapsedSeconds: Double) -> String {
        guard case .kafka(let sender) = self else { return "" }
        return "; " + sender.tally.line(elapsedSeconds: elapsedSeconds)
    }

    /// Flushes the file, or sends the last batch and closes the producer; the Kafka tally, `nil` for a file.
    func finish() async throws -> PublishTally? {
        switch self {
        case .file(let writer):
            try writer.flush()
            return nil
        case .kafka(let sender):
            return await sender.finish()
        }
    }
}
