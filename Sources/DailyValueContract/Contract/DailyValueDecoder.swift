import JSON

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Decodes and validates DailyValue v1 events from raw message bytes (see `DESIGN.md`, "The event contract").
///
/// A hand-written byte-level scanner: no Foundation JSON, no per-field allocations apart from the strings the
/// ``DailyValue`` keeps. It never traps or loops on any input; every rejection is a ``DailyValueError``.
///
/// ```swift
/// let decoder = DailyValueDecoder(catalog: .builtin)
/// let value = try decoder.decode(message.bytes, recordTimestampMs: message.timestampMs)
/// ```
public struct DailyValueDecoder: Sendable {
    public let catalog: MetricCatalog
    public let policy: ValidationPolicy
    let zones: TimeZoneCache

    public init(catalog: MetricCatalog = .builtin, policy: ValidationPolicy = .init()) {
        self.catalog = catalog
        self.policy = policy
        self.zones = .shared
    }

    // MARK: - Decoding

    /// Decodes one event.
    /// - Parameters:
    ///   - bytes: the Kafka message value.
    ///   - recordTimestampMs: the Kafka record timestamp, used as the version when the event has none.
    /// - Throws: ``DailyValueError`` naming the field and the rule.
    public func decode(_ bytes: [UInt8], recordTimestampMs: Int64?) throws(DailyValueError) -> DailyValue {
        try validate(bytes, recordTimestampMs: recordTimestampMs).event
    }

    /// Decodes one event from a borrowed buffer (e.g. librdkafka's payload, without copying).
    /// - Throws: ``DailyValueError`` naming the field and the rule.
    public func decode(_ bytes: UnsafeRawBufferPointer, recordTimestampMs: Int64?) throws(DailyValueError)
        -> DailyValue
    {
        try validate(bytes, recordTimestampMs: recordTimestampMs).event
    }

