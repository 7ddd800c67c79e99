/// Text that is safe to log or print from connection strings and URLs: passwords masked, query strings dropped.
///
/// The one implementation every store location, PostgreSQL connection string and FHIR URL goes through before it
/// reaches a log line, an error message or `/readyz`.
public enum Redaction {
    /// The mask written in place of a secret.
    public static let mask = "***"

    /// `text` with a URI's user-info password (`postgres://user:PASSWORD@host`) and every `password=` parameter
    /// (a URI query's `?password=…` / `&password=…`, or a libpq `password=…` keyword, quoted or not) replaced by
    /// ``mask``. Everything else is kept.
    public static func maskingPasswords(_ text: String) -> String {
        maskingPasswordParameters(maskingUserInfoPassword(text))
    }

    /// True when `text` holds a password that ``maskingPasswords(_:)`` would mask.
    public static func holdsPassword(_ text: String) -> Bool {
        maskingPasswords(text) != text
    }

    /// `url` without its query string and fragment (`https://h/fhir/Observation?identifier=…` →
    /// `https://h/fhir/Observation`): a query may carry a token, an API key or a patient identifier.
    public static func withoutQuery(_ url: String) -> String {
        guard let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url }
        return String(url[..<cut])
    }

    // MARK: - Parts

    private static func maskingUserInfoPassword(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") else {
            return text
        }
        let userInfo = text[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":" + mask + String(text[at...])
    }

    /// True for a character after which a `password=` starts a parameter (not `xpassword=`).
    private static func startsParameter(after character: Character) -> Bool {
        character == "?" || character == "&" || character == ";" || character.isWhitespace
    }

    private static func maskingPasswordParameters(_ text: String) -> String {
        let keyword = "password="
        var out = ""
        var rest = Substring(text)
        while let found = rest.firstRange(of: keyword) {
            let before: Character? =
                found.lowerBound > rest.startIndex ? rest[rest.index(before: found.lowerBound)] : out.last
            let startsParameter = before.map { Self.startsParameter(after: $0) } ?? true
            out += rest[..<found.upperBound]
            rest = rest[found.upperBound...]
            guard startsParameter else { continue }
            let end: Substring.Index
            if rest.first == "'" {
                // A quoted libpq value: up to the closing quote not escaped by a backslash.
                var index = rest.index(after: rest.startIndex)
                while index < rest.endIndex, rest[index] != "'" {
                    index = rest[index] == "\\" && rest.index(after: index) < rest.endIndex
                        ? rest.index(index, offsetBy: 2) : rest.index(after: index)
                }
                end = index < rest.endIndex ? rest.index(after: index) : index
            } else {
                end = rest.firstIndex { $0 == "&" || $0 == "#" || $0.isWhitespace } ?? rest.endIndex
            }
            out += mask
            rest = rest[end...]
        }
        return out + rest
    }
}
