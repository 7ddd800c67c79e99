/// What a re-read of a changed credential file found, for the caller's log line and counters.
public enum CredentialReload: Sendable, Equatable {
    /// The file was re-read and its `entries` (API keys, or the JWKS's usable keys) are in use from now on.
    case loaded(path: String, entries: Int)
    /// The file changed but cannot be used; the last good content stays in use until it changes again.
    case failed(CredentialFileError)
}
