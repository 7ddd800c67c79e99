import Essentials
import JSON

// The optional `source` object: HKSource provenance strings, each bounded and free of control characters. A stored
// field (`bundleId`, `model`, `softwareVersion`) longer than its cap is left out, not rejected: provenance is
// auxiliary and must never cost the clinical value. So is a `model` that is not a hardware model identifier (it may
// be a name the person gave the device); a bundle id loses its device-identifier segments before its cap applies.

extension DailyValueDecoder {
    /// The `source` object, and the fields left out: over their stored cap, or a `source.model` that is not a
    /// hardware model identifier.
    func checkSource(_ raw: DailyValueField.RawMembers, _ scanner: JSONScanner) throws(DailyValueError)
        -> (source: DailyValue.Source?, omitted: [String])
    {
        switch raw[DailyValueField.source.rawValue] {
        case nil, .null?: return (nil, [])
        case .object(let start)?:
            var nested = scanner
            nested.seek(to: start)
            var omitted: [String] = []
            let source = try scanSource(&nested, omitted: &omitted)
            return (source, omitted)
        default: throw DailyValueError(.invalidFieldType, field: "source", "must be an object")
        }
    }

    /// Re-scans the (already syntax-checked) `source` object.
    private func scanSource(_ scanner: inout JSONScanner, omitted: inout [String]) throws(DailyValueError)
        -> DailyValue.Source?
    {
        var source = DailyValue.Source()
        var seen: UInt8 = 0
        try scanner.consume(0x7B, "'{'")
        if scanner.consume(0x7D) { return nil }
        repeat {
            scanner.skipWhitespace()
            let key = try scanner.readString()
            try scanner.consume(0x3A, "':'")
            guard let field = Self.withKeyBytes(key, scanner, { SourceField.match($0) }) else {
                try scanner.skip(depth: 2, maxDepth: policy.maxNestingDepth)
                continue
            }
            var name: String { field.path }
            guard seen & (1 << field.rawValue) == 0 else {
                throw DailyValueError(.duplicateField, field: name, "the member appears more than once")
            }
            seen |= 1 << field.rawValue
            scanner.skipWhitespace()
            if scanner.consumeLiteral("null") { continue }
            guard scanner.peek == 0x22 else {
                throw DailyValueError(.invalidFieldType, field: name, "must be a string")
            }
            var text = scanner.string(try scanner.readString())
            try checkSourceText(text, field: field, limit: policy.maxSourceFieldBytes)
            if field == .bundleId {
                // Device identifiers go before the cap is measured: the cleaned id is what would be stored.
                guard let cleaned = SourceProvenance.bundleIdWithoutDeviceIDs(text) else { continue }
                text = cleaned
            }
            let isKept = field != .model || SourceProvenance.isHardwareModel(text)
            guard isKept, text.utf8.count <= storedCap(of: field) else {
                omitted.append(name)
                continue
            }
            switch field {
            case .name: source.name = text
            case .bundleId: source.bundleId = text
            case .model: source.model = text
            case .softwareVersion: source.softwareVersion = text
            }
        } while scanner.consume(0x2C)
        try scanner.consume(0x7D, "',' or '}'")
        let isEmpty =
            source.name == nil && source.bundleId == nil && source.model == nil
            && source.softwareVersion == nil
        return isEmpty ? nil : source
    }

    /// The longest value of `field` that is kept (longer ones are left out; over
    /// ``ValidationPolicy/maxSourceFieldBytes`` the event is rejected).
    private func storedCap(of field: SourceField) -> Int {
        switch field {
        case .name: policy.maxSourceFieldBytes
        case .bundleId: policy.maxBundleIdBytes
        case .model: policy.maxModelBytes
        case .softwareVersion: policy.maxSoftwareVersionBytes
        }
    }

    private func checkSourceText(_ text: String, field source: SourceField, limit: Int) throws(DailyValueError) {
        var field: String { source.path }
        guard text.utf8.count <= limit else {
            throw DailyValueError(.invalidSource, field: field, "must be at most \(limit) UTF-8 bytes")
        }
        guard text.withUTF8Bytes({ $0.contains { $0 != 0x20 } }) else {
            throw DailyValueError(.invalidSource, field: field, "must not be empty or blank")
        }
        guard !Self.hasControlCharacter(text) else {
            throw DailyValueError(.invalidSource, field: field, "must not contain control characters")
        }
    }

    /// Whether `text` holds a C0 control (U+0000–U+001F), DEL or a C1 control (U+0080–U+009F, UTF-8 `C2 80`–`C2 9F`),
    /// read from the UTF-8 bytes (no scalar decoding).
    static func hasControlCharacter(_ text: String) -> Bool {
        text.withUTF8Bytes { bytes in
            var afterC2 = false
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (afterC2 && byte <= 0x9F) { return true }
                afterC2 = byte == 0xC2
            }
            return false
        }
    }
}
