import DailyValueContract
import Foundation
import ObservationMapping

// libFuzzer target for the untrusted edge of the worker: Kafka message bytes → `DailyValueDecoder` → (if accepted)
// `ObservationMapper`, exactly as `BatchProcessor` chains them. Build and run with `scripts/fuzz.sh`.
//
// Every input must end in a typed `DailyValueError` or a `DailyValue`; libFuzzer reports traps, ASan errors, leaks,
// timeouts and the invariant failures below (which abort with a message naming the rule).

// MARK: - Fixtures

/// Deterministic like the unit tests: the day window is measured against 2026-11-01T12:00:00Z.
private let decoder = DailyValueDecoder(
    catalog: .builtin, policy: .fixed(now: Date(timeIntervalSince1970: 1_793_534_400)))

private let mapper: ObservationMapper = {
    do {
        return try ObservationMapper(
            configuration: .init(idKey: Array("fuzz-secret-key-0123456789abcdef".utf8)), catalog: .builtin)
    } catch { fail("mapper configuration: \(error)") }
}()

/// Kafka record timestamps a broker can hand over (any Int64, or none), picked by input length so that a crash file
/// alone reproduces the run; the regression tests replay every file with every entry.
private let recordTimestamps: [Int64?] = [
    1_793_534_400_000, nil, 0, -1, 1_759_384_503_000, Int64.max, Int64.min, Int64.min + 999,
    253_402_300_799_999, -62_135_596_800_000,
]

// MARK: - Entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func dailyValueFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size)
    check(bytes, recordTimestampMs: recordTimestamps[size % recordTimestamps.count])
    return 0
}

// MARK: - Invariants

private func check(_ bytes: UnsafeRawBufferPointer, recordTimestampMs: Int64?) {
    let borrowed = Result { () throws(DailyValueError) in
        try decoder.decode(bytes, recordTimestampMs: recordTimestampMs)
    }
    let copied = Result { () throws(DailyValueError) in
        try decoder.decode(Array(bytes), recordTimestampMs: recordTimestampMs)
    }
    require(borrowed == copied, "both decode entry points agree")
    switch borrowed {
    case .failure(let error):
        checkError(error, payloadBytes: bytes.count)
    case .success(let value):
        checkValue(value, recordTimestampMs: recordTimestampMs)
        checkRoundTrip(value)
        checkMapping(value, recordTimestampMs: recordTimestampMs ?? value.version ?? 0)
    }
}

/// A rejection names a class, and its text stays short (rules never echo the offending value).
private func checkError(_ error: DailyValueError, payloadBytes: Int) {
    require(error.className == error.kind.rawValue, "className is the kind's raw value")
    require(error.description.utf8.count <= 160, "error text is short: \(error.description.utf8.count) bytes")
    require((error.kind == .payloadTooLarge) == (payloadBytes > 64 * 1024), "PayloadTooLarge exactly above 64 KiB")
}

/// An accepted value obeys the contract the decoder promises.
private func checkValue(_ value: DailyValue, recordTimestampMs: Int64?) {
    guard let metric = decoder.catalog[value.metric] else { fail("accepted metric not in the catalog") }
    require((1...64).contains(value.patient.utf8.count), "patient length")
    require(value.day.utf8.count == 10, "day is YYYY-MM-DD")
    require(value.version.map { $0 >= 0 } == true, "a version is always resolved and non-negative")
    if metric.isPanel {
        require(value.value == nil && value.min == nil && value.max == nil, "a panel has no top-level value")
        require(value.components.map(\.key) == metric.components.map(\.key), "a panel has exactly its components")
        for (reading, component) in zip(value.components, metric.components) {
            checkReading(reading.value, reading.min, reading.max, component.plausibleMin...component.plausibleMax)
            require(metric.allowsMinMax || (reading.min == nil && reading.max == nil), "min/max only where allowed")
        }
        if value.components.count == 2 {
            require(value.components[0].value > value.components[1].value, "systolic above diastolic")
        }
    } else {
        guard let number = value.value else { fail("a single-quantity metric has a value") }
        require(value.components.isEmpty, "components only on a panel")
        checkReading(
            number, value.min, value.max, metric.plausibleMin...metric.plausibleMax, minRange: metric.plausibleMinRange)
        require(metric.allowsMinMax || (value.min == nil && value.max == nil), "min/max only where allowed")
    }
    if case .utcOffset(let seconds) = value.zone {
        require(abs(seconds) <= 14 * 3600 && seconds % 60 == 0, "utcOffset within ±14:00 in whole minutes")
    }
}

