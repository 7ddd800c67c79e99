import Foundation
import TestSupport

/// Real credentials for the `ingest` process, made the way an operator or an identity provider makes them: API-key
/// file lines with `sha256sum`'s digest, and an RS256 key pair from `openssl` with its JWKS and tokens signed by
/// `openssl dgst`.
enum TestCredentials {
    /// One line of an API-key file for `key` (`sha256:<hex>  tenant=…  patients=…`).
    static func apiKeyLine(_ key: String, tenant: String, patients: String) async throws -> String {
        let digest = try await shell("printf %s '\(key)' | sha256sum | cut -d' ' -f1")
        return "sha256:\(digest)  tenant=\(tenant)  patients=\(patients)\n"
    }

    /// An RS256 signing key in `directory`: its JWKS file and a signer of claim sets.
    struct Signer: Sendable {
        let directory: URL
        let kid: String

        var keyPath: String { directory.appendingPathComponent("\(kid).pem").path }

        /// A compact JWS of `claims`.
        func token(_ claims: [String: Any]) async throws -> String {
            let header = try TestCredentials.part(["alg": "RS256", "kid": kid, "typ": "JWT"])
            let input = header + "." + (try TestCredentials.part(claims))
            let inputFile = directory.appendingPathComponent("jws-\(UUID().uuidString).txt")
            try Data(input.utf8).write(to: inputFile)
            let signature = try await ChildProcess.run(
                "/usr/bin/openssl", ["dgst", "-sha256", "-sign", keyPath, inputFile.path])
            guard signature.status == 0 else { throw TestSetupError("openssl dgst failed: \(signature.stderr)") }
            return input + "." + TestCredentials.base64URL(signature.stdoutData)
        }
    }

    /// Makes a 2048-bit RSA key and writes `jwks.json` beside it.
    static func rsaSigner(in directory: URL, kid: String = "gw-test-1") async throws -> (signer: Signer, jwks: URL) {
        let signer = Signer(directory: directory, kid: kid)
        _ = try await shell(
            "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out '\(signer.keyPath)' 2>/dev/null")
        let modulus = try await shell("openssl rsa -in '\(signer.keyPath)' -noout -modulus")
        let hex = Array(modulus.dropFirst("Modulus=".count).utf8)
        var bytes = [UInt8]()
        for index in stride(from: 0, to: hex.count - 1, by: 2) {
            bytes.append(UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) ?? 0)
        }
        let jwk: [String: Any] = [
            "kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig", "n": base64URL(Data(bytes)), "e": "AQAB",
        ]
        let jwks = directory.appendingPathComponent("jwks.json")
        try JSONSerialization.data(withJSONObject: ["keys": [jwk]]).write(to: jwks)
        return (signer, jwks)
    }

    /// The claims a gateway with `audience`/`issuer` accepts, for `patients` of `tenant`, expiring in `expiresIn`.
    static func claims(
        audience: String, issuer: String, tenant: String, patients: String, expiresIn: TimeInterval = 600
    ) -> [String: Any] {
        let now = Int(Date().timeIntervalSince1970)
        return [
            "iss": issuer, "aud": audience, "sub": "backend-1", "scope": "daily-values:write", "iat": now,
            "exp": now + Int(expiresIn), "dvp_tenant": tenant, "dvp_patient_prefix": patients,
        ]
    }

    static func part(_ object: [String: Any]) throws -> String {
        base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func shell(_ command: String) async throws -> String {
        let result = try await runCommand("/bin/sh", ["-c", command])
        guard result.status == 0 else { throw TestSetupError("\(command) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
