/// A store that can log every update of a stored version (`storectl audit-install`, `audit-check`).
public protocol VersionAuditing: Sendable {
    /// Installs (idempotently) a trigger that logs every update of a stored version into `version_audit`.
    func installVersionAudit() async throws

    /// What the `version_audit` trigger has logged so far.
    /// - Throws: ``StoreError`` with code `usage` when the audit was never installed.
    func versionAudit() async throws -> VersionAuditSummary
}

/// Totals of the `version_audit` log.
public struct VersionAuditSummary: Sendable, Hashable {
    /// Version updates logged.
    public var updates: Int64
    /// Updates whose new version was lower than the old one (must always be 0).
    public var decreases: Int64

    public init(updates: Int64, decreases: Int64) {
        self.updates = updates
        self.decreases = decreases
    }
}
