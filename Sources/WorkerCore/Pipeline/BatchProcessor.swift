import DailyValueContract
import Kafka
import ObservationMapping
import StoreCore

/// Turns a batch of Kafka messages into Observation records and dead-letter records (pure, no I/O).
///
/// Two steps, so that the worker can skip the mapping of events whose version the store already holds (replays):
/// ``decode(_:)`` validates every message; ``map(_:storedAtLeast:)`` maps the survivors of the version check.
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

    /// The result of processing one batch. Counts are kept per partition, so that a partition revoked before the
    /// batch is written is removed whole (``remove(partitions:)``).
    struct Output: Sendable {
        var decoded: [Decoded] = []
        var mapped: [Mapped] = []
        /// Events not mapped because the store already holds their version or a newer one, by outcome.
        var skipped: [KafkaTopicPartition: [UpsertOutcome: Int]] = [:]
        var deadLetters: [DeadLetterRecord] = []
        /// Valid events' source fields left out for exceeding their stored cap, by field, for metrics.
        var omittedSourceFields: [KafkaTopicPartition: [String: Int]] = [:]

        /// Drops everything of `partitions` (revoked while the batch waited for its turn).
        mutating func remove(partitions: Set<KafkaTopicPartition>) {
            guard !partitions.isEmpty else { return }
            decoded.removeAll { partitions.contains($0.message.topicPartition) }
            mapped.removeAll { partitions.contains($0.message.topicPartition) }
            deadLetters.removeAll { partitions.contains($0.original.topicPartition) }
            for tp in partitions {
                skipped[tp] = nil
                omittedSourceFields[tp] = nil
            }
        }

        /// ``skipped`` summed over the partitions.
        var skippedTotals: [UpsertOutcome: Int] {
            skipped.values.reduce(into: [:]) { totals, counts in totals.merge(counts, uniquingKeysWith: +) }
        }
    }

    let decoder: DailyValueDecoder
    let mapper: ObservationMapper
    let deadLetter: DeadLetter

    /// Validates every message; invalid ones become dead-letter records.
    func decode(_ messages: [KafkaMessage]) -> Output {
        var output = Output()
        output.decoded.reserveCapacity(messages.count)
        for message in messages {
            do {
                let event = try decoder.validateEvent(message.value, recordTimestampMs: message.timestampMs)
                output.decoded.append(Decoded(event: event, message: message, versionKey: .init(event.identity)))
                if case .value(let value) = event, !value.omittedSourceFields.isEmpty {
                    for field in value.omittedSourceFields {
                        output.omittedSourceFields[message.topicPartition, default: [:]][field, default: 0] += 1
                    }
                }
            } catch {
                addDeadLetter(for: message, message.valueIsNull ? Self.nullValue : error, to: &output)
            }
        }
        return output
    }

    /// Maps the decoded events, except those `storedAtLeast` (the version cache's bounds, aligned with
    /// `output.decoded`) proves cannot change anything: those are only counted. An event below its bound is not
    /// mapped; a value of the bound's version is dropped unmapped only when its clinical value (written alone, a
    /// fraction of the mapping) is the one known there; any other goes on to the store, which tells a duplicate
    /// from a conflict.
    func map(_ output: inout Output, storedAtLeast bounds: [VersionCache.Bound?]) {
        output.mapped.reserveCapacity(output.decoded.count)
        // Skips are counted per run of one partition (records come in runs), not one dictionary update per record.
        var run: (topic: String, partition: Int32, counts: [UpsertOutcome: Int])?
        func endRun() {
            guard let run, !run.counts.isEmpty else { return }
            output.skipped[KafkaTopicPartition(topic: run.topic, partition: run.partition), default: [:]]
                .merge(run.counts, uniquingKeysWith: +)
        }
        for (decoded, bound) in zip(output.decoded, bounds) {
            let message = decoded.message
            if run == nil || run!.partition != message.partition || run!.topic != message.topic {
                endRun()
                run = (message.topic, message.partition, [:])
            }
            if let bound, let known = Self.known(decoded, bound, mapper) {
                run?.counts[known, default: 0] += 1
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
        endRun()
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
            return VersionCache.valueHash(ClinicalDigest.of(clinical)[...]) == bound.valueHash ? .unchanged : nil
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
    }
}
