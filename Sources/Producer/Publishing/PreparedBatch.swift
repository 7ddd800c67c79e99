import DailyValueContract
import Kafka

/// Lines validated by ``DailyValuePublisher/prepare(lines:)`` and not sent yet: the Kafka records for the valid
/// ones (original bytes, keyed by patient) and the rejections for the others.
///
/// Preparing the next batch while the previous one is in flight overlaps validation with delivery; send batches in
/// the order they were prepared to keep each person's events in order.
public struct PreparedBatch: Sendable {
    /// One slot per input line: the rejection, or `nil` for a line that will be sent.
    var rejections: [PublishResult?]
    /// The records to send, in input order.
    public internal(set) var records: KafkaRecordBatch
    /// For each record, its position in the input.
    var positions: [Int]

    /// Number of input lines.
    public var count: Int { rejections.count }
    /// Number of lines that passed validation and will be sent.
    public var validCount: Int { records.count }
    /// Number of lines rejected by validation.
    public var rejectedCount: Int { rejections.count - records.count }

    /// The rejected lines in input order: each one's position and the decoder's reason.
    public var rejectedLines: [(position: Int, error: DailyValueError)] {
        rejections.enumerated().compactMap { position, rejection in
            guard case .rejected(let error)? = rejection else { return nil }
            return (position, error)
        }
    }

    /// The lines that will be sent, in input order: each one's position and record key (the patient id's UTF-8).
    public var keyedLines: [(position: Int, key: ArraySlice<UInt8>)] {
        positions.enumerated().map { index, position in (position, records.key(at: index)) }
    }
}
