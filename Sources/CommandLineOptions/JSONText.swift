/// The few JSON spellings the option table needs (this target imports nothing, not even Foundation).
enum JSONText {
    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `[a,b]` from elements already spelled as JSON.
    static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }

    /// A number: integral values without a fraction (`30`, not `30.0`).
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }

    /// A default as the JSON value of its type: a number for integers and numbers, a boolean for switches.
    static func typed(_ text: String?, as type: CommandLineOption.ValueType) -> String {
        guard let text else { return "null" }
        switch type {
        case .integer: return Int(text).map(String.init) ?? string(text)
        case .number: return Double(text).map(number) ?? string(text)
        case .boolean: return ["1", "true", "yes"].contains(text.lowercased()) ? "true" : "false"
        case .string, .choice: return string(text)
        }
    }
}
