import DailyValueContract
import Foundation

/// Where a store lives, parsed from one configuration string (`--store`, `DVP_STORE`).
///
/// Accepted forms:
/// - `sqlite:PATH` — an SQLite database file (created if missing), e.g. `sqlite:/var/lib/dvp/observations.db`.
/// - `postgres://…` or `postgresql://…` — a libpq connection URI; every libpq parameter (`sslmode`, `sslrootcert`,
///   `connect_timeout`, `application_name`, …) works and overrides the store's bounded defaults
///   (see ``PostgresObservationStore``).
public enum StoreLocation: Sendable, Hashable, CustomStringConvertible {
    case sqlite(path: String)
    case postgres(connectionString: String)

    /// A human description of the accepted forms, for error messages and `--help`.
    public static let acceptedForms = "sqlite:PATH, postgres://… or postgresql://… (a libpq connection URI)"

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
        } else {
            throw StoreError(.usage, "unsupported store location '\(text)'; expected \(Self.acceptedForms)")
        }
    }

    /// The location with any password in a PostgreSQL URI replaced by `***` (safe for logs).
    public var description: String {
        switch self {
        case .sqlite(let path):
            return "sqlite:\(path)"
        case .postgres(let connectionString):
            guard let scheme = connectionString.range(of: "://"),
                let at = connectionString[scheme.upperBound...].firstIndex(of: "@")
            else { return connectionString }
            let userInfo = connectionString[scheme.upperBound..<at]
            guard let colon = userInfo.firstIndex(of: ":") else { return connectionString }
            return connectionString[..<colon] + ":***" + connectionString[at...]
        }
    }
}

// MARK: - Factory

/// Opens the store at `location`, creating or migrating its schema.
/// - Parameter postgres: client-side bounds and name of a PostgreSQL store's connection (ignored for SQLite).
/// - Throws: ``StoreError`` (`connection`, `timeout`, `schema`, `busy`, …) when the database cannot be opened or
///   migrated.
public func makeObservationStore(
    _ location: StoreLocation, postgres: PostgresClientOptions = PostgresClientOptions()
) async throws -> any ObservationStore {
    switch location {
    case .sqlite(let path):
        return try await SQLiteObservationStore(path: path)
    case .postgres(let connectionString):
        return try await PostgresObservationStore(connectionString: connectionString, options: postgres)
    }
}