/// A value and its optional range: finite, plausible (`min` within `minRange`, by default `range`: a metric's
/// ``Metric/plausibleMinRange`` may reach lower), `min <= value <= max`.
private func checkReading(
    _ value: Double, _ min: Double?, _ max: Double?, _ range: ClosedRange<Double>, minRange: ClosedRange<Double>? = nil
) {
    for number in [value, max].compactMap({ $0 }) {
        require(number.isFinite && range.contains(number), "value/max within the plausible range")
    }
    if let min { require(min.isFinite && (minRange ?? range).contains(min), "min within its plausible range") }
    require(min.map { $0 <= value } ?? true, "min <= value")
    require(max.map { $0 >= value } ?? true, "max >= value")
}

/// The canonical line decodes to an equal value, and is itself canonical (a fixed point).
private func checkRoundTrip(_ value: DailyValue) {
    let line = value.jsonLine()
    let again: DailyValue
    do {
        again = try decoder.decode(Array(line.utf8), recordTimestampMs: nil)
    } catch {
        fail("jsonLine() is rejected (\(error)): \(line)")
    }
    require(again == value, "jsonLine() decodes to an equal value: \(line)")
    require(again.jsonLine() == line, "jsonLine() is a fixed point: \(line)")
}

/// The mapper accepts every decoded value, deterministically, and writes JSON Foundation can parse.
private func checkMapping(_ value: DailyValue, recordTimestampMs: Int64) {
    let record: ObservationRecord
    do {
        record = try mapper.map(value, recordTimestampMs: recordTimestampMs)
    } catch {
        fail("the mapper rejects a decoded value: \(error)")
    }
    require(record.identity == value.identity, "record identity")
    require(record.version == value.version, "record version is the event version")
    let again = try? mapper.map(value, recordTimestampMs: recordTimestampMs)
    require(again?.resource == record.resource, "mapping is deterministic")

    let parsed = try? JSONSerialization.jsonObject(with: Data(record.resource.utf8))
    guard let resource = parsed as? [String: Any] else { fail("resource is not a JSON object: \(record.resource)") }
    require(resource["resourceType"] as? String == "Observation", "resourceType")
    require(resource["id"] as? String == record.resourceID, "id")
    if let expected = value.value {
        let quantity = resource["valueQuantity"] as? [String: Any]
        guard let number = (quantity?["value"] as? NSNumber)?.doubleValue else { fail("valueQuantity.value missing") }
        require(abs(number - expected) <= abs(expected) * 1e-15, "valueQuantity.value is the event value")
    } else {
        require(resource["valueQuantity"] == nil, "a panel has no valueQuantity")
        let components = resource["component"] as? [[String: Any]] ?? []
        let numbers = components.prefix(value.components.count).map {
            (($0["valueQuantity"] as? [String: Any])?["value"] as? NSNumber)?.doubleValue
        }
        require(numbers == value.components.map(\.value), "the panel's first components are its readings in order")
    }
    // `issued` only from a real instant: a positive record timestamp (docs/CLINICAL.md).
    if recordTimestampMs > 0 {
        let issued = resource["issued"] as? String ?? ""
        require(isInstant(issued), "issued is a FHIR instant: \(issued)")
    } else {
        require(resource["issued"] == nil, "no issued without a record timestamp")
    }
}

/// `YYYY-MM-DDThh:mm:ss.sssZ` with a year 0001–9999 (FHIR `instant`).
private func isInstant(_ text: String) -> Bool {
    let b = Array(text.utf8)
    guard b.count == 24 else { return false }
    for (i, byte) in b.enumerated() {
        switch i {
        case 4, 7: if byte != 0x2D { return false }
        case 10: if byte != 0x54 { return false }
        case 13, 16: if byte != 0x3A { return false }
        case 19: if byte != 0x2E { return false }
        case 23: if byte != 0x5A { return false }
        default: if !(0x30...0x39).contains(byte) { return false }
        }
    }
    return b[0..<4] != [0x30, 0x30, 0x30, 0x30]
}

// MARK: - Failing

private func require(_ condition: Bool, _ rule: @autoclosure () -> String) {
    if !condition { fail(rule()) }
}

private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("DailyValueFuzz invariant failed: \(message)\n".utf8))
    abort()
}
