extension KafkaConsumerState {
    /// What a batch collected from one take of events.
    struct Accounted {
        var messages: [KafkaMessage] = []
        var errors: [KafkaError] = []
        var dropped = 0
    }

    /// One take of events in the order they came, records folded into runs of one partition and generation.
    enum Step {
        case run(Range<Int>, KafkaTopicPartition, generation: UInt64, nextOffset: Int64)
        case end(KafkaTopicPartition, nextOffset: Int64, generation: UInt64)
    }

    /// Folds `events` into runs (outside any lock: this is the per-record work), collecting the errors.
    static func steps(of events: [KafkaConsumerEvent], errors: inout [KafkaError]) -> [Step] {
        var steps: [Step] = []
        var index = events.startIndex
        while index < events.endIndex {
            switch events[index] {
            case .message(let first):
                var end = index + 1
                var last = first.offset
                while end < events.endIndex, case .message(let next) = events[end], next.partition == first.partition,
                    next.assignmentGeneration == first.assignmentGeneration, next.topic == first.topic
                {
                    last = max(last, next.offset)
                    end += 1
                }
                steps.append(
                    .run(index..<end, first.topicPartition, generation: first.assignmentGeneration, nextOffset: last + 1))
                index = end
                continue
            case .partitionEOF(let topic, let partition, let offset, let generation):
                steps.append(.end(KafkaTopicPartition(topic: topic, partition: partition), nextOffset: offset,
                                  generation: generation))
            case .error(let error):
                errors.append(error)
            }
            index += 1
        }
        return steps
    }

    /// Claims each run of `steps` for batch `fence` (or refuses it: its generation ended) and records the ends of
    /// partitions, in order: one claim per run, under the caller's lock. - Returns: whether each run was claimed.
    mutating func claim(_ steps: [Step], into fence: inout KafkaBatchFence) -> [Bool] {
        var claimed: [Bool] = []
        claimed.reserveCapacity(steps.count)
        for step in steps {
            switch step {
            case .run(_, let tp, let generation, let nextOffset):
                claimed.append(progress.claim(tp, generation: generation, nextOffset: nextOffset, in: &fence))
            case .end(let tp, let nextOffset, let generation):
                progress.reachedEnd(tp, nextOffset: nextOffset, generation: generation)
            }
        }
        return claimed
    }

    /// Hands `events` (just taken from the buffer, in order) to batch `fence`: records still in their
    /// partition's generation are claimed for it, the others dropped; end-of-partition events are recorded in
    /// order with the records; errors are passed on. (The consumer folds and copies outside the lock, see
    /// ``KafkaConsumer/nextBatch(upTo:window:idleTimeout:)``; this is the same in one call, for tests.)
    mutating func account(_ events: [KafkaConsumerEvent], into fence: inout KafkaBatchFence) -> Accounted {
        var result = Accounted()
        let steps = Self.steps(of: events, errors: &result.errors)
        let claimed = claim(steps, into: &fence)
        result.collect(events, steps, claimed)
        return result
    }
}

extension KafkaConsumerState.Accounted {
    /// Appends the records of the claimed runs and counts the dropped ones.
    mutating func collect(
        _ events: [KafkaConsumerEvent], _ steps: [KafkaConsumerState.Step], _ claimed: [Bool]
    ) {
        var runIndex = 0
        for step in steps {
            guard case .run(let range, _, _, _) = step else { continue }
            defer { runIndex += 1 }
            guard claimed[runIndex] else {
                dropped += range.count
                continue
            }
            for case .message(let message) in events[range] { messages.append(message) }
        }
    }
}
