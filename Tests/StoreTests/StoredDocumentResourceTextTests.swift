import DailyValueContract
import Testing

@testable import ObservationMapping
@testable import StoreCore

/// `storectl migrate` on SQLite cuts a stored resource's text into a document that must read back as the very
/// same bytes (``StoredDocument/fromResourceText(_:metric:versionId:lastUpdated:status:)``), or refuse.
@Suite struct StoredDocumentResourceTextTests {
    static let stamp = "2026-10-02T06:15:03.120Z"

    /// Every mapped metric, in every status the store writes: the text the older build stored comes back whole.
    @Test(arguments: ["preliminary", "final", "amended", "entered-in-error"])
    func everyMetricReadsBackByteForByte(status: String) throws {
        for metric in MetricCatalog.builtin.metrics.values {
            var event = ObservationSamples.value(for: metric, patient: "p-1", day: "2026-09-21")
            event.status = .final
            let record = try Fixtures.mapper.map(event, recordTimestampMs: Fixtures.ms("2026-10-02T06:00:00Z"))
            let text = Array(
                (record.resourceHead + #""versionId":"3","lastUpdated":"\#(Self.stamp)","# + record.resourceTail
                    + "\"\(status)\"" + record.resourceAfterStatus).utf8)
            let shaped = try #require(
                StoredDocument.fromResourceText(
                    text, metric: metric.key, versionId: 3, lastUpdated: Self.stamp, status: status),
                "\(metric.key)")
            let back = StoredDocument.resource(
                shaped.content, parts: shaped.parts, versionId: 3, lastUpdated: Self.stamp, status: status)
            #expect(Array(back.utf8) == text, "\(metric.key)")
            #expect(shaped.parts.count == 3)
            #expect(shaped.facts?.periodEnd == record.facts?.periodEnd, "\(metric.key)")
        }
    }

    @Test func shapesItCannotKeepAreRefused() {
        func shaped(_ text: String, versionId: Int64 = 3, status: String? = nil) -> Bool {
            StoredDocument.fromResourceText(
                Array(text.utf8), metric: "steps", versionId: versionId, lastUpdated: Self.stamp, status: status)
                != nil
        }
        let meta = #""meta":{"versionId":"3","lastUpdated":"\#(Self.stamp)""#
        // Accepted: meta of only the two, the status after meta, a string value holding `"status":`.
        #expect(shaped(#"{"id":"a",\#(meta)}}"#))
        #expect(shaped(#"{"id":"a",\#(meta),"source":"s"},"status":"final","x":1}"#, status: "final"))
        #expect(shaped(#"{"note":"\"status\":\"x\"",\#(meta)},"status":"final"}"#, status: "final"))
        // Refused: meta without them first, another versionId, the status before meta or unlike the column, not
        // an object, no meta.
        #expect(!shaped(#"{"id":"a","meta":{"source":"s","versionId":"3","lastUpdated":"\#(Self.stamp)"}}"#))
        #expect(!shaped(#"{"id":"a",\#(meta)}}"#, versionId: 4))
        #expect(!shaped(#"{"status":"final",\#(meta)}}"#, status: "final"))
        #expect(!shaped(#"{"id":"a",\#(meta)},"status":"preliminary"}"#, status: "final"))
        #expect(!shaped(#"[1,2]"#))
        #expect(!shaped(#"{"id":"a"}"#))
        #expect(!shaped(#"{"id":"a",\#(meta)"#))
    }
}
