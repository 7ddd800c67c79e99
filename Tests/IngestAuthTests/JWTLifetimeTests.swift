import Foundation
import IngestAuth
import Testing

/// `iat` (a number, not in the future beyond the leeway) and the longest a token may be valid (`JWTPolicy.maxLifetime`,
/// a day by default): `exp - iat`, `exp - nbf` without `iat`, `exp - now` without either.
@Suite struct JWTLifetimeTests: JWTVerifierSuite {
    let directory: CredentialDirectory
    let keys: TestKeys
    let verifier: JWTVerifier

    init() async throws { (directory, keys, verifier) = try await Self.makeVerifier() }

    private static let day = 86_400

    private func token(_ changes: [String: Any?]) async throws -> String {
        try await TestTokens.token(keys.p256, claims: TestTokens.claims(changes), in: directory.url)
    }

    private static func tooLong(_ seconds: Int, _ since: String) -> AuthenticationFailure {
        AuthenticationFailure(.invalid, "the JWT's exp is more than \(seconds) s (the maximum lifetime) \(since)")
    }

    // MARK: - iat

    @Test func refusesATokenIssuedInTheFutureBeyondTheLeeway() async throws {
        let now = TestTokens.now
        let failure = try #require(refusal(try await token(["iat": now + 600, "nbf": nil, "exp": now + 900])))
        #expect(failure.code == .invalid)
        #expect(failure.message.hasPrefix("the JWT was issued ") && failure.message.hasSuffix(" s in the future (iat)"))
        // 30 s ahead is inside the default 60 s leeway (a clock a little ahead of ours).
        #expect(refusal(try await token(["iat": now + 30, "nbf": nil])) == nil)
    }

    @Test func requiresANumericIat() async throws {
        for iat: Any in ["\(TestTokens.now)", true, [TestTokens.now]] {
            #expect(
                refusal(try await token(["iat": iat]))
                    == AuthenticationFailure(.invalid, "the JWT's iat claim is not a number"))
        }
    }

    // MARK: - Lifetime

    @Test func boundsTheLifetimeFromIat() async throws {
        let now = TestTokens.now
        #expect(refusal(try await token(["iat": now, "exp": now + Self.day])) == nil, "exactly a day")
        let longer = try await token(["iat": now, "exp": now + Self.day + 1])
        #expect(refusal(longer) == Self.tooLong(Self.day, "after its iat"))
        // iat decides over nbf: a day after iat is within the bound, although it is more than a day after nbf.
        #expect(refusal(try await token(["iat": now, "nbf": now - 120, "exp": now + Self.day])) == nil)
        // A token issued long ago that still has a while to go is past the bound, too.
        let old = try await token(["iat": now - 2 * Self.day, "nbf": nil, "exp": now + 300])
        #expect(refusal(old) == Self.tooLong(Self.day, "after its iat"))
    }

    @Test func boundsTheLifetimeFromNbfWithoutIat() async throws {
        let now = TestTokens.now
        let longer = try await token(["iat": nil, "nbf": now - 10, "exp": now - 10 + Self.day + 1])
        #expect(refusal(longer) == Self.tooLong(Self.day, "after its nbf"))
        #expect(refusal(try await token(["iat": nil, "nbf": now - 10, "exp": now - 10 + Self.day])) == nil)
    }

    @Test func boundsWhatIsLeftWithoutIatOrNbf() async throws {
        let now = TestTokens.now
        let longer = try await token(["iat": nil, "nbf": nil, "exp": now + Self.day + 120])
        #expect(refusal(longer) == Self.tooLong(Self.day, "from now (it has no iat or nbf)"))
        #expect(refusal(try await token(["iat": nil, "nbf": nil, "exp": now + Self.day - 120])) == nil)
    }

    @Test func theMaximumLifetimeIsConfigurable() async throws {
        #expect(TestTokens.policy.maxLifetime == .seconds(Self.day))
        let policy = JWTPolicy(issuer: TestTokens.issuer, audience: TestTokens.audience, maxLifetime: .seconds(600))
        let strict = try JWTVerifier(jwksPath: directory.path("jwks.json"), policy: policy)
        let now = TestTokens.now
        // The test claims: iat now, exp in five minutes.
        #expect(try strict.verify(try await token([:])).tenant == "clinic-a")
        let fifteenMinutes = try await token(["exp": now + 900])
        #expect(throws: Self.tooLong(600, "after its iat")) { try strict.verify(fifteenMinutes) }
        #expect(refusal(fifteenMinutes) == nil, "within the default day")
    }
}
