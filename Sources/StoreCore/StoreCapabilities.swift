/// What a store offers beyond upserts and reads, declared by the store itself (``ObservationStore/capabilities``):
/// a caller asks for the operation it needs and gets nil when the store has none, instead of casting the store.
public struct StoreCapabilities: Sendable {
    /// Reads held versions without resources, so that a worker skips upserts that cannot change anything.
    public var versionReader: (any ObservationVersionReader)?
    /// Flips settled preliminary days to final (`storectl finalize`).
    public var finalize: (any ObservationFinalizing)?
    /// Drops whole months before a horizon (`storectl retention`).
    public var retention: (any ObservationStoreRetention)?
    /// Streams every stored Observation from one snapshot (`storectl export`).
    public var export: (any ObservationExporting)?
    /// The schema's version (SQL stores).
    public var schema: (any SchemaVersioning)?
    /// Rewrites rows of an older shape (`storectl migrate`).
    public var migrate: (any DocumentMigrating)?
    /// A trigger-maintained log of stored version updates (`storectl audit-install`, `audit-check`).
    public var audit: (any VersionAuditing)?
    /// What the store's server declares, and what the store uses that it does not (FHIR servers).
    public var server: (any ServerFeatureReporting)?
    /// Erases persons or records their consent withdrawal, in the store's erasure ledger (`storectl erase`).
    public var erasure: (any ObservationErasing)?
    /// Makes the store's compressed documents ahead of the write, off its serial path (stores that keep them).
    public var documentEncoder: StoredDocumentEncoder?

    public init(
        versionReader: (any ObservationVersionReader)? = nil, finalize: (any ObservationFinalizing)? = nil,
        retention: (any ObservationStoreRetention)? = nil, export: (any ObservationExporting)? = nil,
        schema: (any SchemaVersioning)? = nil, migrate: (any DocumentMigrating)? = nil,
        audit: (any VersionAuditing)? = nil, server: (any ServerFeatureReporting)? = nil,
        erasure: (any ObservationErasing)? = nil, documentEncoder: StoredDocumentEncoder? = nil
    ) {
        self.versionReader = versionReader
        self.finalize = finalize
        self.retention = retention
        self.export = export
        self.schema = schema
        self.migrate = migrate
        self.audit = audit
        self.server = server
        self.erasure = erasure
        self.documentEncoder = documentEncoder
    }
}
