import Foundation
import HTTPClient

/// The in-memory FHIR double (`Tests/TestTools/fhir_double.py`, standard-library Python) on a free 127.0.0.1
/// port, with switchable quirks for what a real server cannot be made to show on demand. Stopped when released.
public final class FHIRDouble: Sendable {
    /// The FHIR base URL, e.g. `http://127.0.0.1:40123/fhir`.
    public let baseURL: String
    /// The server root (for `/_control` and `/_stats`).
    public let rootURL: String
    private let process: ChildProcess
    private let directory: URL
    private let http: HTTPClient

    /// Starts the double.
    /// - Parameters:
    ///   - patients: Patient ids that exist (for the referential-integrity quirk).
    ///   - tls: serve https with these files (``TestCertificates``); `requireClientCertificate` for mutual TLS.
    /// - Throws: ``TestSetupError`` when it does not come up.
    public init(patients: [String] = [], tls: TestCertificates? = nil, requireClientCertificate: Bool = false)
        async throws
    {
        directory = try TestEnvironment.temporaryDirectory("dvp-fhir-double")
        let portFile = directory.appendingPathComponent("port")
        let script = TestEnvironment.root.appendingPathComponent("Tests/TestTools/fhir_double.py").path
        var arguments = ["python3", script, "--port-file", portFile.path, "--patients", patients.joined(separator: ",")]
        if let tls {
            arguments += ["--tls-cert", tls.serverCertificate, "--tls-key", tls.serverKey]
            if requireClientCertificate { arguments += ["--client-ca", tls.authority] }
        }
        process = try ChildProcess("/usr/bin/env", arguments, directory: directory, name: "fhir-double")
        let deadline = ContinuousClock.now + .seconds(60)  // a start that fails ends the wait at once (isRunning)
        var port: Int?
        while port == nil, ContinuousClock.now < deadline, process.isRunning {
            port = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let port else {
            process.terminate()
            throw TestSetupError("the FHIR double did not start: \(process.stderr.suffix(2000))")
        }
        rootURL = (tls == nil ? "http" : "https") + "://127.0.0.1:\(port)"
        baseURL = rootURL + "/fhir"
        var control = HTTPClientConfiguration()
        control.caBundlePath = tls?.authority
        control.clientCertificatePath = tls?.clientCertificate
        control.clientKeyPath = tls?.clientKey
        http = try HTTPClient(control)
    }

    deinit {
        process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Switches quirks, e.g. `["conflict_status": 409, "throttle": 3]` (see the script's `QUIRKS`).
    public func set(_ quirks: [String: Any]) async throws {
        let body = try JSONSerialization.data(withJSONObject: quirks)
        let response = try await http.send(
            HTTPRequest(
                method: "POST", url: rootURL + "/_control", headers: [("Content-Type", "application/json")],
                body: Array(body)))
        guard response.status == 200 else { throw TestSetupError("FHIR double /_control: \(response.status)") }
    }

    /// The double's counters: requests, throttled, failed, puts, conflicts, bundles, stored.
    public func stats() async throws -> [String: Int] {
        let response = try await http.send(HTTPRequest(method: "GET", url: rootURL + "/_stats"))
        return try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Int] ?? [:]
    }
}
