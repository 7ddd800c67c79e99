import JSON

extension JSONValue {
    /// A string, or each string of an array of strings (`aud`, a scope claim written either way); nil otherwise.
    var strings: [String]? {
        switch self {
        case .string(let value): return [value]
        case .array(let values):
            let strings = values.compactMap(\.string)
            return strings.count == values.count ? strings : nil
        default: return nil
        }
    }
}
