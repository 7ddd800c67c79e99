import JSON

/// The person an event names, read from an event that may be invalid otherwise (a dead letter, a refused record):
/// the top-level `patient` string of a JSON object, whatever else the event holds or lacks, so that an erased
/// person's invalid events can be dropped instead of kept (docs/PRIVACY.md).
public enum EventPerson {
    /// The top-level `patient` member's string, or nil when the payload is not a JSON object up to that member, or
    /// the member is missing or not a string. Members after `patient` are not read.
    public static func patient(in payload: [UInt8]) -> String? {
        payload.withUnsafeBytes { bytes in
            var scanner = JSONScanner(bytes)
            do {
                try scanner.expect(UInt8(ascii: "{"), "an object")
                if scanner.consume(UInt8(ascii: "}")) { return nil }
                repeat {
                    let name = try scanner.scanString()
                    try scanner.expect(UInt8(ascii: ":"), "':'")
                    if scanner.string(name) == "patient" {
                        scanner.skipWhitespace()
                        guard scanner.peek == UInt8(ascii: "\"") else { return nil }
                        return scanner.string(try scanner.scanString())
                    }
                    try scanner.skipValue(depth: 1, maxDepth: 64)
                } while scanner.consume(UInt8(ascii: ","))
                return nil
            } catch {
                return nil
            }
        }
    }

    /// The persons a Kafka record that may be invalid names: its payload's `patient` and its key (the producer's
    /// partitioning key is the patient id), each once. A caller that drops an erased person's records checks both.
    public static func candidates(payload: [UInt8]?, key: [UInt8]?) -> [String] {
        var names: [String] = []
        if let patient = payload.flatMap(patient(in:)) { names.append(patient) }
        if let key, !key.isEmpty {
            let text = String(decoding: key, as: UTF8.self)
            if !names.contains(text) { names.append(text) }
        }
        return names
    }
}
