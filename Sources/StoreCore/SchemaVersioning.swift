/// A store with a versioned schema (the SQL stores).
public protocol SchemaVersioning: Sendable {
    /// The number of schema migrations applied (the highest row of `schema_version`).
    func schemaVersion() async throws -> Int
}
