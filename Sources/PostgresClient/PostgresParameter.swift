/// A value bound to a statement's `$n`: text, or PostgreSQL's binary wire form. Arrays go binary: a text array
/// literal of JSON resources escapes every `"` byte by byte in the client and is parsed back the same way by the
/// server (`array_in`); the binary form is a length and the bytes.
package enum PostgresParameter: Sendable {
    case text(String)
    case binary([UInt8])

    /// A `text[]` (elements of type `text`, OID 25) in the binary array format, for `$n::text[]`.
    /// A concrete array, not a generic collection: iterating an unspecialized generic collection of strings
    /// allocated once per element (measured: a third of the worker's mallocs on a first load).
    package static func textArray(_ values: [String]) -> PostgresParameter {
        var payload = 0
        for value in values { payload += 4 + value.utf8.count }
        return array(count: values.count, elementOID: 25, payloadBytes: payload) { bytes in
            for var value in values {
                appendInt32(&bytes, Int32(value.utf8.count))
                value.withUTF8 { bytes.append(contentsOf: $0) }
            }
        }
    }

    /// A `text[]` of UTF-8 byte runs (e.g. slices of one buffer), copied once into the array's wire form.
    package static func textArray(utf8 values: [ArraySlice<UInt8>]) -> PostgresParameter {
        let payload = values.reduce(0) { $0 + 4 + $1.count }
        return array(count: values.count, elementOID: 25, payloadBytes: payload) { bytes in
            for value in values { appendElement(value, to: &bytes) }
        }
    }

    /// A `bigint[]` (elements of type `int8`, OID 20) in the binary array format, for `$n::bigint[]`.
    package static func bigintArray(_ values: [Int64]) -> PostgresParameter {
        array(count: values.count, elementOID: 20, payloadBytes: values.count * 12) { bytes in
            for value in values {
                appendInt32(&bytes, 8)
                appendInt32(&bytes, Int32(truncatingIfNeeded: value >> 32))
                appendInt32(&bytes, Int32(truncatingIfNeeded: value))
            }
        }
    }

    /// A `bigint[]` with NULL elements, for `$n::bigint[]`.
    package static func bigintArray(_ values: [Int64?]) -> PostgresParameter {
        array(count: values.count, elementOID: 20, payloadBytes: values.count * 12, hasNulls: values.contains(nil)) {
            bytes in
            for value in values {
                guard let value else {
                    appendInt32(&bytes, -1)
                    continue
                }
                appendInt32(&bytes, 8)
                appendInt32(&bytes, Int32(truncatingIfNeeded: value >> 32))
                appendInt32(&bytes, Int32(truncatingIfNeeded: value))
            }
        }
    }

    /// A `bytea[]` (OID 17) in the binary array format, for `$n::bytea[]`: the bytes as they are, no hex.
    package static func byteaArray(_ values: [[UInt8]]) -> PostgresParameter {
        let payload = values.reduce(0) { $0 + 4 + $1.count }
        return array(count: values.count, elementOID: 17, payloadBytes: payload) { bytes in
            for value in values { appendElement(value, to: &bytes) }
        }
    }

    /// A `bytea[]` of `count` elements that `element(index, &bytes)` appends in place to the wire form (e.g.
    /// compressed straight into it: no array per element). `reservingBytes`: the expected size of all elements.
    package static func byteaArray(
        count: Int, reservingBytes: Int, element: (Int, inout [UInt8]) -> Void
    ) -> PostgresParameter {
        array(count: count, elementOID: 17, payloadBytes: reservingBytes + 4 * count) { bytes in
            for index in 0..<count {
                let lengthAt = bytes.count
                appendInt32(&bytes, 0)
                element(index, &bytes)
                let length = UInt32(bytes.count - lengthAt - 4)
                for shift in 0..<4 { bytes[lengthAt + shift] = UInt8(truncatingIfNeeded: length >> (24 - 8 * shift)) }
            }
        }
    }

    /// A `double precision[]` (elements of type `float8`, OID 701) with NULL elements, for `$n::float8[]`.
    package static func doubleArray(_ values: [Double?]) -> PostgresParameter {
        array(
            count: values.count, elementOID: 701, payloadBytes: values.count * 12,
            hasNulls: values.contains(nil)
        ) { bytes in
            for value in values {
                guard let value else {
                    appendInt32(&bytes, -1)
                    continue
                }
                let bits = value.bitPattern
                appendInt32(&bytes, 8)
                appendInt32(&bytes, Int32(truncatingIfNeeded: Int64(bitPattern: bits) >> 32))
                appendInt32(&bytes, Int32(truncatingIfNeeded: Int64(bitPattern: bits)))
            }
        }
    }

    /// `array_recv`'s layout: dimensions, a has-nulls flag, the element type, per dimension its length and lower
    /// bound, then each element as a 4-byte length (-1: NULL) and its bytes (big-endian throughout). No dimension when empty.
    private static func array(
        count: Int, elementOID: Int32, payloadBytes: Int, hasNulls: Bool = false, elements: (inout [UInt8]) -> Void
    ) -> PostgresParameter {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + payloadBytes)
        appendInt32(&bytes, count == 0 ? 0 : 1)
        appendInt32(&bytes, hasNulls ? 1 : 0)
        appendInt32(&bytes, elementOID)
        if count > 0 {
            appendInt32(&bytes, Int32(count))
            appendInt32(&bytes, 1)
        }
        elements(&bytes)
        return .binary(bytes)
    }

    /// One element: its length, then its bytes (in bulk when they are contiguous).
    private static func appendElement(_ element: some Collection<UInt8>, to bytes: inout [UInt8]) {
        appendInt32(&bytes, Int32(element.count))
        if element.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: element)
        }
    }

    private static func appendInt32(_ bytes: inout [UInt8], _ value: Int32) {
        let bits = UInt32(bitPattern: value)
        bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        bytes.append(UInt8(truncatingIfNeeded: bits))
    }
}
