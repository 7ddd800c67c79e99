import Hashing

/// API keys from a file of their SHA-256 hashes, each with the scope it grants; re-read when the file changes.
///
/// The file's format is one key per line (`#` comments and blank lines ignored):
///
///     sha256:<64 hex digits>  tenant=<tenant>  patients=<patient-id prefix>
///     sha256:<64 hex digits>  tenant=<tenant>  patients=*  access=all-patients
///
/// The file is checked as a whole, at start and on every re-read: a hash on one line only, and no two tenants whose
/// patient prefixes overlap (one starts the other); `patients=*` (every patient) only marked `access=all-patients`.
///
/// An operator makes a key and its line with, e.g.:
///
///     KEY=$(openssl rand -hex 32)
///     printf 'sha256:%s  tenant=clinic-a  patients=ca-\n' "$(printf %s "$KEY" | sha256sum | cut -d' ' -f1)"
///
/// A presented key is hashed and compared with every hash in the file in constant time. Keys are opaque: any token
/// that is not shaped like a JWT (three dot-separated parts) is this verifier's to decide. The file is checked at
/// most once per `checkInterval` and re-read when its inode, size or times changed (replace it with `mv` for an
/// atomic switch); a re-read that fails keeps the keys in use and is reported (``lastReloadError``, `onReload`). A
/// file without a key is refused like a malformed one, at start and on a re-read.
public final class APIKeyFile: BearerTokenVerifier {
    private let file: ReloadingFile<APIKeyTable>

    /// Reads the key file.
    /// - Parameters:
    ///   - path: the file, in the format above.
    ///   - checkInterval: how often at most a request stats the file to see whether it changed.
    ///   - onReload: told of every re-read after start (keys loaded, or why the file was refused); called on the
    ///     request's thread after the new keys are in place, so it should only log or count.
    /// - Throws: ``CredentialFileError`` naming the file and, when malformed, the line (never its text); `malformed`
    ///   for a file that holds no key; `conflicting` naming both lines for a hash twice or overlapping tenants.
    public init(
        path: String, checkInterval: Duration = .seconds(1),
        onReload: (@Sendable (CredentialReload) -> Void)? = nil
    ) throws(CredentialFileError) {
        file = try ReloadingFile(path: path, checkInterval: checkInterval, onReload: onReload) {
            (bytes, path) throws(CredentialFileError) in try APIKeyTable(parsing: bytes, path: path)
        }
    }

    /// The file's path.
    public var path: String { file.path }

    /// How many keys are in use.
    public var keyCount: Int { file.current().entryCount }

    /// Why the last re-read was refused (the previous keys stay in use); nil once one succeeded.
    public var lastReloadError: CredentialFileError? { file.lastError }

    /// Re-reads the file now if it changed, without waiting for the next check; nil when it did not change.
    @discardableResult
    public func reloadIfChanged() -> CredentialReload? { file.reloadIfChanged() }

    /// The scope of the key `token`.
    /// - Throws: ``AuthenticationFailure`` (`invalid`) when no key in the file has its hash.
    public func verify(_ token: String) throws(AuthenticationFailure) -> IngestScope {
        let keys = file.current()
        guard let scope = keys.scope(ofDigest: SHA256.digest(Array(token.utf8))) else {
            throw AuthenticationFailure(.invalid, "the bearer token is not a known API key")
        }
        return scope
    }

    /// True for every token that is not shaped like a JWT.
    public func recognizes(_ token: String) -> Bool { !CompactJWS.hasShape(token) }
}
