import CommandLineOptions
import Foundation
import HTTPClient
import ObservationUpsert

extension WorkerConfiguration {
    /// The FHIR store's settings from the `--fhir-*` flags (used only when `--store` is a `fhir+…` URL): TLS files,
    /// timeouts, batch size, and a bearer token file or an OAuth2 client-credentials grant.
    /// - Throws: `WorkerError.configuration` naming the flag that is wrong.
    static func fhirStore(_ args: ParsedCommandLine, requestTimeoutSeconds: Double) throws -> FHIRStoreConfiguration {
        func value(_ flag: String) -> String? { args.value("--" + flag) }
        var fhir = FHIRStoreConfiguration(baseURL: "")
        fhir.batchSize = try integer(
            args, "--fhir-batch-size", default: 100, range: 1...FHIRStoreConfiguration.maxBatchSize)
        fhir.http.caBundlePath = try readableFile(value("fhir-ca-file"), flag: "fhir-ca-file")
        fhir.http.clientCertificatePath = try readableFile(value("fhir-client-cert"), flag: "fhir-client-cert")
        fhir.http.clientKeyPath = try readableFile(value("fhir-client-key"), flag: "fhir-client-key")
        if (fhir.http.clientCertificatePath == nil) != (fhir.http.clientKeyPath == nil) {
            throw WorkerError.configuration("--fhir-client-cert and --fhir-client-key go together (mutual TLS)")
        }
        fhir.http.requestTimeout = .milliseconds(Int64((requestTimeoutSeconds * 1000).rounded()))
        if let v = value("fhir-connect-timeout") {
            guard let seconds = Double(v), seconds > 0, seconds <= 600 else {
                throw WorkerError.configuration("--fhir-connect-timeout: '\(v)' is not a number of seconds in (0, 600]")
            }
            fhir.http.connectTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        if let v = value("fhir-version-tag-system") { fhir.versionTagSystem = v }
        let tokenFile = try readableFile(value("fhir-token-file"), flag: "fhir-token-file")
        if let tokenURL = value("fhir-token-url") {
            guard tokenFile == nil else {
                throw WorkerError.configuration("--fhir-token-file and --fhir-token-url exclude each other")
            }
            guard let clientID = value("fhir-client-id"), let secretFile = value("fhir-client-secret-file"),
                let secret = FileManager.default.contents(atPath: secretFile)
            else {
                throw WorkerError.configuration(
                    "--fhir-token-url needs --fhir-client-id and a readable --fhir-client-secret-file")
            }
            fhir.authorization = .clientCredentials(
                OAuth2ClientCredentials(
                    tokenURL: tokenURL, clientID: clientID,
                    clientSecret: String(decoding: secret, as: UTF8.self).trimmingCharacters(
                        in: .whitespacesAndNewlines),
                    scope: value("fhir-scope")))
        } else if let tokenFile {
            fhir.authorization = .bearerTokenFile(path: tokenFile)
        }
        return fhir
    }

    private static func readableFile(_ path: String?, flag: String) throws -> String? {
        guard let path else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw WorkerError.configuration("--\(flag): '\(path)' is missing or unreadable")
        }
        return path
    }
}
