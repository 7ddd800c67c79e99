import DailyValueContract
import JSON
import ObservationMapping

/// The resource as schema 4 stores it (docs/STORAGE.md): the mapped Observation without what the store decides —
/// `meta.versionId`, `meta.lastUpdated` and the status, kept in columns — as two or three parts: up to and including
/// the `{` that opens `meta`, then up to and including `"status":` (or to the end without a status slot), then the
/// rest. Compressed by the worker, read back whole here.
package enum StoredDocument {
    /// The parts a record's document holds (three with a status slot, else two).
    package static func parts(of record: ObservationRecord) -> [ArraySlice<UInt8>] {
        record.status == nil
            ? [record.resourceHeadUTF8, record.resourceTailUTF8]
            : [record.resourceHeadUTF8, record.resourceTailUTF8, record.resourceAfterStatusUTF8]
    }

    /// The whole resource of a document's parts with the columns' `versionId`, `lastUpdated` and `status` (nil: the
    /// row has none).
    package static func resource(
        _ content: [UInt8], parts: [Range<Int>], versionId: Int64, lastUpdated: String, status: String?
    ) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(content.count + 80)
        out += content[parts[0]]
        out += #""versionId":""#.utf8
        out += String(versionId).utf8
        out += #"","lastUpdated":""#.utf8
        out += lastUpdated.utf8
        out.append(0x22)
        let tail = parts.count > 1 ? content[parts[1]] : []
        if tail.first != 0x7D { out.append(0x2C) }  // a comma unless `meta` has no other member
        if parts.count > 2 {
            out += tail
            out += "\"\(status ?? "unknown")\"".utf8
            out += content[parts[2]]
        } else if let status, tail.last == 0x7D {
            // No slot, yet a status (a retraction of a record built without one): a member at the end.
            out += tail.dropLast()
            out += ",\"status\":\"\(status)\"}".utf8
        } else {
            out += tail
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The facts of a record built from resource text, read from that text; nil when it states no local day.
    package static func facts(ofResource record: ObservationRecord) -> ObservationFacts? {
        guard record.retractionReason == nil,
            let resource = try? JSONValue.parse(Array(record.resource.utf8), maxDepth: 32)
        else { return nil }
        return ObservationFacts(resource: resource, metric: MetricCatalog.builtin.metrics[record.identity.metric])
    }
}
