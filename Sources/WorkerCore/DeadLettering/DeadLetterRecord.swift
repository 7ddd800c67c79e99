import DeadLetters
import Kafka

/// A dead letter ready to send: the original record plus its context headers, with just enough of its largest
/// parts replaced by summaries (``DeadLetterSummary``) to stay within the dead-letter producer's size budget.
///
/// A record the producer or a broker still refuses for itself is sent again as ``minimal()``: every part summarised
/// but a short key. Either way the dead letter is delivered and the partition moves on; nothing is retried as it
/// was. Dead letters are produced with the broker's time, not the original's (a replay of old events would write
/// dead letters already past the topic's retention): the original is in `x-dlq.original-timestamp`.
struct DeadLetterRecord: Sendable {
    /// A part of the original record that a summary replaced.
    enum Part: String, Sendable, CaseIterable {
        case value, key, headers
    }

    /// What to produce.
    private(set) var message: KafkaOutgoingMessage
    /// The parts replaced by summaries, in ``Part`` order; empty when the record is verbatim.
    private(set) var summarized: [Part]
    /// True for the form with every part summarised.
    private(set) var isMinimal: Bool
    /// The record that was dead-lettered.
    let original: KafkaMessage
    /// The stable error class (`__connect.errors.exception.class.name`), for metrics.
    let className: String
    private let context: [KafkaHeader]

    /// Builds the record, summarising the largest parts first (one at a time) until it fits `sizeBudget`, then, if
    /// many small headers still do not fit, all original headers at once.
    init(original: KafkaMessage, className: String, context: [KafkaHeader], topic: String, sizeBudget: Int) {
        self.original = original
        self.className = className
        self.context = context
        var fitting = Fitting(original: original, context: context)
        if fitting.size > sizeBudget {
            for candidate in fitting.candidates() {
                fitting.summarize(candidate)
                if fitting.size <= sizeBudget { break }
            }
        }
        if fitting.size > sizeBudget { fitting.summarizeAllHeaders() }
        self.message = fitting.message(topic: topic, context: context)
        self.summarized = Part.allCases.filter(fitting.summarized.contains)
        self.isMinimal = false
    }

    /// The same dead letter with the value and all original headers summarised, and the key too unless it is
    /// short: what is sent after the producer or a broker refused the record for itself. It always has a key (the
    /// origin `topic/partition/offset` when the original's is null or summarised: a compacted topic needs one).
    func minimal() -> DeadLetterRecord {
        var copy = self
        var fitting = Fitting(original: original, context: context)
        fitting.summarize(Candidate.value)
        if let key = original.key, key.count > DeadLetterSummary.minimumSummarizedBytes {
            fitting.summarize(Candidate.key)
        }
        fitting.summarizeAllHeaders()
        copy.message = fitting.message(topic: message.topic, context: context)
        if copy.message.key == nil {
            copy.message.key = Array("\(original.topic)/\(original.partition)/\(original.offset)".utf8)
        }
        copy.summarized = Part.allCases.filter(fitting.summarized.contains)
        copy.isMinimal = true
        return copy
    }
}

extension DeadLetterRecord {
    /// One thing that can be summarised: the value, the key, or the original header at an index.
    enum Candidate: Equatable {
        case value, key
        case header(Int)
    }

    /// The parts of a dead letter as they are being fitted, with the record's size kept up to date as parts are
    /// replaced (so fitting stays linear in the number of headers).
    private struct Fitting {
        let original: KafkaMessage
        var key: [UInt8]?
        var value: [UInt8]
        var headers: [KafkaHeader]
        var added: [KafkaHeader] = []
        var summarized: Set<Part> = []
        /// ``KafkaOutgoingMessage/maxWireSize`` of ``message(topic:context:)``, give or take the
        /// `x-dlq.summarized` header, which is counted at its largest as soon as anything is summarised.
        private(set) var size: Int

        init(original: KafkaMessage, context: [KafkaHeader]) {
            self.original = original
            (key, value, headers) = (original.key, original.value, original.headers)
            size = KafkaOutgoingMessage(topic: "", key: key, value: value, headers: headers + context).maxWireSize
        }

        /// Parts worth summarising, largest first.
        func candidates() -> [Candidate] {
            var sized: [(Candidate, Int)] = [(.value, value.count)]
            if let key { sized.append((.key, key.count)) }
            for (i, h) in headers.enumerated() { sized.append((.header(i), Self.size(of: h))) }
            return sized.filter { $0.1 > DeadLetterSummary.minimumSummarizedBytes }
                .sorted { $0.1 > $1.1 }.map(\.0)
        }

        mutating func summarize(_ candidate: Candidate) {
            switch candidate {
            case .value:
                let (envelope, header) = DeadLetterSummary.value(original.value)
                size += envelope.count - value.count
                value = envelope
                add(header, part: .value)
            case .key:
                guard let original = original.key, key != nil else { return }
                size -= original.count
                key = nil
                add(DeadLetterSummary.key(original), part: .key)
            case .header(let i):
                let summary = DeadLetterSummary.header(original.headers[i])
                size += Self.size(of: summary) - Self.size(of: headers[i])
                headers[i] = summary
                markSummarized(.headers)
            }
        }

        mutating func summarizeAllHeaders() {
            guard !original.headers.isEmpty else { return }
            let summary = DeadLetterSummary.headers(original.headers)
            size += Self.size(of: summary) + KafkaOutgoingMessage.headerFraming
                - headers.reduce(0) { $0 + Self.size(of: $1) + KafkaOutgoingMessage.headerFraming }
            headers = [summary]
            markSummarized(.headers)
        }

        func message(topic: String, context: [KafkaHeader]) -> KafkaOutgoingMessage {
            var all = headers + context + added
            if !summarized.isEmpty {
                let parts = Part.allCases.filter(summarized.contains).map(\.rawValue).joined(separator: ",")
                all.append(KafkaHeader(key: DeadLetterHeaders.summarized, string: parts))
            }
            return KafkaOutgoingMessage(
                topic: topic, partition: nil, key: key, value: value, headers: all, timestampMs: nil)
        }

        private mutating func add(_ header: KafkaHeader, part: Part) {
            size += Self.size(of: header) + KafkaOutgoingMessage.headerFraming
            added.append(header)
            markSummarized(part)
        }

        private mutating func markSummarized(_ part: Part) {
            if summarized.isEmpty {
                size += KafkaOutgoingMessage.headerFraming + DeadLetterHeaders.summarized.utf8.count
                    + "value,key,headers".utf8.count
            }
            summarized.insert(part)
        }

        private static func size(of header: KafkaHeader) -> Int { header.key.utf8.count + (header.value?.count ?? 0) }
    }
}
