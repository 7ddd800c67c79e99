/// Records for one topic whose values are ranges of one shared buffer and whose keys are appended to another: an
/// HTTP body's events, each sent as its own bytes of the body, keyed by patient. A batch of any size costs a few
/// allocations, not several per record as an array of ``KafkaOutgoingMessage`` does; librdkafka copies each key
/// and value when the record is produced.
public struct KafkaRecordBatch: Sendable {
    /// Where one record's key and value are: ranges of ``keys`` and ``values``.
    struct Record: Sendable {
        var valueStart: Int
        var valueEnd: Int
        var keyStart: Int
        var keyEnd: Int
    }

    /// The topic every record goes to.
    public let topic: String
    /// CreateTime in milliseconds since the Unix epoch of every record; `nil` lets librdkafka use the current time.
    public let timestampMs: Int64?
    /// The buffer the records' values are ranges of.
    public private(set) var values: [UInt8]
    /// The records' keys, one after another.
    public private(set) var keys: [UInt8] = []
    private(set) var records: [Record] = []

    /// An empty batch over `values`; ``append(value:key:)`` adds records that are ranges of it.
    public init(topic: String, values: [UInt8] = [], timestampMs: Int64? = nil) {
        self.topic = topic
        self.values = values
        self.timestampMs = timestampMs
    }

    /// The number of records.
    public var count: Int { records.count }

    /// Adds a record whose value is `value` of ``values``, keyed by `key`.
    /// - Precondition: `value` lies within ``values``.
    public mutating func append(value: Range<Int>, key: some Sequence<UInt8>) {
        precondition(value.lowerBound >= 0 && value.upperBound <= values.count, "a value outside the buffer")
        let keyStart = keys.count
        keys.append(contentsOf: key)
        records.append(
            Record(valueStart: value.lowerBound, valueEnd: value.upperBound, keyStart: keyStart, keyEnd: keys.count))
    }

    /// Appends `value` to ``values`` and adds it as a record keyed by `key`.
    public mutating func append(copying value: some Collection<UInt8>, key: some Sequence<UInt8>) {
        let start = values.count
        values.append(contentsOf: value)
        append(value: start..<values.count, key: key)
    }

    /// Reserves room for `count` records.
    public mutating func reserveCapacity(records count: Int) {
        records.reserveCapacity(count)
    }

    /// The key of the record at `index`.
    public func key(at index: Int) -> ArraySlice<UInt8> {
        keys[records[index].keyStart..<records[index].keyEnd]
    }

    /// Where the value of the record at `index` is in ``values``.
    public func valueRange(at index: Int) -> Range<Int> {
        records[index].valueStart..<records[index].valueEnd
    }

    /// The value of the record at `index`.
    public func value(at index: Int) -> ArraySlice<UInt8> {
        values[valueRange(at: index)]
    }
}
