/// What a store's connection provides to apply its ordered schema migrations; the SQL is the store's own.
package protocol SchemaMigrating {
    /// Runs `body` in one transaction that also serializes the schema work of concurrent openers, with client
    /// errors turned into ``StoreError``s.
    func withSchemaLock(_ body: () throws -> Void) throws
    /// Creates the `schema_version` table if it is missing.
    func createSchemaVersionTable() throws
    /// The highest migration applied (0 for a new database).
    func schemaVersion() throws -> Int
    /// Runs `migration` and records `version` as applied.
    func apply(_ migration: String, recordingVersion version: Int) throws
}

/// Creates or migrates a store's schema: migration `n` (1-based) is `migrations[n - 1]`, append only (never edit a
/// released step); `schema_version` records each one applied, all in one transaction under the schema lock.
package enum SchemaMigrator {
    /// - Throws: ``StoreError`` `schema` when a step fails or the database is newer than this build; `busy`,
    ///   `connection` or `timeout` as the connection reports them.
    package static func migrate(_ migrations: [String], on connection: some SchemaMigrating) throws {
        do {
            try connection.withSchemaLock {
                try connection.createSchemaVersionTable()
                let current = try connection.schemaVersion()
                guard current <= migrations.count else {
                    throw StoreError(
                        .schema, "database schema version \(current) is newer than this build (\(migrations.count))")
                }
                for (index, migration) in migrations.enumerated().dropFirst(current) {
                    try connection.apply(migration, recordingVersion: index + 1)
                }
            }
        } catch let error as StoreError where error.code == .query {
            throw StoreError(.schema, nativeCode: error.nativeCode, "migrating the schema: \(error.message)")
        }
    }
}
