import DailyValueContract
import HTTPClient
import JSON
import ObservationMapping
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `batch` Bundles the FHIR store sends (never `transaction`: one failed entry must not roll back the others) and
/// the `batch-response` entries it reads back, in request order.
enum FHIRBundle {
    /// One entry of a `batch-response`.
    struct Entry {
        /// The entry's HTTP status code (from `response.status`, e.g. `"412 Precondition Failed"`).
        var status: Int
        /// The resource's new or current version id, from `response.etag` (`W/"3"` → `3`).
        var versionId: String?
        /// The resource of a read.
        var resource: [String: Any]?
        /// The text of `response.outcome`, when the server explained a failure: for a refused record's dead letter
        /// only, never a log (it may name the patient).
        var outcomeText: String?
        /// What a log may say of `response.outcome` (``FHIRRestClient/outcomeSummary(_:)``).
        var outcomeSummary: String
    }

    /// A write of one record: the version tag goes first in `meta`, where the mapper leaves the store's members.
    struct Write {
        var record: ObservationRecord
        /// The server's version id to guard with `If-Match: W/"…"`; nil for a resource the server did not have.
        var ifMatch: String?
    }

    /// A batch of `GET Observation/{id}`, then (`ledgerState`) a read of the erasure ledger's state resource
    /// (``FHIRErasureLedger/stateID``): a batch learns the ledger's generation in the same round trip.
    static func reads(_ ids: [String], ledgerState: Bool = false) -> [UInt8] {
        requests("GET", ids, also: ledgerState ? ["Basic/" + FHIRErasureLedger.stateID] : [])
    }

    /// A batch of `DELETE Observation/{id}`.
    static func deletes(_ ids: [String]) -> [UInt8] {
        requests("DELETE", ids)
    }

    /// A batch of bodiless requests: `method Observation/{id}` for each of `ids`, then `GET` each of `also`.
    private static func requests(_ method: String, _ ids: [String], also: [String] = []) -> [UInt8] {
        var out = Array(#"{"resourceType":"Bundle","type":"batch","entry":["#.utf8)
        let urls = ids.map { (method, "Observation/" + $0) } + also.map { ("GET", $0) }
        for (n, (method, url)) in urls.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"request":{"method":""#.utf8)
            out += Array(method.utf8)
            out += Array(#"","url":"#.utf8)
            JSONWriter.appendQuoted(url, to: &out)
            out += Array("}}".utf8)
        }
        out += Array("]}".utf8)
        return out
    }

    /// A batch of `PUT Observation/{id}` (update-as-create), each guarded by `If-Match` when it replaces a copy.
    static func writes(_ writes: [Write], versionTagSystem: String) -> [UInt8] {
        var out = Array(#"{"resourceType":"Bundle","type":"batch","entry":["#.utf8)
        out.reserveCapacity(writes.count * 2200)
        for (n, write) in writes.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"resource":"#.utf8)
            out += resourceBytes(write.record, versionTagSystem: versionTagSystem)
            out += Array(#","request":{"method":"PUT","url":"Observation/"#.utf8)
            out += Array(write.record.resourceID.utf8)
            if let version = write.ifMatch {
                out += Array(#"","ifMatch":"#.utf8)
                JSONWriter.appendQuoted(#"W/""# + version + #"""#, to: &out)
                out += Array("}}".utf8)
            } else {
                out += Array(#""}}"#.utf8)
            }
        }
        out += Array("]}".utf8)
        return out
    }

    /// The record's Observation as the FHIR store writes it: the mapped head and tail with the event version tag
    /// between them (the server, not the store, decides `meta.versionId` and `meta.lastUpdated`). The status is the
    /// mapped one: this store does not decide `amended` yet (that needs the server's stored status and value in the
    /// conditional write; see docs/LIFECYCLE.md).
    static func resourceBytes(_ record: ObservationRecord, versionTagSystem: String) -> [UInt8] {
        var out = Array(record.resourceHeadUTF8)
        out += Array(#""tag":[{"system":"#.utf8)
        JSONWriter.appendQuoted(versionTagSystem, to: &out)
        out += Array(#","code":""#.utf8)
        out += Array(String(record.version).utf8)
        out += Array(#""}],"#.utf8)
        record.appendResourceBody(status: record.status, to: &out)
        return out
    }

    /// The entries of a `batch-response`, which must answer every one of `expected` requests in order.
    /// - Throws: ``StoreError`` (`query`) when the body is not such a Bundle.
    static func entries(of response: HTTPResponse, expected: Int) throws -> [Entry] {
        guard let bundle = JSONValue.anyObject(response.body),
            bundle["resourceType"] as? String == "Bundle"
        else {
            throw StoreError(
                .query, nativeCode: String(response.status),
                "the FHIR server answered a batch with no Bundle: " + FHIRRestClient.answerSummary(response))
        }
        let raw = bundle["entry"] as? [[String: Any]] ?? []
        guard raw.count == expected else {
            throw StoreError(
                .query, "the FHIR server's batch-response has \(raw.count) entries for \(expected) requests")
        }
        return raw.map { entry in
            let answer = entry["response"] as? [String: Any] ?? [:]
            let statusText = answer["status"] as? String ?? ""
            return Entry(
                status: Int(statusText.prefix { $0.isNumber }) ?? 0,
                versionId: (answer["etag"] as? String).map(versionId(fromETag:)),
                resource: entry["resource"] as? [String: Any],
                outcomeText: FHIRRestClient.outcomeText(answer["outcome"]),
                outcomeSummary: FHIRRestClient.outcomeSummary(answer["outcome"]))
        }
    }

    /// `W/"3"` → `3`.
    static func versionId(fromETag etag: String) -> String {
        var text = Substring(etag)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        while text.first == "\"" { text = text.dropFirst() }
        while text.last == "\"" { text = text.dropLast() }
        return String(text)
    }
}
