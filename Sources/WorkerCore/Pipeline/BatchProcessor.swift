import Kafka
import ObservationUpsert

/// Turns a batch of Kafka messages into Observation records and dead-letter records (pure, no I/O).
///
/// Two steps, so that the worker can skip the mapping of events whose version the store already holds (replays):
/// ``decode(_:)`` validates every message; ``map(_:into:skipping:)`` maps the survivors of the version check.
struct BatchProcessor: Sendable {
    /// A valid event, mapped.
    struct Mapped: Sendable {
        var record: ObservationRecord
        /// The event's Kafka record (dead-lettered if the store's server refuses the Observation).
        var message: KafkaMessage
        /// The identity's version-cache key (computed once, at decoding).
        var versionKey: VersionCache.Key
    }

    /// A valid event (a value or a retraction), not yet mapped.
    struct Decoded: Sendable {
        var event: DailyEvent
        var message: KafkaMessage
        /// The identity's version-cache key, for every lookup and update of this event.
        var versionKey: VersionCache.Key
        /// The version the upsert is guarded by (decided by validation: the event's, else the record timestamp).
        var version: Int64 { event.version }
    }

    /// The result of processing one batch.
    struct Output: Sendable {
        var decoded: [Decoded] = []
        var mapped: [Mapped] = []
        /// Events not mapped because the store already holds their version or a newer one, by outcome.
        var skipped: [UpsertOutcome: Int] = [:]
        var deadLetters: [DeadLetterRecord] = []
        /// Dead-letter counts by error class, for metrics.
        var deadLetterClasses: [String: Int] = [:]
        /// Valid events' source fields left out for exceeding their stored cap, by field, for metrics.
        var omittedSourceFields: [String: Int] = [:]
        /// Per partition, the batch's last record: its offset + 1 is what to store once the batch is durable.
        var lastRecords: [KafkaTopicPartition: KafkaMessage] = [:]
    }

    let decoder: DailyValueDecoder
    let mapper: ObservationMapper
    let deadLetter: DeadLetter

    /// Validates every message; invalid ones become dead-letter records.
    func decode(_ messages: [KafkaMessage]) -> Output {
        var output = Output()
        output.decoded.reserveCapacity(messages.count)
        // Records come in runs of one partition: the dictionary is touched once per run, not per record.
        var run: KafkaMessage?
        func endRun() {
            guard let last = run else { return }
            let tp = last.topicPartition
            if (output.lastRecords[tp]?.offset ?? -1) < last.offset { output.lastRecords[tp] = last }
        }
        for message in messages {
            if let last = run, last.partition == message.partition, last.topic == message.topic {
                if last.offset < message.offset { run = message }
            } else {
                endRun()
                run = message
            }
            do {
                let event = try decoder.validateEvent(message.value, recordTimestampMs: message.timestampMs)
                output.decoded.append(Decoded(event: event, message: message, versionKey: .init(event.identity)))
                if case .value(let value) = event {
                    for field in value.omittedSourceFields { output.omittedSourceFields[field, default: 0] += 1 }
                }
            } catch {
                addDeadLetter(for: message, message.valueIsNull ? Self.nullValue : error, to: &output)
            }
        }
        endRun()
        return output
    }

    /// Maps the decoded events, except those `storedAtLeast` (the version cache's bounds, aligned with
    /// `output.decoded`) proves cannot change anything: those are only counted. An event below its bound is not
    /// mapped; a value of the bound's version is dropped unmapped only when its clinical value (written alone, a
    /// fraction of the mapping) is the one known there; any other goes on to the store, which tells a duplicate
    /// from a conflict.
    func map(_ output: inout Output, storedAtLeast bounds: [VersionCache.Bound?]) {
        output.mapped.reserveCapacity(output.decoded.count)
        for (decoded, bound) in zip(output.decoded, bounds) {
            if let bound, let known = Self.known(decoded, bound, mapper) {
                output.skipped[known, default: 0] += 1
                continue
            }
            do {
                let record =
                    switch decoded.event {
                    case .value(let value):
                        try mapper.map(value, recordTimestampMs: decoded.message.timestampMs ?? decoded.version)
                    case .retraction(let retraction): mapper.map(retraction)
                    }
                output.mapped.append(
                    Mapped(record: record, message: decoded.message, versionKey: decoded.versionKey))
            } catch {
                addDeadLetter(for: decoded.message, error, to: &output)
            }
        }
        output.decoded = []
    }

    /// What `bound` proves of `decoded` before it is mapped (nil: map it).
    private static func known(
        _ decoded: Decoded, _ bound: VersionCache.Bound, _ mapper: ObservationMapper
    ) -> UpsertOutcome? {
        switch decoded.event {
        case .retraction: return bound.outcome(of: decoded.version, isRetraction: true)
        case .value(let value):
            if let known = bound.outcome(of: decoded.version, isRetraction: false) { return known }
            guard decoded.version == bound.version, bound.valueHash != 0,
                let clinical = mapper.clinicalValueUTF8(of: value)
            else { return nil }
            return VersionCache.valueHash(clinical[...]) == bound.valueHash ? .unchanged : nil
        }
    }

    /// A null value (a tombstone) is no event: retractions are explicit events (docs/LIFECYCLE.md).
    static let nullValue = DailyValueError(
        .invalidJSON, field: "",
        "the record's value is null (a Kafka tombstone); a day is retracted by a retraction event, never by a null")

    private func addDeadLetter(for message: KafkaMessage, _ error: DailyValueError, to output: inout Output) {
        let stage: DeadLetter.Stage = error.kind == .invalidJSON ? .deserialize : .validate
        output.deadLetters.append(
            deadLetter.record(for: message, stage: stage, className: error.className, reason: error.description))
        output.deadLetterClasses[error.className, default: 0] += 1
    }
}
