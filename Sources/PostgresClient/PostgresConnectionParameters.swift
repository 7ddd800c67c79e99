import CPostgres
import Essentials

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// The libpq connection parameters of the PostgreSQL store: the user's connection string merged over bounded
/// defaults, ready for `PQconnectStartParams`.
///
/// The connection string is parsed with `PQconninfoParse`, so both forms work: a URI
/// (`postgresql://dvp@db/dvp?connect_timeout=5`) and `key=value` pairs (`host=db dbname=dvp connect_timeout=5`).
/// Whatever it sets wins; so does a libpq environment variable (`PGCONNECT_TIMEOUT`, `PGAPPNAME`, …) for a parameter
/// the string leaves out. Otherwise these defaults apply:
///
/// | parameter | default | why |
/// |---|---|---|
/// | `connect_timeout` | 10 (s) | an unreachable host fails instead of waiting for the kernel's SYN retries |
/// | `keepalives` (`_idle`, `_interval`, `_count`) | 1 (30 s, 10 s, 3) | a silently dead peer is noticed |
/// | `tcp_user_timeout` | 30000 (ms) | unacknowledged data fails the socket |
/// | `fallback_application_name` | ``PostgresClientOptions/applicationName`` | find backends in `pg_stat_activity` |
/// | `options` | `-c statement_timeout=30s -c lock_timeout=10s` | the server ends runaway statements and lock waits |
///
/// The string's `options` (or `PGOPTIONS`) are appended after the default ones, so a `-c statement_timeout=…` there
/// overrides the default while the other defaults stay. `client_encoding` is always `UTF8`: the store reads and
/// writes UTF-8 text.
package struct PostgresConnectionParameters: Sendable, Equatable {
    /// Transport defaults, each used only when neither the connection string nor its environment variable sets it.
    static let defaults: [String: String] = [
        "connect_timeout": "10",
        "keepalives": "1", "keepalives_idle": "30", "keepalives_interval": "10", "keepalives_count": "3",
        "tcp_user_timeout": "30000",
    ]
    /// Server settings put before the user's `options` (the server applies `-c` switches in order: the last wins).
    static let defaultServerOptions = "-c statement_timeout=30s -c lock_timeout=10s"

    /// keyword → value, as given to libpq.
    package let values: [String: String]
    /// How long connecting may take: `connect_timeout` as libpq reads it (values below 2 count as 2), nil when it
    /// is 0 or negative (libpq: wait indefinitely; the caller then bounds the connect by its round-trip timeout).
    package let connectTimeout: Duration?

    /// Parses `connectionString` and merges it over the defaults.
    /// - Parameter environment: where libpq's environment variables are looked up (the process's by default).
    /// - Throws: ``PostgresError`` `usage` when libpq cannot parse the connection string (its message says why, unless
    ///   the string holds a password: libpq's message may quote it).
    package init(
        connectionString: String, applicationName: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let parsed = try Self.parse(connectionString)
        func fromEnvironment(_ keyword: String) -> String? {
            guard let variable = parsed.environmentVariables[keyword], let value = environment[variable],
                !value.isEmpty
            else { return nil }
            return value
        }
        var values = parsed.values
        for (keyword, value) in Self.defaults where values[keyword] == nil && fromEnvironment(keyword) == nil {
            values[keyword] = value
        }
        if values["fallback_application_name"] == nil { values["fallback_application_name"] = applicationName }
        let userOptions = values["options"] ?? fromEnvironment("options")
        values["options"] = ([Self.defaultServerOptions] + (userOptions.map { [$0] } ?? [])).joined(separator: " ")
        values["client_encoding"] = "UTF8"
        self.values = values
        let seconds = Int(values["connect_timeout"] ?? fromEnvironment("connect_timeout") ?? "0") ?? 0
        connectTimeout = seconds > 0 ? .seconds(max(seconds, 2)) : nil
    }

    /// Runs `body` with the parameters as the NULL-terminated keyword and value arrays `PQconnectStartParams` takes.
    func withCArrays<Result>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) throws -> Result
    ) rethrows -> Result {
        let ordered = values.sorted { $0.key < $1.key }
        let keywords = ordered.map { strdup($0.key) }
        let settings = ordered.map { strdup($0.value) }
        defer { (keywords + settings).forEach { free($0) } }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = settings.map { UnsafePointer($0) } + [nil]
        return try keywordPointers.withUnsafeBufferPointer { k in
            try valuePointers.withUnsafeBufferPointer { v in try body(k.baseAddress!, v.baseAddress!) }
        }
    }

    // MARK: - Parsing

    /// The parameters `connectionString` sets, and the environment variable libpq consults for each keyword.
    private static func parse(
        _ connectionString: String
    ) throws -> (values: [String: String], environmentVariables: [String: String]) {
        if let problem = unencodedUserInfo(connectionString) { throw PostgresError(.usage, problem) }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &message) else {
            defer { if let message { PQfreemem(message) } }
            // libpq's message quotes the part it could not parse, which may be the password: withheld then.
            let reason =
                Redaction.holdsPassword(connectionString)
                ? "libpq's message is withheld because the string holds a password; check its syntax"
                : message.map { String(cString: $0) } ?? "libpq is out of memory"
            throw PostgresError(
                .usage,
                "invalid PostgreSQL connection string: "
                    + reason.trimmingWhitespace())
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var variables: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            let name = String(cString: keyword)
            if let value = option.pointee.val { values[name] = String(cString: value) }
            if let variable = option.pointee.envvar { variables[name] = String(cString: variable) }
            option += 1
        }
        return (values, variables)
    }

    /// Why a URI's user info is not percent-encoded, or nil. libpq ends the user info at the first `@` and the
    /// authority at the first `/`, so an unencoded `@` or `/` in a password would turn part of it into the host or
    /// the port, which its connection errors then print (never the text itself here).
    static func unencodedUserInfo(_ connectionString: String) -> String? {
        guard connectionString.hasPrefix("postgres://") || connectionString.hasPrefix("postgresql://"),
            let scheme = connectionString.firstRange(of: "://")
        else { return nil }
        let beforeQuery = connectionString[scheme.upperBound...].prefix { $0 != "?" && $0 != "#" }
        let authority = beforeQuery.prefix { $0 != "/" }
        let ats = authority.filter { $0 == "@" }.count
        let atAfterAuthority = beforeQuery[authority.endIndex...].contains("@")
        guard ats > 1 || atAfterAuthority else { return nil }
        return "invalid PostgreSQL URI: its user info is not percent-encoded (write '@' as %40, '/' as %2F, "
            + "'?' as %3F, '#' as %23 and ':' as %3A in the user name and password)"
    }
}
