import Essentials
import Foundation
import Hashing
import TestSupport

/// A key pair made with the `openssl` command: the private key's PEM file for `openssl dgst -sign`, and the public
/// half as a JWK whose members come from openssl's own output (`-modulus`, `-text_pub`, the DER public key).
struct TestKeyPair: Sendable {
    enum Kind: Sendable { case rsa, p256 }

    let kind: Kind
    let kid: String
    let privateKeyPath: String
    /// The public key as PEM (what an HS256 confusion attack would use as the HMAC key).
    let publicKeyPEM: String
    /// The JWK's members (`kty`, `kid`, `n`/`e` or `crv`/`x`/`y`).
    let jwk: [String: String]

    /// The JOSE algorithm this key signs with.
    var algorithm: String { kind == .rsa ? "RS256" : "ES256" }

    static func generate(_ kind: Kind, kid: String, rsaBits: Int = 2048, in directory: URL) async throws
        -> TestKeyPair
    {
        let path = directory.appendingPathComponent("\(kid).pem").path
        let publicPath = directory.appendingPathComponent("\(kid)-public.pem").path
        switch kind {
        case .rsa:
            try await OpenSSL.run([
                "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(rsaBits)", "-out", path,
            ])
        case .p256:
            try await OpenSSL.run(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path])
        }
        try await OpenSSL.run(["pkey", "-in", path, "-pubout", "-out", publicPath])
        let jwk = kind == .rsa ? try await rsaMembers(path) : try await p256Members(path, in: directory, kid: kid)
        return TestKeyPair(
            kind: kind, kid: kid, privateKeyPath: path,
            publicKeyPEM: try String(contentsOfFile: publicPath, encoding: .utf8),
            jwk: jwk.merging(["kid": kid]) { $1 })
    }

    /// The signature of `input` in JOSE's form: RSA's as openssl writes it, P-256's converted from DER to `r ‖ s`.
    func sign(_ input: [UInt8], in directory: URL) async throws -> [UInt8] {
        let name = UUID().uuidString
        let inputURL = directory.appendingPathComponent("\(name).in")
        let signatureURL = directory.appendingPathComponent("\(name).sig")
        defer {
            try? FileManager.default.removeItem(at: inputURL)
            try? FileManager.default.removeItem(at: signatureURL)
        }
        try Data(input).write(to: inputURL)
        try await OpenSSL.run(["dgst", "-sha256", "-sign", privateKeyPath, "-out", signatureURL.path, inputURL.path])
        let signature = [UInt8](try Data(contentsOf: signatureURL))
        return kind == .rsa ? signature : try DERSignature.joseP256(fromDER: signature)
    }

    // MARK: - Public members from openssl's output

    private static func rsaMembers(_ path: String) async throws -> [String: String] {
        let modulusLine = try await OpenSSL.run(["rsa", "-in", path, "-noout", "-modulus"])
        guard let modulusHex = modulusLine.split(separator: "=").last?.trimmingCharacters(in: .whitespacesAndNewlines),
            let modulus = Hex.bytes(modulusHex)
        else { throw TestSetupError("openssl rsa -modulus printed no modulus") }
        let text = try await OpenSSL.run(["pkey", "-in", path, "-noout", "-text_pub"])
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Exponent:") }),
            let exponent = line.split(separator: " ").dropFirst().first.flatMap({ UInt64($0) })
        else { throw TestSetupError("openssl pkey -text_pub printed no exponent") }
        var exponentBytes = withUnsafeBytes(of: exponent.bigEndian) { Array($0) }
        while exponentBytes.first == 0 { exponentBytes.removeFirst() }
        return ["kty": "RSA", "n": Base64URL.encode(modulus), "e": Base64URL.encode(exponentBytes)]
    }

    private static func p256Members(_ path: String, in directory: URL, kid: String) async throws -> [String: String] {
        let derPath = directory.appendingPathComponent("\(kid)-public.der").path
        try await OpenSSL.run(["pkey", "-in", path, "-pubout", "-outform", "DER", "-out", derPath])
        // A P-256 SubjectPublicKeyInfo ends with the uncompressed point: 0x04, x (32 bytes), y (32 bytes).
        let point = [UInt8](try Data(contentsOf: URL(fileURLWithPath: derPath))).suffix(65)
        guard point.count == 65, point.first == 0x04 else { throw TestSetupError("no uncompressed P-256 point") }
        return [
            "kty": "EC", "crv": "P-256", "x": Base64URL.encode(point.dropFirst().prefix(32)),
            "y": Base64URL.encode(point.suffix(32)),
        ]
    }
}
