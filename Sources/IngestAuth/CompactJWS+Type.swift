import JSON


extension CompactJWS {
    /// The `typ` values of a JWT (RFC 7519 §5.1) and of a JWT access token (RFC 9068 §2.1), with and without the
    /// `application/` that RFC 7515 §4.1.9 lets a sender leave out, in lower case.
    static let tokenTypes: Set<String> = ["jwt", "at+jwt", "application/jwt", "application/at+jwt"]

    /// Checks the header's `typ`, when there is one: it must say the token is a JWT (``tokenTypes``, compared without
    /// regard to case, as RFC 7515 §4.1.9 asks). Another type (a JWS of some other protocol signed by the same keys,
    /// e.g. a logout token or a DPoP proof) is not an access token for the gateway.
    /// - Throws: ``AuthenticationFailure`` (`invalid`) naming the header member, never its value.
    func checkType() throws(AuthenticationFailure) {
        guard let member = header["typ"] else { return }
        guard let type = member.string else {
            throw AuthenticationFailure(.invalid, "the JWT header's typ is not a string")
        }
        // ASCII case folding only: no other character may fold into an accepted type.
        let folded = String(decoding: type.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        guard Self.tokenTypes.contains(folded) else {
            throw AuthenticationFailure(
                .invalid, "the JWT header's typ is not a JWT type (JWT, at+jwt, application/jwt, application/at+jwt)")
        }
    }
}
