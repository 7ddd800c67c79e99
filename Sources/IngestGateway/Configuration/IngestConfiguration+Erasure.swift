import CommandLineOptions
import StoreCore

extension IngestConfiguration {
    /// The erasure ledger the gateway refuses persons by (`--erasure-store`, docs/PRIVACY.md): the store the workers
    /// write and the key they hash patient ids with. Without it the gateway publishes their events and the workers
    /// refuse them (counted `erased`), as before.
    public struct Erasure: Sendable {
        /// The store whose ledger is read (SQLite or PostgreSQL).
        public var location: StoreLocation
        /// The workers' id key or erasure key; nil when none was given (enough while the ledger is empty).
        public var key: ErasureKey?
        /// How often the ledger's generation is read in the background (a request never waits for the store).
        public var refreshInterval: Duration = .seconds(5)

        public init(location: StoreLocation, key: ErasureKey?) {
            self.location = location
            self.key = key
        }
    }

    /// `--erasure-store` (or `--erasure-store-file`) with the key flags and `--erasure-refresh`; nil without a store.
    /// - Throws: ``IngestConfigurationError`` for a bad location or key, or a key flag without a store.
    static func erasure(_ args: ParsedCommandLine) throws -> Erasure? {
        // Checked with or without a store: a value outside the declaration is refused either way.
        let refresh = try seconds(args, "--erasure-refresh")
        guard let text = try args.storeLocationText("--erasure-store") else {
            for option in ["--id-key-file", "--erasure-key-file"] where args.given(option) != nil {
                throw IngestConfigurationError("\(option): only used with --erasure-store")
            }
            return nil
        }
        let location: StoreLocation
        do {
            location = try StoreLocation(parsing: text)
        } catch let error as StoreError {
            throw IngestConfigurationError("--erasure-store: \(error.message)")
        }
        if case .fhir = location {
            throw IngestConfigurationError("--erasure-store: the gateway reads an SQLite or PostgreSQL store's ledger")
        }
        var erasure = Erasure(location: location, key: nil)
        if let bytes = try args.erasureKeyBytes() {
            do {
                erasure.key = try ErasureKey(key: bytes)
            } catch let error as StoreError {
                throw IngestConfigurationError("the erasure key: \(error.message)")
            }
        }
        erasure.refreshInterval = refresh ?? erasure.refreshInterval
        return erasure
    }
}
