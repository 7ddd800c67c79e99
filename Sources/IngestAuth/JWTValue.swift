/// One member's value in a JWT's header or claims set, as far as the checks here read it; anything else is
/// ``other``. Decoding never fails for a well-formed JSON value, so a header or claims set with unexpected members
/// still decodes and the checks name the member that is wrong.
enum JWTValue: Decodable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    /// An array of strings (`aud`, a `scope` written as an array).
    case strings([String])
    /// An object, `null`, a mixed array, or a number a `Double` cannot hold.
    case other

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let strings = try? container.decode([String].self) {
            self = .strings(strings)
        } else {
            self = .other
        }
    }

    var string: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    var number: Double? {
        guard case .number(let value) = self, value.isFinite else { return nil }
        return value
    }

    /// A string, or each string of an array of strings.
    var strings: [String]? {
        switch self {
        case .string(let value): [value]
        case .strings(let values): values
        default: nil
        }
    }
}
