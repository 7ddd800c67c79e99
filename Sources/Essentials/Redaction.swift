#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

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

    /// `url` without its user info, query string and fragment (`https://u:p@h/fhir/Observation?identifier=…` →
    /// `https://h/fhir/Observation`): a query may carry a token, an API key or a patient identifier.
    public static func withoutQuery(_ url: String) -> String {
        var url = Substring(url)
        if let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) { url = url[..<cut] }
        guard let scheme = url.firstRange(of: "://"), let at = url[scheme.upperBound...].lastIndex(of: "@") else {
            return String(url)
        }
        return String(url[..<scheme.upperBound] + url[url.index(after: at)...])
    }

    /// True when `url` carries user info (`user@` or `user:password@`) before its query: credentials that belong
    /// in a file, never in a URL. Any `@` before the query counts, so an unencoded `/` in a password cannot hide it.
    public static func carriesUserInfo(_ url: String) -> Bool {
        guard let scheme = url.firstRange(of: "://") else { return false }
        return url[scheme.upperBound...].prefix { $0 != "?" && $0 != "#" }.contains("@")
    }

    // MARK: - Parts

    /// The user info of a URI masked after its first `:` up to the last `@` before the query: a password with an
    /// unencoded `/` or `@` is masked whole too.
    private static func maskingUserInfoPassword(_ text: String) -> String {
        guard let scheme = text.firstRange(of: "://") else { return text }
        let authorityAndPath = text[scheme.upperBound...].prefix { $0 != "?" && $0 != "#" }
        guard let at = authorityAndPath.lastIndex(of: "@") else { return text }
        let userInfo = text[scheme.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":" + mask + String(text[at...])
    }

    /// True for a character after which a parameter's key starts.
    private static func startsParameter(_ character: Character) -> Bool {
        character == "?" || character == "&" || character == ";" || character.isWhitespace
    }

    /// Masks the value of every parameter whose key ends in `password` (`password`, `sslpassword`, any case,
    /// percent-encoded or not; `key=value` in a URI query or a libpq keyword string, spaces around `=` allowed).
    private static func maskingPasswordParameters(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let equals = rest.firstIndex(of: "=") {
            let keyEnd = rest[..<equals].lastIndex { !$0.isWhitespace }.map { rest.index(after: $0) } ?? equals
            let keyStart = rest[..<keyEnd].lastIndex(where: startsParameter).map { rest.index(after: $0) }
                ?? rest.startIndex
            let key = String(rest[keyStart..<keyEnd])
            let decoded = (PercentEncoding.decoded(key) ?? key).lowercased()
            out += rest[...equals]
            rest = rest[rest.index(after: equals)...]
            guard decoded.hasSuffix("password") else { continue }
            let leading = rest.prefix { $0 == " " }
            out += leading
            rest = rest[leading.endIndex...]
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
