import DailyValueContract
import Foundation
import JSON
import Testing

/// PostgreSQL's `jsonb` text is made compact for reads: blanks between tokens go, string contents stay byte for byte.
struct JSONWhitespaceTests {
    @Test func blanksBetweenTokensGoStringsStay() throws {
        let jsonb = #"{"a": 1, "b": [2, 3.5e-7, null], "s": "x, y: \"q\" \\ ", "t": "\n\t", "u": {"v": true}}"#
        let compact = JSONWhitespace.removed(from: jsonb)
        #expect(compact == #"{"a":1,"b":[2,3.5e-7,null],"s":"x, y: \"q\" \\ ","t":"\n\t","u":{"v":true}}"#)
        let before = try JSONSerialization.jsonObject(with: Data(jsonb.utf8)) as? NSDictionary
        let after = try JSONSerialization.jsonObject(with: Data(compact.utf8)) as? NSDictionary
        #expect(before != nil && before == after)
    }

    @Test func multiLineJSONAndEmptyContainers() {
        #expect(JSONWhitespace.removed(from: "{\r\n\t\"a\" : [ ] ,\n \"b\": { }\n}") == #"{"a":[],"b":{}}"#)
        // An escaped backslash right before the closing quote ends the string.
        #expect(JSONWhitespace.removed(from: #"["a \\" , " b "]"#) == #"["a \\"," b "]"#)
    }
}
