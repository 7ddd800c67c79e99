import DailyValueContract
import Essentials
import Foundation
import Testing

@testable import FHIRServerStore
import JSON

/// The helpers that replaced Foundation APIs in the shipped targets (docs/IMAGE.md), held to Foundation's answers;
/// the tests may load Foundation, the binaries do not.
@Suite struct FoundationFreeFormatsTests {
    @Test(arguments: [0, 7, 42, 2026, -3, 123_456_789])
    func digitsLikePrintf(_ value: Int) {
        for width in [2, 4, 6] {
            #expect(FixedFormat.digits(value, width: width) == String(format: "%0\(width)d", value))
        }
    }

    @Test(arguments: [0, 0.04, 1.26, 12.0, 99.94, 1234.567, -2.71, 1e6 / 3, 61_234.0 / 7])
    func decimalsLikePrintf(_ value: Double) {
        for places in [0, 1, 3] {
            #expect(FixedFormat.decimals(value, places) == String(format: "%.\(places)f", value), "\(value) \(places)")
        }
    }

    @Test(arguments: ["", "  x  ", "\r\n token\t\n", "a b", " \u{00A0}x\u{2003}"])
    func trimmingLikeFoundation(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test(arguments: ["", "ab", "republish", "a-very-long-column-name"])
    func paddingLikeFoundation(_ text: String) {
        #expect(text.padded(to: 10) == text.padding(toLength: 10, withPad: " ", startingAt: 0))
    }

    @Test(arguments: ["abc-._~XYZ09", "a b&c=d/e?f", "p-000123|heart_rate", "100%", "Jane's iPhone"])
    func percentEncodingLikeFoundation(_ text: String) {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        #expect(PercentEncoding.encoded(text) == text.addingPercentEncoding(withAllowedCharacters: allowed))
        #expect(PercentEncoding.decoded(PercentEncoding.encoded(text)) == text)
    }

    @Test func nonASCIIIsEncodedAndMalformedEscapesRefused() {
        #expect(PercentEncoding.encoded("é") == "%C3%A9")
        #expect(PercentEncoding.decoded("%41%62c%2f") == "Abc/")
        #expect(PercentEncoding.decoded("%4") == nil)
        #expect(PercentEncoding.decoded("%zz") == nil)
        #expect(PercentEncoding.decoded("%FF") == nil)
    }

    @Test(arguments: [
        "2026-10-01T00:00:00Z", "2026-10-01T00:00:00.250Z", "2026-10-01T02:00:00+02:00", "2026-03-09T00:00:00-03:30",
        "2026-10-01", "2026-10-01 00:00:00Z", "yesterday",
    ])
    func rfc3339LikeISO8601DateFormatter(_ text: String) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        let expected = formatter.date(from: text) ?? plain.date(from: text)
        #expect(RFC3339.parse(text) == expected)
    }

    @Test func rfc3339WritesMillisecondsInUTC() {
        let date = Date(timeIntervalSince1970: 1_790_812_800.125)
        #expect(RFC3339.string(date) == "2026-10-01T00:00:00.125Z")
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Thu, 01 Oct 2026 23:59:60 GMT", "Mon, 29 Feb 2027 00:00:00 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 CET", "soon",
    ])
    func httpDateLikeDateFormatter(_ text: String) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let expected = formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
        if text.contains(":60") {
            #expect(HTTPDate.secondsSince1970(text) == 1_790_899_200)  // a leap second: the next minute's start
        } else {
            #expect(HTTPDate.secondsSince1970(text) == expected, "\(text)")
        }
    }

    @Test func jsonTreesWriteWhatJSONSerializationWrites() throws {
        let text = """
            {"resourceType":"Bundle","entry":[{"resource":{"id":"a/b","valueQuantity":{"value":71.4,"unit":"/min"},
            "meta":{"versionId":"3"},"flag":true,"none":null,"count":3,"tiny":-0.5}}],"total":1}
            """
        let bytes = Array(text.utf8)
        let tree = try #require(JSONValue.anyObject(bytes))
        let ours = try #require(JSONValue(any: tree)).serialized()
        let foundation = try JSONSerialization.data(
            withJSONObject: try JSONSerialization.jsonObject(with: Data(bytes)),
            options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: foundation, as: UTF8.self))
        #expect(JSONValue.anyObject(Array(#"{"a":1,"a":2}"#.utf8)) == nil)  // a member twice is refused
        #expect(JSONValue(any: Date()) == nil)
    }
}