    /// Decodes one event and returns it with what validation resolved (version, date, zone).
    /// - Parameters:
    ///   - bytes: the Kafka message value.
    ///   - recordTimestampMs: the Kafka record timestamp, used as the version when the event has none.
    /// - Throws: ``DailyValueError`` naming the field and the rule.
    public func validate(_ bytes: [UInt8], recordTimestampMs: Int64?) throws(DailyValueError) -> ValidatedDailyValue {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DailyValueError) in try validate(buffer, recordTimestampMs: recordTimestampMs) }
        }
        return try result.get()
    }

    /// ``validateEvent(_:recordTimestampMs:)`` from an array.
    public func validateEvent(_ bytes: [UInt8], recordTimestampMs: Int64?) throws(DailyValueError) -> DailyEvent {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(DailyValueError) in try validateEvent(buffer, recordTimestampMs: recordTimestampMs) }
        }
        return try result.get()
    }

    /// ``validate(_:recordTimestampMs:)`` from a borrowed buffer.
    /// - Throws: ``DailyValueError`` naming the field and the rule; `InvalidKind` for a retraction.
    public func validate(_ bytes: UnsafeRawBufferPointer, recordTimestampMs: Int64?) throws(DailyValueError)
        -> ValidatedDailyValue
    {
        guard case .value(let value) = try validateEvent(bytes, recordTimestampMs: recordTimestampMs) else {
            throw DailyValueError(.invalidKind, field: "kind", "a retraction where a DailyValue is due")
        }
        return value
    }

    /// Decodes one event of either kind (docs/LIFECYCLE.md): a DailyValue, or a retraction (`"kind":"retraction"`).
    /// - Throws: ``DailyValueError`` naming the field and the rule.
    public func validateEvent(_ bytes: UnsafeRawBufferPointer, recordTimestampMs: Int64?) throws(DailyValueError)
        -> DailyEvent
    {
        guard bytes.count <= policy.maxPayloadBytes else { throw payloadTooLarge }
        var scanner = JSONScanner(bytes)
        return try checkEvent(try scanMembers(&scanner), scanner, recordTimestampMs: recordTimestampMs)
    }

    /// Decodes the event whose JSON object starts at `start` of `buffer` (after optional whitespace): for a reader
    /// that finds a body's events as it validates them, in one pass over the bytes. What follows the object's
    /// closing brace is the caller's to read.
    /// - Returns: the event and the offset just past its closing brace.
    /// - Throws: ``DailyValueError`` as ``validateEvent(_:recordTimestampMs:)`` does for the object alone, except
    ///   that byte offsets in a syntax error count from the start of `buffer`.
    public func validateEvent(in buffer: UnsafeRawBufferPointer, at start: Int, recordTimestampMs: Int64?)
        throws(DailyValueError) -> (event: DailyEvent, end: Int)
    {
        var scanner = JSONScanner(buffer)
        scanner.seek(to: start)
        scanner.skipWhitespace()
        let objectStart = scanner.pos
        let raw = try scanMembers(&scanner, toEnd: false)
        guard scanner.pos - objectStart <= policy.maxPayloadBytes else { throw payloadTooLarge }
        return (try checkEvent(raw, scanner, recordTimestampMs: recordTimestampMs), scanner.pos)
    }

    private var payloadTooLarge: DailyValueError {
        DailyValueError(.payloadTooLarge, field: "", "the message exceeds \(policy.maxPayloadBytes) bytes")
    }

    /// Pass 2 of decoding (pass 1 is ``scanMembers(_:toEnd:)``).
    private func checkEvent(_ raw: DailyValueField.RawMembers, _ scanner: JSONScanner, recordTimestampMs: Int64?)
        throws(DailyValueError) -> DailyEvent
    {
        // Pass 2: semantic checks in a fixed order; the schema first, as it decides what the rest means.
        guard case .number(let schema)? = raw[DailyValueField.schema.rawValue] else {
            throw missingOrType(raw, .schema, "must be the number 1")
        }
        guard schema.int64 == Int64(DailyValue.schema) else {
            throw DailyValueError(.schemaVersionUnsupported, field: "schema", "only schema 1 is supported")
        }
        if try checkKind(raw, scanner) == .retraction { return .retraction(try checkRetraction(raw, scanner)) }
        let patient = try checkPatient(try string(raw, .patient, scanner), scanner)
        let entry = try checkMetric(try string(raw, .metric, scanner), scanner)
        let day = try checkDay(try string(raw, .day, scanner), scanner)
        let zone = try checkZone(raw, scanner)

        let conversion = try unitConversion(raw, entry, scanner)
        var value: Double? = nil
        var min: Double? = nil
        var max: Double? = nil
        var components: [DailyValue.Component] = []
        if entry.metric.isPanel {
            components = try panelComponents(raw, entry.metric, conversion: conversion, scanner)
        } else {
            try checkNoPanelMembers(raw)
            let sent = try number(raw, .value, required: true)!
            let sentMin = try number(raw, .min, required: false)
            let sentMax = try number(raw, .max, required: false)
            // Ranges are checked on the exact conversion; the stored numbers keep the sent precision.
            value = conversion.exact(sent.double)
            min = sentMin.map { conversion.exact($0.double) }
            max = sentMax.map { conversion.exact($0.double) }
            try checkRanges(value: value!, min: min, max: max, entry.metric)
            (value, min, max) = Self.stored(
                conversion, value: (value!, sent), min: min.map { ($0, sentMin!) }, max: max.map { ($0, sentMax!) })
        }

        let version = try checkVersion(raw, recordTimestampMs: recordTimestampMs)
        let (source, omitted) = try checkSource(raw, scanner)
        let status = try checkStatus(raw, scanner)
        let event = DailyValue(
            patient: patient, metric: entry.metric.key, day: day.text, zone: zone.text, value: value, min: min,
            max: max, components: components, version: version, source: source, status: status)
        return .value(
            ValidatedDailyValue(
                event: event, version: version, date: day.date, zone: zone.resolved, omittedSourceFields: omitted))
    }

    // MARK: - Typed member access

    func missingOrType(_ raw: DailyValueField.RawMembers, _ field: DailyValueField, _ rule: String)
        -> DailyValueError
    {
        switch raw[field.rawValue] {
        case nil, .null?: DailyValueError(.missingField, field: field.name, "the member is required")
        default: DailyValueError(.invalidFieldType, field: field.name, rule)
        }
    }

    /// A required string member's token.
    func string(_ raw: DailyValueField.RawMembers, _ field: DailyValueField, _ scanner: JSONScanner)
        throws(DailyValueError) -> JSONScanner.StringToken
    {
        guard case .string(let token)? = raw[field.rawValue] else {
            throw missingOrType(raw, field, "must be a string")
        }
        return token
    }

    /// A finite number member's token; `nil` when optional and absent or null.
    func number(_ raw: DailyValueField.RawMembers, _ field: DailyValueField, required: Bool)
        throws(DailyValueError) -> JSONScanner.NumberToken?
    {
        switch raw[field.rawValue] {
        case .number(let token)?:
            guard token.double.isFinite else {
                throw DailyValueError(.invalidNumber, field: field.name, "the number must be finite")
            }
            return token
        case nil, .null?:
            if required { throw DailyValueError(.missingField, field: field.name, "the member is required") }
            return nil
        default: throw DailyValueError(.invalidFieldType, field: field.name, "must be a number")
        }
    }

    /// The stored value, min and max of an event sent in an alias unit: each exact conversion rounded to the
    /// precision it was sent with (``UnitConversion/stored(_:lastDigitExponent:)``). Rounding each to its own
    /// precision could put a coarse `min` a hair above a finer `value`; they are kept in order.
    static func stored(
        _ conversion: UnitConversion, value: (Double, JSONScanner.NumberToken),
        min: (Double, JSONScanner.NumberToken)?, max: (Double, JSONScanner.NumberToken)?
    ) -> (Double, Double?, Double?) {
        guard !conversion.isIdentity else { return (value.0, min?.0, max?.0) }
        func round(_ pair: (Double, JSONScanner.NumberToken)) -> Double {
            conversion.stored(pair.0, lastDigitExponent: pair.1.lastDigitExponent)
        }
        let stored = round(value)
        return (stored, min.map { Swift.min(round($0), stored) }, max.map { Swift.max(round($0), stored) })
    }
}
