import DailyValueContract
import DeadLetters
import Hashing
import JSON
import Kafka

/// The summaries that stand in for parts of a record too large to dead-letter verbatim: each keeps the part's size
/// and SHA-256 (hex), so the original can be recognised and counted, never its content.
///
/// Header names are the contract with readers of the dead-letter topic (docs/RELIABILITY.md, `dlq` tooling):
/// - `x-dlq.summarized`: which parts were replaced, comma-separated, of `value`, `key`, `headers`;
/// - value: the record's value becomes `{"truncated":true,"size":N,"sha256":"…"}`, with `x-dlq.payload-sha256`;
/// - key: the key becomes null, with `x-dlq.original-key` = `{"size":N,"sha256":"…"}`;
/// - one header: replaced in place by `x-dlq.original-header` = `{"name":"…","nameSize":N,"size":N,"sha256":"…"}`
///   (the name cut to 64 bytes, the hash over the value);
/// - all headers: replaced by one `x-dlq.original-headers` = `{"count":N,"size":N,"sha256":"…"}`, the hash over
///   every header as 4-byte big-endian name length, name, 4-byte value length (0xFFFFFFFF for null), value.
enum DeadLetterSummary {
    /// Parts no larger than this stay verbatim: their summary would not be much smaller.
    static let minimumSummarizedBytes = 256
    /// The most bytes of a header name kept in its summary.
    static let maxNameBytes = 64

    /// The envelope replacing a value, and its hash header.
    static func value(_ value: [UInt8]) -> (value: [UInt8], header: KafkaHeader) {
        let digest = SHA256.hex(value)
        let envelope = Array("{\"truncated\":true,\"size\":\(value.count),\"sha256\":\"\(digest)\"}".utf8)
        return (envelope, KafkaHeader(key: DeadLetterHeaders.payloadSHA256, string: digest))
    }

    /// The header describing a key that was left out.
    static func key(_ key: [UInt8]) -> KafkaHeader {
        KafkaHeader(key: DeadLetterHeaders.originalKey, string: "{\"size\":\(key.count),\"sha256\":\"\(SHA256.hex(key))\"}")
    }

    /// The header standing in for one header.
    static func header(_ header: KafkaHeader) -> KafkaHeader {
        var name = String.UnicodeScalarView()
        var nameBytes = 0
        for scalar in header.key.unicodeScalars {
            nameBytes += UTF8.width(scalar)
            if nameBytes > maxNameBytes { break }
            name.append(scalar)
        }
        var json: [UInt8] = Array("{\"name\":".utf8)
        JSONWriter.appendQuoted(String(name), to: &json)
        let value = header.value ?? []
        json += Array(
            ",\"nameSize\":\(header.key.utf8.count),\"size\":\(value.count),\"sha256\":\"\(SHA256.hex(value))\"}".utf8)
        return KafkaHeader(key: DeadLetterHeaders.originalHeader, value: json)
    }

    /// The header standing in for every original header.
    static func headers(_ headers: [KafkaHeader]) -> KafkaHeader {
        var serialized: [UInt8] = []
        for header in headers {
            appendLength(header.key.utf8.count, to: &serialized)
            serialized += Array(header.key.utf8)
            if let value = header.value {
                appendLength(value.count, to: &serialized)
                serialized += value
            } else {
                serialized += [0xFF, 0xFF, 0xFF, 0xFF]
            }
        }
        let size = headers.reduce(0) { $0 + $1.key.utf8.count + ($1.value?.count ?? 0) }
        return KafkaHeader(
            key: DeadLetterHeaders.originalHeaders,
            string: "{\"count\":\(headers.count),\"size\":\(size),\"sha256\":\"\(SHA256.hex(serialized))\"}")
    }

    private static func appendLength(_ n: Int, to out: inout [UInt8]) {
        let n = UInt32(truncatingIfNeeded: n)
        out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }
}
