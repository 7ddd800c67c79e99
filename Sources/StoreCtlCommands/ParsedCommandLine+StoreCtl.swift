import CommandLineOptions
import ObservationStores
import StoreCore

/// The readings every `storectl` command shares: the store and the positional arguments.
extension ParsedCommandLine {
    /// `--store LOCATION`, whose environment twin is `DVP_STORE`.
    static let storeOption = CommandLineOption.value(
        "--store", "LOCATION", environment: "DVP_STORE", help: "the store (\(StoreLocation.acceptedForms))")

    /// `--store` and the `--fhir-*` flags (authorization and TLS for a `fhir+…` store, as the worker takes them).
    static let storeOptions = [storeOption] + FHIRStoreOptions.options

    /// The store location from `--store`, else from the `DVP_STORE` environment variable.
    /// - Throws: ``UsageError`` when neither is given or the location is malformed.
    func storeLocation() throws -> StoreLocation {
        guard let text = value("--store") else {
            throw UsageError(
                option: "--store",
                "no store given: pass --store LOCATION or set DVP_STORE (\(StoreLocation.acceptedForms))")
        }
        do {
            return try StoreLocation(parsing: text)
        } catch let error as StoreError {
            throw UsageError.invalid("--store", error.message)
        }
    }

    /// Fails unless exactly `count` positional arguments were given.
    func expectPositionals(_ count: Int, _ what: String) throws {
        guard positionals.count == count else {
            throw UsageError(
                positionals.count < count ? "missing \(what)" : "unexpected argument '\(positionals[count])'")
        }
    }
}
