import Essentials
import Foundation
import Hashing
import IngestAuth
import Testing

/// Tokens that must be refused before their claims count: algorithm confusion, key selection, signatures, and
/// tokens that are not well-formed compact JWS.
@Suite struct JWTRefusalTests: JWTVerifierSuite {
    let directory: CredentialDirectory
    let keys: TestKeys
    let verifier: JWTVerifier

    init() async throws { (directory, keys, verifier) = try await Self.makeVerifier() }

    @Test func refusesAlgNone() throws {
        let unsigned =
            try TestTokens.part(["alg": "none", "typ": "JWT"]) + "." + TestTokens.part(TestTokens.validClaims())
        for token in [unsigned + ".", unsigned + "." + Base64URL.encode(Array("x".utf8))] {
            #expect(
                refusal(token)
                    == AuthenticationFailure(
                        .invalid, "the JWT header names alg none; only RS256 and ES256 are accepted"))
        }
    }

    @Test func refusesHS256WithThePublicKeyAsTheSecret() throws {
        // Algorithm confusion: a verifier that took the JWK's key bytes as an HMAC secret would accept this token.
        for header in [["alg": "HS256", "kid": keys.rsa.kid], ["alg": "HS256"]] {
            let input = try TestTokens.part(header) + "." + TestTokens.part(TestTokens.validClaims())
            let mac = HMACSHA256(key: Array(keys.rsa.publicKeyPEM.utf8))
            let token = input + "." + Base64URL.encode(Array(input.utf8).withUnsafeBytes { mac.mac($0) })
            #expect(refusal(token)?.message == "the JWT header names alg HS256; only RS256 and ES256 are accepted")
        }
    }

    @Test func refusesAnRS256HeaderNamingAnECKey() async throws {
        // Signed by the RSA key, yet naming the EC key: the key's type decides, never the header's alg alone.
        let token = try await TestTokens.token(
            keys.rsa, header: ["alg": "RS256", "kid": keys.p256.kid], in: directory.url)
        #expect(
            refusal(token)
                == AuthenticationFailure(.invalid, "the JWT's kid names a key for ES256 but its alg is RS256"))
        let converse = try await TestTokens.token(
            keys.p256, header: ["alg": "ES256", "kid": keys.rsa.kid], in: directory.url)
        #expect(refusal(converse)?.code == .invalid)
    }

    @Test func refusesAnUnknownKid() async throws {
        let token = try await TestTokens.token(keys.rsa2, in: directory.url)
        #expect(refusal(token) == AuthenticationFailure(.invalid, "no key of the JWKS has the JWT's kid"))
    }

    @Test func withoutAKidUsesTheOneKeyOfTheAlgorithm() async throws {
        let token = try await TestTokens.token(keys.p256, header: ["alg": "ES256"], in: directory.url)
        #expect(try verifier.verify(token).tenant == "clinic-a")
        // Two RSA keys: without a kid the token cannot say which one, so it is refused even though one verifies.
        let two = try directory.writeJWKS("two.json", [keys.rsa, keys.rsa2])
        let ambiguous = try JWTVerifier(jwksPath: two, policy: TestTokens.policy)
        let rsa = try await TestTokens.token(keys.rsa, header: ["alg": "RS256"], in: directory.url)
        #expect(throws: AuthenticationFailure(.invalid, "the JWT has no kid and 2 keys of the JWKS are for RS256")) {
            try ambiguous.verify(rsa)
        }
    }

    @Test func refusesATamperedPayload() async throws {
        let token = try await TestTokens.token(keys.rsa, in: directory.url)
        let parts = token.split(separator: ".")
        let widened = try TestTokens.part(TestTokens.claims(["dvp_patient_prefix": "*"]))
        let tampered = "\(parts[0]).\(widened).\(parts[2])"
        #expect(refusal(tampered) == AuthenticationFailure(.invalid, "the JWT's signature does not verify"))
    }

    @Test(arguments: [TestKeyPair.Kind.rsa, .p256])
    func refusesABadSignature(kind: TestKeyPair.Kind) async throws {
        let key = kind == .rsa ? keys.rsa : keys.p256
        let token = try await TestTokens.token(key, in: directory.url)
        let parts = token.split(separator: ".")
        var signature = try #require(Base64URL.decode(parts[2]))
        #expect(try verifier.verify(token).tenant == "clinic-a")
        signature[signature.count / 2] ^= 0x01
        #expect(
            refusal("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature))")?.message
                == "the JWT's signature does not verify")
        // Truncated, or (ES256) openssl's DER form instead of JOSE's r ‖ s.
        #expect(refusal("\(parts[0]).\(parts[1]).\(Base64URL.encode(signature.prefix(40)))")?.code == .invalid)
        #expect(refusal("\(parts[0]).\(parts[1]).")?.code == .invalid)
    }

    @Test func refusesAnES256SignatureInDERForm() async throws {
        let input = try TestTokens.part(TestTokens.header(keys.p256)) + "." + TestTokens.part(TestTokens.validClaims())
        let url = directory.url.appendingPathComponent("input")
        try Data(input.utf8).write(to: url)
        try await OpenSSL.run([
            "dgst", "-sha256", "-sign", keys.p256.privateKeyPath, "-out", url.path + ".sig", url.path,
        ])
        let der = [UInt8](try Data(contentsOf: URL(fileURLWithPath: url.path + ".sig")))
        #expect(refusal(input + "." + Base64URL.encode(der))?.message == "the JWT's signature does not verify")
        #expect(
            try verifier.verify(input + "." + Base64URL.encode(DERSignature.joseP256(fromDER: der))).tenant
                == "clinic-a")
    }

    @Test func refusesMalformedTokens() throws {
        let header = try TestTokens.part(TestTokens.header(keys.rsa))
        let claims = try TestTokens.part(TestTokens.validClaims())
        let cases: [(String, String)] = [
            ("\(header).\(claims)", "the JWT does not have three dot-separated parts"),
            ("\(header).\(claims).a.b", "the JWT does not have three dot-separated parts"),
            ("\(header).\(claims)$.c2ln", "the JWT's payload is not unpadded base64url"),
            ("\(header)=.\(claims).c2ln", "the JWT's header is not unpadded base64url"),
            ("\(header).\(claims).c2ln+", "the JWT's signature is not unpadded base64url"),
            ("\(Base64URL.encode(Array("not json".utf8))).\(claims).c2ln", "the JWT's header is not a JSON object"),
            ("\(Base64URL.encode(Array("[1,2]".utf8))).\(claims).c2ln", "the JWT's header is not a JSON object"),
            (".\(claims).c2ln", "the JWT's header is not a JSON object"),
            ("\(try TestTokens.part(["kid": keys.rsa.kid])).\(claims).c2ln", "the JWT header has no alg string"),
            (String(repeating: "a", count: 17_000) + ".b.c", "the JWT is longer than 16384 bytes"),
        ]
        for (token, message) in cases {
            #expect(refusal(token) == AuthenticationFailure(.invalid, message), "\(message)")
        }
    }

    @Test func refusesAPayloadThatIsNotJSONEvenWhenSigned() async throws {
        let input = try TestTokens.part(TestTokens.header(keys.rsa)) + "." + Base64URL.encode(Array("exp=1".utf8))
        let token = input + "." + Base64URL.encode(try await keys.rsa.sign(Array(input.utf8), in: directory.url))
        #expect(refusal(token) == AuthenticationFailure(.invalid, "the JWT's payload is not a JSON object"))
    }

    @Test func refusesAMemberWrittenTwice() async throws {
        // Two readers of such a token could see different claims (the first exp or the last); it is refused instead.
        let header = #"{"alg":"RS256","kid":"\#(keys.rsa.kid)","alg":"none"}"#
        let claims = try TestTokens.part(TestTokens.validClaims())
        #expect(
            refusal("\(Base64URL.encode(Array(header.utf8))).\(claims).c2ln")
                == AuthenticationFailure(.invalid, "the JWT's header has a member twice"))
        let payload = String(
            decoding: try JSONSerialization.data(withJSONObject: TestTokens.validClaims()), as: UTF8.self)
        let twice = String(payload.dropLast()) + #","exp":\#(TestTokens.now + 86_400)}"#
        let input = try TestTokens.part(TestTokens.header(keys.rsa)) + "." + Base64URL.encode(Array(twice.utf8))
        let token = input + "." + Base64URL.encode(try await keys.rsa.sign(Array(input.utf8), in: directory.url))
        #expect(refusal(token) == AuthenticationFailure(.invalid, "the JWT's payload has a member twice"))
    }

    @Test func refusesCriticalHeaderExtensions() async throws {
        let header: [String: Any] = ["alg": "RS256", "kid": keys.rsa.kid, "b64": false, "crit": ["b64"]]
        let token = try await TestTokens.token(keys.rsa, header: header, in: directory.url)
        #expect(refusal(token)?.message == "the JWT header has crit extensions, which are not supported")
    }

    @Test func noRefusalEchoesTheToken() async throws {
        let token = try await TestTokens.token(keys.rsa, claims: TestTokens.claims(["aud": "x"]), in: directory.url)
        let failure = try #require(refusal(token))
        for part in token.split(separator: ".") { #expect(!failure.description.contains(part)) }
    }
}
