import Dispatch
import Essentials
import Synchronization

/// What a credential file parses into; it says how many entries it holds (``CredentialReload/loaded(path:entries:)``).
protocol CredentialFileContent: Sendable {
    var entryCount: Int { get }
}

/// A credential file's parsed content, re-read when the file changes: the one reloading mechanism of the API key file
/// and the JWKS.
///
/// The hot path (``current()``) is an atomic load of the next check's time and a short lock to copy the content's
/// reference. At most once per `checkInterval` the one request that advances the check time (a compare-and-exchange)
/// stats the file; only when its stamp changed does that request read and parse it. Other requests never wait for
/// the file: they keep using the content in place until the new one is installed. A file that fails to read or parse
/// leaves the last good content in use, is reported once through `onReload` and ``lastError``, and is tried again
/// when its stamp changes.
final class ReloadingFile<Content: CredentialFileContent>: Sendable {
    typealias Parse = @Sendable (_ bytes: [UInt8], _ path: String) throws(CredentialFileError) -> Content

    let path: String
    private let checkInterval: UInt64
    private let parse: Parse
    private let onReload: (@Sendable (CredentialReload) -> Void)?
    private let loaded: Mutex<Loaded>
    /// When the next stat is due, in `DispatchTime` uptime nanoseconds.
    private let nextCheck: Atomic<UInt64>
    /// The stamp of the file the content (or the last failure) came from; held while a reload reads and parses, so
    /// two reloads never install out of order. Never taken by readers.
    private let reloading: Mutex<FileStamp?>

    private struct Loaded {
        var content: Content
        var lastError: CredentialFileError?
    }

    /// Reads and parses `path` once.
    /// - Throws: ``CredentialFileError`` when the file cannot be read or parsed: a start-up configuration error.
    init(
        path: String, checkInterval: Duration, onReload: (@Sendable (CredentialReload) -> Void)?,
        parse: @escaping Parse
    ) throws(CredentialFileError) {
        let (bytes, stamp) = try CredentialFileReader.contents(of: path)
        let content = try parse(bytes, path)
        self.path = path
        self.checkInterval = UInt64(max(checkInterval.nanoseconds, 0))
        self.parse = parse
        self.onReload = onReload
        loaded = Mutex(Loaded(content: content))
        reloading = Mutex(stamp)
        nextCheck = Atomic(DispatchTime.now().uptimeNanoseconds &+ self.checkInterval)
    }

    /// The content in use, after re-reading the file if its check is due and it changed.
    func current() -> Content {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = nextCheck.load(ordering: .relaxed)
        if now >= due,
            nextCheck.compareExchange(expected: due, desired: now &+ checkInterval, ordering: .relaxed).exchanged
        {
            reloadIfChanged()
        }
        return loaded.withLock { $0.content }
    }

    /// Why the last re-read failed; nil once a re-read succeeded (and before any failed).
    var lastError: CredentialFileError? { loaded.withLock { $0.lastError } }

    /// Re-reads the file now if its stamp changed since it was last read; nil when it did not change.
    @discardableResult
    func reloadIfChanged() -> CredentialReload? {
        let event = reloading.withLock { seen -> CredentialReload? in
            let stamp = FileStamp(path: path)
            guard stamp != seen else { return nil }
            do throws(CredentialFileError) {
                let (bytes, readStamp) = try CredentialFileReader.contents(of: path)
                let content = try parse(bytes, path)
                seen = readStamp
                loaded.withLock { $0 = Loaded(content: content) }
                return .loaded(path: path, entries: content.entryCount)
            } catch {
                seen = stamp
                loaded.withLock { $0.lastError = error }
                return .failed(error)
            }
        }
        if let event { onReload?(event) }
        return event
    }
}
