import Foundation
import IngestAuth
import Testing

/// The JOSE header's `typ`: absent, or a JWT's type (RFC 7519 §5.1, RFC 9068 §2.1) in any case; any other type is a
/// token of another protocol signed by the same keys and is refused, whatever its claims.
@Suite struct JWTTypeTests: JWTVerifierSuite {
    let directory: CredentialDirectory
    let keys: TestKeys
    let verifier: JWTVerifier

    init() async throws { (directory, keys, verifier) = try await Self.makeVerifier() }

    /// A token of the valid claims, signed by the RSA key, whose header has `typ` (none when nil).
    private func token(typ: Any?) async throws -> String {
        var header = TestTokens.header(keys.rsa)
        header["typ"] = typ
        return try await TestTokens.token(keys.rsa, header: header, in: directory.url)
    }

    @Test(arguments: [
        "JWT", "jwt", "Jwt", "at+jwt", "AT+JWT", "application/jwt", "application/at+jwt", "Application/AT+JWT",
    ])
    func acceptsTheTypesOfAJWT(typ: String) async throws {
        #expect(try verifier.verify(try await token(typ: typ)) == IngestScope(tenant: "clinic-a", patientPrefix: "ca-"))
    }

    @Test func acceptsAHeaderWithoutTyp() async throws {
        #expect(try verifier.verify(try await token(typ: nil)).tenant == "clinic-a")
    }

    @Test(arguments: [
        "JOSE", "JOSE+JSON", "logout+jwt", "dpop+jwt", "secevent+jwt", "application/json", "JWT ", " jwt", "jwt+at",
        "application/", "", "\u{FF2A}\u{FF37}\u{FF34}",
    ])
    func refusesAnotherType(typ: String) async throws {
        let failure = try #require(refusal(try await token(typ: typ)))
        #expect(
            failure
                == AuthenticationFailure(
                    .invalid,
                    "the JWT header's typ is not a JWT type (JWT, at+jwt, application/jwt, application/at+jwt)"))
    }

    @Test func refusesATypThatIsNotAString() async throws {
        for typ: Any in [1, ["JWT"], true] {
            #expect(
                refusal(try await token(typ: typ))
                    == AuthenticationFailure(.invalid, "the JWT header's typ is not a string"))
        }
    }

    @Test func theRefusalNamesTheMemberNeverItsValue() async throws {
        let failure = try #require(refusal(try await token(typ: "secret-marker+jwt")))
        #expect(failure.message.contains("typ"))
        #expect(!failure.description.contains("secret-marker"))
    }
}
