import Foundation

/// A throwaway certificate authority with a server certificate for 127.0.0.1 and a client certificate, made with the
/// `openssl` command (PEM files in a temporary directory, removed when released).
public final class TestCertificates: Sendable {
    public let authority: String
    public let serverCertificate: String
    public let serverKey: String
    public let clientCertificate: String
    public let clientKey: String
    private let directory: URL

    /// - Throws: ``TestSetupError`` when `openssl` fails.
    public init() async throws {
        let directory = try TestEnvironment.temporaryDirectory("dvp-certs")
        self.directory = directory
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        (authority, serverCertificate, serverKey) = (path("ca.pem"), path("server.pem"), path("server-key.pem"))
        (clientCertificate, clientKey) = (path("client.pem"), path("client-key.pem"))
        let steps: [[String]] = [
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=dvp test CA",
             "-keyout", path("ca-key.pem"), "-out", authority],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", serverKey,
             "-out", path("server.csr")],
            ["x509", "-req", "-in", path("server.csr"), "-CA", authority, "-CAkey", path("ca-key.pem"),
             "-CAcreateserial", "-days", "2", "-extfile", try Self.write("subjectAltName=IP:127.0.0.1\n", path("san.ext")),
             "-out", serverCertificate],
            ["req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=dvp-worker", "-keyout", clientKey,
             "-out", path("client.csr")],
            ["x509", "-req", "-in", path("client.csr"), "-CA", authority, "-CAkey", path("ca-key.pem"),
             "-CAcreateserial", "-days", "2", "-out", clientCertificate],
        ]
        for step in steps {
            let result = try await ChildProcess.run("/usr/bin/openssl", step)
            guard result.status == 0 else {
                throw TestSetupError("openssl \(step.prefix(2).joined(separator: " ")) failed: \(result.stderr)")
            }
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    private static func write(_ text: String, _ path: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
