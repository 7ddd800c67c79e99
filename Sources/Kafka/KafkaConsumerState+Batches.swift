extension KafkaConsumerState {
    /// What a batch collected from one take of events.
    struct Accounted {
        var messages: [KafkaMessage] = []
        var errors: [KafkaError] = []
        var dropped = 0
    }

    /// Hands `events` (just taken from the buffer, in order) to batch `fence`: records still in their
    /// partition's generation are claimed for it, the others dropped; end-of-partition events are recorded in
    /// order with the records; errors are passed on.
    mutating func account(_ events: [KafkaConsumerEvent], into fence: inout KafkaBatchFence) -> Accounted {
        var result = Accounted()
        result.messages.reserveCapacity(events.count)
        var index = events.startIndex
        while index < events.endIndex {
            switch events[index] {
            case .message(let first):
                // Records come in runs of one partition and generation: one claim per run, not per record.
                var end = index + 1
                var last = first.offset
                while end < events.endIndex, case .message(let next) = events[end], next.partition == first.partition,
                    next.assignmentGeneration == first.assignmentGeneration, next.topic == first.topic
                {
                    last = max(last, next.offset)
                    end += 1
                }
                if progress.claim(
                    first.topicPartition, generation: first.assignmentGeneration, nextOffset: last + 1, in: &fence)
                {
                    for case .message(let message) in events[index..<end] { result.messages.append(message) }
                } else {
                    result.dropped += end - index
                }
                index = end
                continue
            case .partitionEOF(let topic, let partition, let offset, let generation):
                progress.reachedEnd(
                    KafkaTopicPartition(topic: topic, partition: partition), nextOffset: offset, generation: generation)
            case .error(let error):
                result.errors.append(error)
            }
            index += 1
        }
        return result
    }
}
