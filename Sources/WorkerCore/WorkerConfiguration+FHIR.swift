import CommandLineOptions
import FHIRServerStore
import ObservationStores

extension WorkerConfiguration {
    /// The FHIR store's settings from the `--fhir-*` flags (``FHIRStoreOptions``, shared with `storectl`), each
    /// request bounded by `--store-timeout`.
    /// - Throws: `WorkerError.configuration` naming the flag that is wrong.
    static func fhirStore(_ args: ParsedCommandLine, requestTimeoutSeconds: Double) throws -> FHIRStoreConfiguration {
        do {
            return try FHIRStoreOptions.configuration(
                args, requestTimeout: .milliseconds(Int64((requestTimeoutSeconds * 1000).rounded())))
        } catch {
            throw WorkerError.configuration(error.message)
        }
    }
}
