import DailyValueContract
import JSON
import ObservationMapping

extension StoredDocument {
    /// A schema-3 resource (as `jsonb` text) as a schema-4 document and its facts, for `storectl migrate`.
    ///
    /// Members come in `jsonb`'s order (shorter names first, then bytewise: the order schema 3 printed them in),
    /// except that `meta` begins with `versionId` and `lastUpdated`, written from the columns on read (the values in
    /// the text are dropped); the status becomes a slot when `hasStatus` (the row's status column is set).
    /// - Throws: ``JSONError`` when the text is not a JSON object.
    package static func fromSchemaThree(resource text: String, metric: String, hasStatus: Bool) throws(JSONError)
        -> (content: [UInt8], parts: [Range<Int>], facts: ObservationFacts?)
    {
        let resource = try JSONValue.parse(Array(text.utf8), maxDepth: 64)
        guard case .object(var members) = resource else {
            throw JSONError(.syntax, "the resource is not a JSON object")
        }
        var meta = members.removeValue(forKey: "meta")?.object ?? [:]
        meta["versionId"] = nil
        meta["lastUpdated"] = nil
        let status = hasStatus ? members.removeValue(forKey: "status") : nil
        var (headEnd, tailEnd, afterStart) = (0, 0, 0)
        let bytes = JSONWriter.bytes(capacity: text.utf8.count + 64) { w in
            w.beginObject()
            var keys = Array(members.keys) + ["meta"]
            if hasStatus { keys.append("status") }
            for key in keys.sorted(by: jsonbOrder) {
                w.key(text: key)
                switch key {
                case "meta":
                    w.beginObject()
                    headEnd = w.count
                    for name in meta.keys.sorted(by: jsonbOrder) {
                        w.key(text: name)
                        write(meta[name]!, &w)
                    }
                    w.endObject()
                case "status" where hasStatus:
                    tailEnd = w.count
                    write(status ?? .string("unknown"), &w)
                    afterStart = w.count
                default: write(members[key]!, &w)
                }
            }
            w.endObject()
        }
        let parts =
            hasStatus
            ? [0..<headEnd, headEnd..<tailEnd, afterStart..<bytes.count] : [0..<headEnd, headEnd..<bytes.count]
        let facts = ObservationFacts(resource: resource, metric: MetricCatalog.builtin.metrics[metric])
        return (bytes, parts, facts)
    }

    /// `jsonb`'s key order: by length in bytes, then bytewise.
    private static func jsonbOrder(_ a: String, _ b: String) -> Bool {
        let (x, y) = (a.utf8, b.utf8)
        return x.count != y.count ? x.count < y.count : x.lexicographicallyPrecedes(y)
    }

    private static func write(_ value: JSONValue, _ w: inout JSONWriter) {
        switch value {
        case .string(let text): w.value(text)
        case .number(let number): w.value(number)
        case .bool(let flag): w.rawValue(Array((flag ? "true" : "false").utf8))
        case .null: w.rawValue(Array("null".utf8))
        case .array(let values):
            w.beginArray()
            for element in values { write(element, &w) }
            w.endArray()
        case .object(let members):
            w.beginObject()
            for key in members.keys.sorted(by: jsonbOrder) {
                w.key(text: key)
                write(members[key]!, &w)
            }
            w.endObject()
        }
    }
}
