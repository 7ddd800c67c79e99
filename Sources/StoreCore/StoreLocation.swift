import DailyValueContract
import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a store lives, parsed from one configuration string (`--store`, `DVP_STORE`).
///
/// Accepted forms:
/// - `sqlite:PATH` — an SQLite database file (created if missing), e.g. `sqlite:/var/lib/dvp/observations.db`.
/// - `postgres://…` or `postgresql://…` — a libpq connection URI; every libpq parameter (`sslmode`, `sslrootcert`,
///   `connect_timeout`, `application_name`, …) works and overrides the store's bounded defaults
///   (see ``PostgresObservationStore``).
/// - `fhir+https://host/base` or `fhir+http://host/base` — a FHIR R4 server's base URL (see
///   ``FHIRObservationStore``); plain `http` is for tests and local servers.
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(connectionString: String)
    /// The FHIR server's base URL without the `fhir+` prefix, e.g. `https://fhir.example.org/r4`.
    case fhir(baseURL: String)

    /// A human description of the accepted forms, for error messages and `--help`.
    public static let acceptedForms =
        "sqlite:PATH, postgres://… or postgresql://… (a libpq connection URI), fhir+https://HOST/BASE or "
        + "fhir+http://HOST/BASE (a FHIR R4 server)"

    /// Parses a store location.
    /// - Throws: ``StoreError`` with code `usage` naming the accepted forms when `text` matches none of them.
    public init(parsing text: String) throws {
        if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else {
                throw StoreError(.usage, "store location 'sqlite:' has no path; expected \(Self.acceptedForms)")
            }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            self = .postgres(connectionString: text)
        } else if text.hasPrefix("fhir+https://") || text.hasPrefix("fhir+http://") {
            let url = String(text.dropFirst("fhir+".count))
            guard let scheme = url.firstRange(of: "://"), !url[scheme.upperBound...].isEmpty else {
                throw StoreError(.usage, "store location '\(text)' has no host; expected \(Self.acceptedForms)")
            }
            guard !Redaction.carriesUserInfo(url) else {
                throw StoreError(
                    .usage,
                    "a FHIR store location must not carry credentials (user@ or user:password@): use "
                        + "--fhir-token-file or the OAuth2 client-credential flags")
            }
            self = .fhir(baseURL: url.hasSuffix("/") ? String(url.dropLast()) : url)
        } else {
            // Not echoed: a mistyped location may hold a password in a form no masking recognises.
            throw StoreError(.usage, "unsupported store location; expected \(Self.acceptedForms)")
        }
    }

    /// The location safe for logs and output: a PostgreSQL URI with its user-info password and any `password=`
    /// parameter replaced by `***`, a FHIR URL without its query string (``Redaction``).
    public var description: String {
        switch self {
        case .sqlite(let path):
            return "sqlite:\(path)"
        case .fhir(let baseURL):
            return "fhir+" + Redaction.withoutQuery(baseURL)
        case .postgres(let connectionString):
            return Redaction.maskingPasswords(connectionString)
        }
    }
}
