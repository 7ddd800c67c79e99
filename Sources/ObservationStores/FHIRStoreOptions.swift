import CommandLineOptions
import Essentials
import FHIRServerStore
import HTTPClient
import StoreCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `--fhir-*` flags, defined once for every executable that opens a FHIR store (the worker, `storectl`), and
/// the ``FHIRStoreConfiguration`` they make. Each flag has its `DVP_FHIR_*` environment twin.
public enum FHIRStoreOptions {
    public static let options = definitions.map { $0.withEnvironmentTwin() }

    private static let definitions: [CommandLineOption] = [
        .value(
            "--fhir-batch-size", "N",
            help: "Observations per FHIR batch Bundle, 1-500 (default 100; Azure's limit is 500)"
        ).typed(.integer(1...FHIRStoreConfiguration.maxBatchSize), default: "100"),
        .value(
            "--fhir-bundles-in-flight", "N",
            help: "FHIR Bundles one batch keeps in flight at once, 1-16 (default 4; each on its own connection)"
        ).typed(.integer(1...FHIRStoreConfiguration.maxBundlesInFlight), default: "4"),
        .value("--fhir-ca-file", "PATH", help: "PEM CA bundle to verify the FHIR server with (default: the system's)"),
        .value("--fhir-client-cert", "PATH", help: "PEM client certificate for mutual TLS (with --fhir-client-key)"),
        .value("--fhir-client-key", "PATH", help: "PEM private key of --fhir-client-cert"),
        .value("--fhir-connect-timeout", "SECONDS", help: "bound on connecting to the FHIR server (default 10)")
            .typed(.number(0.001...600), default: "10"),
        .value(
            "--fhir-token-file", "PATH",
            help: "bearer token file, re-read whenever it changes (e.g. a mounted secret)"),
        .value(
            "--fhir-token-url", "URL",
            help: """
                OAuth2 token endpoint for the client-credentials grant (with --fhir-client-id
                and --fhir-client-secret-file); tokens are cached until shortly before expiry
                """),
        .value("--fhir-client-id", "ID", help: "OAuth2 client id"),
        .value("--fhir-client-secret-file", "PATH", help: "file holding the OAuth2 client secret"),
        .value("--fhir-scope", "SCOPE", help: "OAuth2 scope, e.g. system/Observation.write"),
        .value(
            "--fhir-version-tag-system", "URI",
            help: """
                code system of the meta.tag carrying the event version (default the product's);
                fixed once data exists: a stored copy without this tag is never overwritten, its
                records are dead-lettered
                """),
    ]

    /// The FHIR store settings for `location`: from the flags for a FHIR location, else the defaults (which no other
    /// store reads). For commands that refuse a FHIR store and so do not declare the flags.
    public static func configuration(for location: StoreLocation, _ args: ParsedCommandLine) throws(UsageError)
        -> FHIRStoreConfiguration
    {
        guard case .fhir = location else { return FHIRStoreConfiguration(baseURL: "") }
        return try configuration(args)
    }


    /// The FHIR store's settings from the flags (used only when the store is a `fhir+…` URL): TLS files, timeouts,
    /// batch size, and a bearer token file or an OAuth2 client-credentials grant. `requestTimeout` bounds each
    /// request (nil: the HTTP client's default).
    /// - Throws: ``UsageError`` naming the flag that is wrong.
    public static func configuration(_ args: ParsedCommandLine, requestTimeout: Duration? = nil) throws(UsageError)
        -> FHIRStoreConfiguration
    {
        func value(_ flag: String) -> String? { args.value("--" + flag) }
        var fhir = FHIRStoreConfiguration(baseURL: "")
        fhir.batchSize = try args.declaredInteger("--fhir-batch-size") ?? fhir.batchSize
        fhir.bundlesInFlight = try args.declaredInteger("--fhir-bundles-in-flight") ?? fhir.bundlesInFlight
        fhir.http.caBundlePath = try readableFile(value("fhir-ca-file"), flag: "fhir-ca-file")
        fhir.http.clientCertificatePath = try readableFile(value("fhir-client-cert"), flag: "fhir-client-cert")
        fhir.http.clientKeyPath = try readableFile(value("fhir-client-key"), flag: "fhir-client-key")
        if (fhir.http.clientCertificatePath == nil) != (fhir.http.clientKeyPath == nil) {
            throw UsageError(
                option: "--fhir-client-cert", "--fhir-client-cert and --fhir-client-key go together (mutual TLS)")
        }
        if let requestTimeout { fhir.http.requestTimeout = requestTimeout }
        if let seconds = try args.number("--fhir-connect-timeout", in: 0.001...600) {
            fhir.http.connectTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        if let v = value("fhir-version-tag-system") { fhir.versionTagSystem = v }
        let tokenFile = try readableFile(value("fhir-token-file"), flag: "fhir-token-file")
        if let tokenURL = value("fhir-token-url") {
            guard tokenFile == nil else {
                throw UsageError(
                    option: "--fhir-token-url", "--fhir-token-file and --fhir-token-url exclude each other")
            }
            guard !Redaction.carriesUserInfo(tokenURL) else {
                throw UsageError(
                    option: "--fhir-token-url",
                    "--fhir-token-url must not carry credentials (user@ or user:password@): the client id and "
                        + "secret go in --fhir-client-id and --fhir-client-secret-file")
            }
            guard let clientID = value("fhir-client-id"), let secretFile = value("fhir-client-secret-file"),
                let secret = FileManager.default.contents(atPath: secretFile)
            else {
                throw UsageError(
                    option: "--fhir-token-url",
                    "--fhir-token-url needs --fhir-client-id and a readable --fhir-client-secret-file")
            }
            fhir.authorization = .clientCredentials(
                OAuth2ClientCredentials(
                    tokenURL: tokenURL, clientID: clientID,
                    clientSecret: String(decoding: secret, as: UTF8.self).trimmingWhitespace(),
                    scope: value("fhir-scope")))
        } else if let tokenFile {
            fhir.authorization = .bearerTokenFile(path: tokenFile)
        }
        return fhir
    }

    private static func readableFile(_ path: String?, flag: String) throws(UsageError) -> String? {
        guard let path else { return nil }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw UsageError.invalid("--" + flag, "'\(path)' is missing or unreadable")
        }
        return path
    }
}
