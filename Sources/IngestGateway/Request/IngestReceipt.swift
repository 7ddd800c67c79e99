import DailyValueContract
import HTTPServer
import JSON

/// The 202 answer: where the broker wrote each record, in request order (record `i` at `partitions[i]`,
/// `offsets[i]`). Kept compact (12 bytes a record) so receipts can be kept for idempotent retries.
struct IngestReceipt: Sendable, Hashable {
    var topic: String
    var partitions: [Int32]
    var offsets: [Int64]

    var count: Int { partitions.count }

    /// `{"accepted":N,"topic":…,"receipts":[{"index":0,"partition":P,"offset":O},…]}`, the same bytes every time.
    var body: [UInt8] {
        JSONWriter.bytes(capacity: 64 + topic.utf8.count + count * 44) { json in
            json.beginObject()
            json.key("accepted")
            json.value(Int64(count))
            json.member("topic", topic)
            json.key("receipts")
            json.beginArray()
            for index in 0..<count {
                json.beginObject()
                json.key("index")
                json.value(Int64(index))
                json.key("partition")
                json.value(Int64(partitions[index]))
                json.key("offset")
                json.value(offsets[index])
                json.endObject()
            }
            json.endArray()
            json.endObject()
        }
    }

    /// The 202 response; `replayed` marks an answer from a kept receipt (`Idempotent-Replayed: true`).
    func response(replayed: Bool = false) -> HTTPServer.Response {
        HTTPServer.Response(
            status: 202, contentType: "application/json",
            headers: replayed ? ["Idempotent-Replayed": "true"] : [:], body: body)
    }
}
